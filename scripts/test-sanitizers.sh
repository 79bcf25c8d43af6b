#!/usr/bin/env bash
# CI's sanitizer step (.ci/run calls it after scripts/test.sh): builds the
# runtime, oneflow-run, the unit tests and the fuzz targets with clang and
# -fsanitize=address,undefined (+ libFuzzer) in build-sanitize, then runs,
# with leak detection on and every UB report fatal:
#   1. the runtime unit tests (GoogleTest),
#   2. each runtime fuzz target for a short fixed run (ctest fuzz-*),
#   3. an end-to-end slice: one model per family (MLP, ResNet, GPT) compiled
#      by the main build's oneflow-opt and run by the sanitized oneflow-run,
#      outputs identical to the main build's oneflow-run; a training run
#      that saves and reloads a checkpoint; a 2-rank data-parallel training
#      run under mpirun.
# Needs the main build (BUILD_DIR, default ./build) for oneflow-opt.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
SAN_DIR="${SAN_BUILD_DIR:-$ROOT/build-sanitize}"
JOBS="${JOBS:-$(nproc)}"
CXX_CLANG="${CXX_CLANG:-clang++-22}"
CC_CLANG="${CC_CLANG:-clang-22}"
start=$(date +%s)

cmake -G Ninja -S "$ROOT" -B "$SAN_DIR" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -gline-tables-only" \
  -DCMAKE_CXX_COMPILER="$CXX_CLANG" -DCMAKE_C_COMPILER="$CC_CLANG" \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DONEFLOW_FUZZ=ON >/dev/null
FUZZ_TARGETS=(npy tensor-proto checkpoint-manifest plan)
ninja -C "$SAN_DIR" -j "$JOBS" OneFlowRuntimeTests oneflow-run \
  OneFlowRuntimeTestKernels "${FUZZ_TARGETS[@]/#/oneflow-fuzz-}"
echo "sanitizers: built in $(($(date +%s) - start)) s"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$ROOT/scripts/lsan.supp:print_suppressions=0"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A sanitizer report anywhere fails the step, even one a test tolerated.
LOG="$SAN_DIR/sanitizers.log"
: >"$LOG"

# 1. Unit tests.
"$SAN_DIR/bin/OneFlowRuntimeTests" --gtest_brief=1 2>&1 | tee -a "$LOG" | tail -3
echo "sanitizers: unit tests done at $(($(date +%s) - start)) s"

# 2. Short fuzz runs.
(cd "$SAN_DIR" && ctest -R '^fuzz-' -E '^fuzz-(replay|onnx)' --output-on-failure -j "$JOBS") 2>&1 | tee -a "$LOG" | tail -3
echo "sanitizers: fuzz runs done at $(($(date +%s) - start)) s"

# 3. End-to-end slice.
OPT="$BUILD_DIR/bin/oneflow-opt"
RUN="$SAN_DIR/bin/oneflow-run"
PLAIN_RUN="$BUILD_DIR/bin/oneflow-run"
T="$ROOT/test/Import/ONNX/Inputs/torch"
W="$SAN_DIR/e2e"
rm -rf "$W" && mkdir -p "$W"
for model in mlp resnet gpt; do
  input=x
  [[ $model == gpt ]] && input=tokens
  "$OPT" "$T/${model}_opset17.onnx" --emit=plan -o "$W/$model"
  "$RUN" "$W/$model" --input "$input=$T/$model.input.$input.npy" \
    --output-dir "$W/$model-san" --steps 2 --quiet 2>&1 | tee -a "$LOG"
  "$PLAIN_RUN" "$W/$model" --input "$input=$T/$model.input.$input.npy" \
    --output-dir "$W/$model-plain" --steps 2 --quiet
  cmp "$W/$model-san/logits.npy" "$W/$model-plain/logits.npy"
  echo "sanitizers: $model: same logits as the main build"
done
/usr/bin/python3 "$ROOT/test/Runtime/Inputs/train_compiled.py" data "$T" "$W/data" >/dev/null
TRAIN=(--train --loss=cross-entropy --label=labels --optimizer=adamw --lr=1e-3)
DATA=(--data "x=$W/data/x.npy" --data "labels=$W/data/labels.npy")
"$OPT" "$T/mlp_opset17.onnx" "${TRAIN[@]}" --emit=plan -o "$W/train1"
"$RUN" "$W/train1" "${DATA[@]}" --steps 2 --save "$W/ckpt" --quiet 2>&1 | tee -a "$LOG"
"$RUN" "$W/train1" "${DATA[@]}" --steps 2 --load "$W/ckpt" --quiet 2>&1 | tee -a "$LOG"
"$OPT" "$T/mlp_opset17.onnx" "${TRAIN[@]}" --mesh=2 --sbp-strategy=data \
  --emit=plan -o "$W/train2"
# OpenMPI unloads its plugins at MPI_Finalize: keep them mapped (and unwind
# precisely through libc) so that LeakSanitizer names the MPI libraries and
# lsan.supp can suppress exactly those.
clang-22 -shared -fPIC -O1 -o "$W/keep-loaded.so" "$ROOT/scripts/keep-loaded.c"
LD_PRELOAD="$W/keep-loaded.so" ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0" \
  "$RUN" "$W/train2" --np 2 "${DATA[@]}" --steps 2 --quiet 2>&1 | tee -a "$LOG"
echo "sanitizers: end-to-end slice done at $(($(date +%s) - start)) s"

if grep -E "ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: UndefinedBehaviorSanitizer" "$LOG"; then
  echo "sanitizers: reports found (see $LOG)"
  exit 1
fi
echo "sanitizers: no reports; total $(($(date +%s) - start)) s"
