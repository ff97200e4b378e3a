#!/usr/bin/env bash
# Renders the AppStream screenshots the metainfo names, at the sizes it declares, with the studio itself:
#   render-screenshots.sh TPU_STUDIO EXAMPLE.tpuproj METAINFO.xml OUT_DIR
# example-project.png: the example project as it opens; example-int8-deployed.png: the same after Run Whole
# Pipeline of its INT8 configuration (tpu-studio --run-pipeline), showing that deploy's accuracy. The example is
# copied first (its cache and runs stay out of the build's example). Exit 1 when a picture cannot be made or
# its size differs from the declaration.
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 TPU_STUDIO EXAMPLE.tpuproj METAINFO.xml OUT_DIR" >&2; exit 2; }
studio=$1 example=$2 metainfo=$3 out=$4
[ -x "$studio" ] || { echo "render-screenshots: '$studio' is not executable" >&2; exit 2; }
[ -f "$example" ] || { echo "render-screenshots: no example project '$example'" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$example" "$work/example.tpuproj"
for folder in models images text-lines test; do
  ln -s "$(dirname "$(readlink -f "$example")")/$folder" "$work/$folder"
done
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}

# Each <image type="source" width="W" height="H">URL</image> as "W H NAME".
images=$(/usr/bin/python3 - "$metainfo" <<'PY'
import sys, xml.etree.ElementTree as ET
for image in ET.parse(sys.argv[1]).getroot().iter("image"):
    if image.get("type") == "source":
        print(image.get("width"), image.get("height"), image.text.strip().rsplit("/", 1)[-1])
PY
)
[ -n "$images" ] || { echo "render-screenshots: $metainfo declares no screenshots" >&2; exit 1; }
while read -r width height name; do
  case "$name" in
    example-project.png) extra=() ;;
    example-int8-deployed.png) extra=(--run-pipeline bm1684x-int8) ;;
    *) echo "render-screenshots: $metainfo names '$name', which this script does not know how to make" >&2; exit 1 ;;
  esac
  echo "-- $name (${width}x${height}) ${extra[*]}"
  "$studio" "${extra[@]}" --screenshot-size "${width}x${height}" --screenshot "$out/$name" "$work/example.tpuproj" \
    2> "$work/studio.log" || { cat "$work/studio.log" >&2; echo "render-screenshots: $name failed" >&2; exit 1; }
  /usr/bin/python3 - "$out/$name" "$width" "$height" <<'PY'
import struct, sys
with open(sys.argv[1], "rb") as f:
    head = f.read(24)
w, h = struct.unpack(">II", head[16:24])
if (w, h) != (int(sys.argv[2]), int(sys.argv[3])):
    sys.exit(f"render-screenshots: {sys.argv[1]} is {w}x{h}, the metainfo declares {sys.argv[2]}x{sys.argv[3]}")
print(f"{sys.argv[1]}: {w}x{h}")
PY
done <<< "$images"
