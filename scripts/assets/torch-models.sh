#!/usr/bin/env bash
# torchvision resnet18 / mobilenet_v2 / squeezenet1_1, a TransformerEncoder and a tiny GPT decoder,
# exported to ONNX with re-randomized weights by Debian's python3-torch. Usage: torch-models.sh ASSET_DIR
set -euo pipefail
DEST="$1/models"
HERE=$(cd "$(dirname "$0")" && pwd)
[ -f "$DEST/tiny_gpt_ref.npz" ] && [ -f "$DEST/resnet18_ref.npz" ] && exit 0
mkdir -p "$DEST"
/usr/bin/python3 "$HERE/export_torch_models.py" "$DEST"
