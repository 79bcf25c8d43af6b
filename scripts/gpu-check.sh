#!/usr/bin/env bash
# One-GPU check of the CUDA path: builds (scripts/setup.sh), runs the
# GPU-relevant tests, trains the GPT-style decoder and the small ResNet of
# the training tests for a few steps on GPU 0, checks their losses against
# the CPU plans' (max relative difference <= 1e-3), and prints step time,
# TFLOP/s and how fast the step's cuBLASLt products run inside the step
# compared with the same products alone (oneflow-cuda-gemm-bench).
#
#   scripts/gpu-check.sh [--standin] [--no-build] [--no-tests] [--steps N]
#                        [--out DIR]
#
# --standin runs the same flow against the stand-in CUDA libraries
# (build/lib/cuda-standin): no GPU needed, numbers meaningless, losses not
# compared (the stand-ins do not run GPU kernels). --no-build reuses
# $BUILD_DIR (default ./build); --no-tests skips ctest and lit. Everything
# lands in --out DIR (default out/gpu-check): plans, metrics, stand-in call
# logs, GPU times (ONEFLOW_CUDA_GPU_TIMES), the bench's output.
set -euo pipefail
# Exact fp32 products: TF32 (ONEFLOW_CUDA_TF32=1) would break the 1e-3 loss
# check against the CPU.
unset ONEFLOW_CUDA_TF32

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3
STANDIN=0 BUILD=1 TESTS=1 STEPS=10
OUT="$ROOT/out/gpu-check"
while (($#)); do
  case "$1" in
  --standin) STANDIN=1 ;;
  --no-build) BUILD=0 ;;
  --no-tests) TESTS=0 ;;
  --steps) STEPS="$2"; shift ;;
  --out) OUT="$2"; shift ;;
  -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
  *) echo "gpu-check: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
if ((STEPS < 2)); then
  echo "gpu-check: --steps must be >= 2 (step 0 is set-up)" >&2
  exit 2
fi

# A GPU needs the driver (libcuda.so.1) and a device node; nvidia-smi
# says both.
if ((!STANDIN)); then
  # (Containers may expose only /dev/nvidiaN, N > 0.)
  if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1 ||
    ! compgen -G '/dev/nvidia[0-9]*' >/dev/null; then
    echo "gpu-check: no NVIDIA GPU/driver: nothing to check" >&2
    exit 1
  fi
fi

if ((BUILD)); then
  # shellcheck source=setup.sh
  source "$ROOT/scripts/setup.sh"
fi
BIN="$BUILD_DIR/bin"
for tool in oneflow-opt oneflow-run oneflow-cuda-gemm-bench; do
  [[ -x $BIN/$tool ]] || { echo "gpu-check: $BIN/$tool not built" >&2; exit 1; }
done
STANDIN_LIBS="$BUILD_DIR/lib/cuda-standin"
[[ -e $STANDIN_LIBS/libcublasLt.so.13 ]] ||
  { echo "gpu-check: stand-ins not built in $STANDIN_LIBS" >&2; exit 1; }

if ((!STANDIN && TESTS)); then
  echo "== tests: CUDA unit tests and lit test/Codegen/CUDA, test/Runtime/CUDA"
  (cd "$BUILD_DIR" && ctest --output-on-failure -R 'Cuda|Nccl|Device|KernelABI')
  /usr/lib/llvm-22/bin/lit -sv "$BUILD_DIR/test/Codegen/CUDA" \
    "$BUILD_DIR/test/Runtime/CUDA"
fi

# Stand-in mode: every GPU run uses the stand-ins.
run_env=()
if ((STANDIN)); then run_env=(LD_LIBRARY_PATH="$STANDIN_LIBS"); fi
TORCH="$ROOT/test/Import/ONNX/Inputs/torch"
LOSSES="$ROOT/test/Training/Inputs/losses.py"
rm -rf "$OUT" && mkdir -p "$OUT"
"$PY" "$LOSSES" flatten "$TORCH/gpt.train.tokens.npy" "$OUT/tokens.npy"
"$PY" "$LOSSES" flatten "$TORCH/gpt.train.targets.npy" "$OUT/targets.npy"

summary=()
# check NAME "MODEL.onnx TRAIN-FLAGS..." "RUN-DATA-FLAGS..."
check() {
  local name=$1 d="$OUT/$1"
  local -a compile run_data
  read -r -a compile <<<"$2"
  read -r -a run_data <<<"$3"
  mkdir -p "$d"
  echo "== $name: compile (CPU and CUDA plans)"
  "$BIN/oneflow-opt" "${compile[@]}" --emit=plan -o "$d/cpu" >"$d/compile-cpu.txt" 2>&1
  "$BIN/oneflow-opt" "${compile[@]}" --device=cuda --emit=plan -o "$d/cuda" \
    >"$d/compile-cuda.txt" 2>&1
  grep '^cuda:' "$d/compile-cuda.txt" || true

  echo "== $name: $STEPS steps on the GPU"
  env "${run_env[@]}" "$BIN/oneflow-run" "$d/cuda" "${run_data[@]}" \
    --steps "$STEPS" --quiet --metrics "$d/cuda.jsonl" 2>&1 | tee "$d/cuda.txt"
  local step_ms
  step_ms=$("$PY" "$ROOT/scripts/gpu_check.py" step-ms "$d/cuda.txt" "$d/cuda.jsonl")

  local losses="skipped (stand-ins)"
  if ((!STANDIN)); then
    echo "== $name: $STEPS steps on the CPU, losses compared"
    "$BIN/oneflow-run" "$d/cpu" "${run_data[@]}" --steps "$STEPS" --quiet \
      --metrics "$d/cpu.jsonl" >"$d/cpu.txt"
    losses=$("$PY" "$LOSSES" compare "$d/cuda.jsonl" "$d/cpu.jsonl" --rtol 1e-3)
    echo "$losses"
  fi

  # FLOPs per step from the library calls of a one-step stand-in run (on
  # the CPU: the stand-ins log every call with its shape).
  echo "== $name: FLOPs per step (stand-in call log)"
  env LD_LIBRARY_PATH="$STANDIN_LIBS" ONEFLOW_CUDA_STANDIN_LOG="$d/standin.log" \
    "$BIN/oneflow-run" "$d/cuda" "${run_data[@]}" --steps 1 --quiet >/dev/null
  local flops
  flops=$("$PY" "$ROOT/scripts/gpu_check.py" flops "$d/standin.log" 1)

  # GPU times of the products inside the step (timing events around each
  # cuBLASLt call; a separate run since the events add work), then the same
  # products of one step alone.
  echo "== $name: cuBLASLt products inside the step and alone"
  env "${run_env[@]}" ONEFLOW_CUDA_GPU_TIMES="$d/gpu-times.jsonl" \
    "$BIN/oneflow-run" "$d/cuda" "${run_data[@]}" --steps "$STEPS" --quiet \
    >"$d/timed.txt"
  local inside alone share busy
  inside=$("$PY" "$ROOT/scripts/gpu_check.py" gpu-ms "$d/gpu-times.jsonl" matmul)
  busy=$("$PY" "$ROOT/scripts/gpu_check.py" gpu-ms "$d/gpu-times.jsonl" kernel)
  "$PY" "$ROOT/scripts/gpu_check.py" one-step "$d/gpu-times.jsonl" "$d/gemms.txt"
  env "${run_env[@]}" "$BIN/oneflow-cuda-gemm-bench" "$d/gemms.txt" \
    | tee "$d/bench.txt"
  alone=$(sed -n 's/^per_step_ms=\([0-9.]*\).*/\1/p' "$d/bench.txt")
  share=$("$PY" -c "print(f'{100 * $alone / max($inside, 1e-9):.1f}%')")
  alone=$("$PY" -c "print(f'{$alone:.4f}')")
  local tflops
  tflops=$("$PY" -c "print(f'{$flops / ($step_ms * 1e-3) / 1e12:.4f}')")
  local gflop
  gflop=$("$PY" -c "print(f'{$flops / 1e9:.4f}')")
  summary+=("| $name | $step_ms | $busy | $gflop | $tflops | $inside | $alone | $share | ${losses%%,*} |")
}

# bf16 products (cuBLASLt bf16 GEMMs, f32 accumulation) against the exact
# products and the CPU plan's widened f32 GEMMs.
echo "== bf16 products: CUDA plan vs exact and CPU plan"
BF16="$OUT/bf16"
mkdir -p "$BF16"
"$PY" "$ROOT/scripts/gpu_check.py" bf16-data "$BF16"
BF16_MODEL="$ROOT/test/Codegen/CUDA/Inputs/bf16-products.mlir"
"$BIN/oneflow-opt" "$BF16_MODEL" --emit=plan -o "$BF16/cpu" >/dev/null 2>&1
"$BIN/oneflow-opt" "$BF16_MODEL" --device=cuda --emit=plan -o "$BF16/cuda" \
  >/dev/null 2>&1
bf16_inputs=()
for name in a b p q; do bf16_inputs+=(--input "$name=$BF16/$name.npy"); done
"$BIN/oneflow-run" "$BF16/cpu" "${bf16_inputs[@]}" --output-dir "$BF16/cpu-out" \
  --quiet >/dev/null
env "${run_env[@]}" "$BIN/oneflow-run" "$BF16/cuda" "${bf16_inputs[@]}" \
  --output-dir "$BF16/cuda-out" --quiet >/dev/null
bf16_result="skipped (stand-ins)"
if ((!STANDIN)); then
  if bf16_result=$("$PY" "$ROOT/scripts/gpu_check.py" bf16-compare "$BF16" \
    "$BF16/cuda-out" "$BF16/cpu-out"); then
    echo "$bf16_result"
  else
    echo "$bf16_result"
    echo "gpu-check: bf16 products MISMATCH" >&2
    exit 1
  fi
fi

check gpt \
  "$TORCH/gpt_opset17.onnx --train --label=targets --optimizer=adamw --lr=1e-3" \
  "--data tokens=$OUT/tokens.npy --data targets=$OUT/targets.npy"
check resnet \
  "$TORCH/resnet_opset17.onnx --train --optimizer=sgd --lr=0.05 --momentum=0.9" \
  "--data x=$TORCH/resnet.train.x.npy --data labels=$TORCH/resnet.train.targets.npy"

if ((STANDIN)); then
  device="stand-in CUDA libraries (no GPU): NUMBERS ARE MEANINGLESS"
else
  device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
fi
cat <<EOF

==== gpu-check summary (paste into docs/benchmarks.md) ====
Device: $device; $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown); $STEPS steps, TF32 off.
Step: median ms/step over steps 1..; kernels busy: GPU ms per step of the
KERNEL firings (timing events; the rest of the step is launch and host
time); GFLOP/step: cuBLASLt + cuDNN calls
(weight gradients are products); GEMMs in step / alone: GPU ms per step of the
step's cuBLASLt products inside the run (timing events) / run back to back
by oneflow-cuda-gemm-bench; share = alone / in step.

| model | ms/step | kernels busy (ms) | GFLOP/step | TFLOP/s | GEMMs in step (ms) | GEMMs alone (ms) | share | losses vs CPU |
|---|---|---|---|---|---|---|---|---|
EOF
printf '%s\n' "${summary[@]}"
echo
echo "bf16 products (cuBLASLt, f32 accumulation):"
echo "$bf16_result"
if ((STANDIN)); then
  echo "(stand-in run: plumbing only, numbers are meaningless)"
fi
