"""Prints the test asset cache (TPUC_ASSETS, else TPUC_ASSETS_DIR, else ~/.cache/tpu-studio/assets, as
tests/common/tpuc/Testing/TestAssets.h) and fails with the fetch hint when resnet18 or the photos are missing."""
import os
import sys

d = os.environ.get("TPUC_ASSETS") or os.environ.get("TPUC_ASSETS_DIR") or \
    os.path.join(os.path.expanduser("~"), ".cache", "tpu-studio", "assets")
for need in ("models/resnet18.onnx", "images/dog.jpg"):
    if not os.path.exists(os.path.join(d, need)):
        sys.exit(f"{os.path.join(d, need)} is missing: run scripts/fetch-assets.sh (or set TPUC_ASSETS)")
print(d)
