#!/usr/bin/env bash
# Sets everything up, then runs the main job on the bundled example: a
# two-layer MLP on a 2x2 CPU mesh, Megatron-style, printed at each step of
# what the compiler has so far.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/setup.sh"

OPT="$BUILD_DIR/bin/oneflow-opt"
EXAMPLE="$ROOT/examples/mlp-2x2.mlir"

echo
echo "== The example: an MLP with pinned SBPs on a 2x2 mesh =="
cat "$EXAMPLE"

echo
echo "== Verified and canonicalized by oneflow-opt =="
"$OPT" "$EXAMPLE" --canonicalize

echo
echo "== The SBP signatures each op admits on one mesh axis =="
"$OPT" "$EXAMPLE" --test-print-sbp-signatures -o /dev/null
