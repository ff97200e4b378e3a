#!/usr/bin/env bash
# Installs every Debian package that TPU Studio's build, tests and assets need. Idempotent.
set -euo pipefail

PKGS=(
  # toolchain
  build-essential cmake ninja-build ccache lld-22 clang-22 libclang-rt-22-dev git pkg-config
  # compiler stack
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  # Qt 6
  qt6-base-dev qt6-base-dev-tools libqt6svg6-dev libqt6charts6-dev libqt6opengl6-dev libgl-dev
  # engine libraries
  libonnx-dev libprotobuf-dev protobuf-compiler libgraphviz-dev libsqlite3-dev libsimdjson-dev
  libssl-dev libopenblas-dev libeigen3-dev libzip-dev zipcmp zipmerge ziptool zlib1g-dev libstb-dev libwebp-dev nlohmann-json3-dev libpcre2-dev libicu-dev
  # (zipcmp/zipmerge/ziptool: libzip-dev's CMake config references their binaries)
  # tests
  googletest libgtest-dev libgmock-dev libbenchmark-dev xvfb xauth
  python3-numpy python3-onnx python3-jinja2 libonnx-testdata
  # OpenCV is the named reference the image preprocessing (resize, crop, pad) is tested against
  python3-opencv
  # PyTorch exports the torchvision test models and is the independent LLM reference
  python3-torch python3-torchvision
  # the sweep test's single-node Slurm cluster (tpuc sweep --executor slurm, started by the test as root)
  slurm-wlm slurmctld slurmd slurm-client munge
  # fonts so offscreen screenshots render text
  fonts-dejavu-core
  # installer metadata checks
  desktop-file-utils appstream libxml2-utils
  # the Debian package: man pages (help2man for the Qt and MLIR programs), icons, and the package test
  # (a clean Debian root to install it into, lintian on the .deb)
  help2man librsvg2-bin debootstrap lintian
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup: all ${#PKGS[@]} packages present"
