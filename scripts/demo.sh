#!/usr/bin/env bash
# Sets everything up; shows, briefly, inference of a small GPT compiled for a
# 2x2 CPU mesh -- data parallel on one axis, Megatron tensor parallel on the
# other -- on 4 local MPI ranks, compared with PyTorch's logits; then runs
# the main job: an MLP (ONNX, exported from PyTorch) trained on the
# handwritten digits by `oneflow-opt --train` with data parallelism on 2
# local MPI ranks, ending with its accuracy on the held-out test images
# (scripts/demo_training.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/setup.sh"

OPT="$BUILD_DIR/bin/oneflow-opt"
RUN="$BUILD_DIR/bin/oneflow-run"
MODELS="$ROOT/test/Import/ONNX/Inputs/torch"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

echo
echo "== How oneflow-opt distributes the GPT over a 2x2 mesh =="
"$OPT" "$MODELS/gpt_opset17.onnx" --mesh 2x2 --sbp-strategy data,tensor \
  --sbp-report -o "$WORK/gpt-distributed.mlir"

echo
echo "== Compiling: one local program per rank, collectives, kernels =="
"$OPT" "$MODELS/gpt_opset17.onnx" --mesh 2x2 --sbp-strategy data,tensor \
  --emit=plan -o "$WORK/gpt-plan"
ls -l "$WORK/gpt-plan"

echo
echo "== Running on 4 local ranks =="
"$RUN" "$WORK/gpt-plan" --input "tokens=$MODELS/gpt.input.tokens.npy" \
  --steps 3 --output-dir "$WORK/out"

echo
echo "== Logits vs PyTorch =="
/usr/bin/python3 "$ROOT/test/Runtime/Inputs/compare.py" \
  "$WORK/out/logits.npy" "$MODELS/gpt.output.logits.npy"

echo
echo "== The main job: training on 2 data-parallel ranks =="
"$ROOT/scripts/demo_training.sh" "$BUILD_DIR"
