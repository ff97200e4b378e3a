#!/usr/bin/env bash
# Configures (once) and builds TPU Studio into build/ with Ninja, ccache and lld. Extra args go to ninja.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${TPUC_BUILD_DIR:-build}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
# One job per core: an MLIR translation unit takes ~350 MB, so two jobs fit any machine we target.
ninja -C "$BUILD_DIR" -j "$(nproc)" "$@"
