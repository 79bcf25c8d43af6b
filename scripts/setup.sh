#!/usr/bin/env bash
# Installs the Debian packages OneFlow-MLIR needs (skipping those present) and
# configures and builds the project in ./build. Sourced by test.sh and demo.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
JOBS="${JOBS:-$(nproc)}"

PACKAGES=(
  cmake ninja-build g++ python3
  # LLVM/MLIR 22: libraries, CMake config, mlir-tblgen, lit, FileCheck, not.
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22
  # libFuzzer and the sanitizer runtimes for clang (fuzz/, scripts/test-sanitizers.sh).
  libclang-rt-22-dev
  # LLVM's OpenMP runtime, which generated kernels use for their threads.
  libomp-22-dev
  # Unit tests.
  libgtest-dev
  # ONNX import and its test data.
  libonnx-dev libonnx-testdata python3-onnx python3-numpy
  libprotobuf-dev protobuf-compiler
  # Reference gradients (PyTorch autograd) in tests; the training demo's
  # model export and its digits data (scikit-learn ships them); the Python
  # frontend's tests of torchvision's models.
  python3-torch python3-sklearn python3-torchvision
  # Multi-rank runtime, CPU BLAS (convolutions, f64 products) and oneDNN
  # (f32 matrix products).
  libopenmpi-dev openmpi-bin libopenblas-dev libdnnl-dev
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#PACKAGES[@]} packages present"
fi

cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
cmake --build "$BUILD_DIR" -j "$JOBS"
