#!/usr/bin/env bash
# Real photos for calibration and accuracy tests, from Debian packages (downloaded, not installed).
# Usage: images.sh ASSET_DIR
set -euo pipefail
DEST="$1/images"
[ -f "$DEST/.complete" ] && exit 0
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
mkdir -p "$DEST"
cd "$TMP"
apt-get download darknet python3-skimage python3-sklearn python-matplotlib-data >/dev/null 2>&1 || {
  (command -v sudo >/dev/null && sudo apt-get update -qq) || apt-get update -qq
  apt-get download darknet python3-skimage python3-sklearn python-matplotlib-data >/dev/null
}
for deb in *.deb; do dpkg -x "$deb" extracted; done
find extracted/usr/share/darknet/data -maxdepth 1 -name '*.jpg' -exec cp {} "$DEST/" \;
for f in astronaut.png chelsea.png coffee.png rocket.jpg motorcycle_left.png motorcycle_right.png \
         hubble_deep_field.jpg retina.jpg page.png camera.png coins.png; do
  find extracted -path '*skimage/data/*' -name "$f" -exec cp {} "$DEST/" \; -quit
done
find extracted -path '*sklearn/datasets/images/*' -name '*.jpg' -exec cp {} "$DEST/" \;
find extracted -name grace_hopper.jpg -exec cp {} "$DEST/" \; -quit
touch "$DEST/.complete"
echo "images: $DEST ($(ls "$DEST" | wc -l) files)"
