#!/usr/bin/env bash
# README command (b): install the packages, fetch the assets, build, run the whole test suite (every label,
# `package` included: the .deb installed into a clean Debian 12 root, which needs root or password-less sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/fetch-assets.sh
bash scripts/build.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "${TPUC_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" "$@"
