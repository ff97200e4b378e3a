#!/usr/bin/env bash
# ONNX Runtime (MIT) from npm: the optional framework reference, loaded at run time with dlopen.
# Keeps only the Linux x64 library and the C API headers. Usage: onnxruntime.sh ASSET_DIR
set -euo pipefail
DEST="$1/onnxruntime"
[ -f "$DEST/lib/libonnxruntime.so.1" ] && [ -f "$DEST/include/onnxruntime_c_api.h" ] && exit 0
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
(cd "$TMP" && npm pack --silent com.github.asus4.onnxruntime@0.4.9 >/dev/null)
HEADERS='package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64/onnxruntime.framework/Headers'
tar xzf "$TMP"/*.tgz -C "$TMP" 'package/Plugins/Linux/x64' "$HEADERS" package/LICENSE* 2>/dev/null ||
  tar xzf "$TMP"/*.tgz -C "$TMP" 'package/Plugins/Linux/x64' "$HEADERS"
mkdir -p "$DEST/lib" "$DEST/include"
cp "$TMP/package/Plugins/Linux/x64/libonnxruntime.so"* "$DEST/lib/"
[ -f "$DEST/lib/libonnxruntime.so.1" ] || cp "$DEST/lib/libonnxruntime.so" "$DEST/lib/libonnxruntime.so.1"
cp "$TMP/$HEADERS"/*.h "$DEST/include/"
cp "$TMP"/package/LICENSE* "$DEST/" 2>/dev/null || true
echo "onnxruntime: $DEST"
