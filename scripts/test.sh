#!/usr/bin/env bash
# Sets everything up on a fresh Debian machine, builds, and runs the whole
# test suite (lit + GoogleTest) through ctest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/setup.sh"
cd "$BUILD_DIR"
ctest --output-on-failure -j "$JOBS"
