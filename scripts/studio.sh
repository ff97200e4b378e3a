#!/usr/bin/env bash
# README command (a): install the packages, build, open the studio on the bundled example project.
# Without a display, run it under xvfb-run or with QT_QPA_PLATFORM=offscreen.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
# The example project: the PP-OCR text-direction classifier and a few photos (resources/example).
bash scripts/build.sh tpuc-example-project
BUILD_DIR=${TPUC_BUILD_DIR:-build}
exec "$BUILD_DIR/bin/tpu-studio" "$BUILD_DIR/example/ppocr-cls.tpuproj" "$@"
