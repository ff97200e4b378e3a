#!/usr/bin/env bash
# README command (a): install the packages, build, open the studio on the bundled example project.
# Without a display, run it under xvfb-run or with QT_QPA_PLATFORM=offscreen.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
BUILD_DIR=${TPUC_BUILD_DIR:-build}
EXAMPLE=resources/examples/ppocr-cls/ppocr-cls.tpuproj
if [ -f "$EXAMPLE" ]; then
  exec "$BUILD_DIR/bin/tpu-studio" "$EXAMPLE" "$@"
fi
exec "$BUILD_DIR/bin/tpu-studio" "$@"
