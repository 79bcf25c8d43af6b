#!/usr/bin/env bash
# Runs one fuzz target for a long time, by hand:
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
# TARGET: npy, tensor-proto, checkpoint-manifest, plan or onnx-import.
# Builds it with clang, libFuzzer, ASan and UBSan in build-fuzz (FUZZ_BUILD_DIR;
# the first build of onnx-import compiles the dialects: ~15 min on 2 cores),
# then fuzzes from the seed corpus and the regressions at one job. New
# inputs go to build-fuzz/fuzz/work-TARGET, crashes to
# build-fuzz/fuzz/artifacts-TARGET/ (add each one, once fixed, to
# fuzz/regressions/TARGET/, which ctest replays on every build).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${1:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options]}"
SECONDS_TO_RUN="${2:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options]}"
shift 2
DIR="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
if [[ ! -f $DIR/build.ninja ]]; then
  cmake -G Ninja -S "$ROOT" -B "$DIR" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -gline-tables-only" \
    -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_C_COMPILER=clang-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit -DONEFLOW_FUZZ=ON >/dev/null
fi
ninja -C "$DIR" -j "${JOBS:-2}" "oneflow-fuzz-$TARGET"
WORK="$DIR/fuzz/work-$TARGET"
ARTIFACTS="$DIR/fuzz/artifacts-$TARGET"
mkdir -p "$WORK" "$ARTIFACTS"
export ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# A target with no crash inputs yet has no regressions directory.
CORPORA=("$WORK" "$ROOT/fuzz/corpus/$TARGET")
if [[ -d $ROOT/fuzz/regressions/$TARGET ]]; then
  CORPORA+=("$ROOT/fuzz/regressions/$TARGET")
fi
# With -jobs=N, libFuzzer writes fuzz-K.log into the current directory.
cd "$DIR/fuzz"
exec "$DIR/bin/oneflow-fuzz-$TARGET" -max_total_time="$SECONDS_TO_RUN" \
  -max_len=65536 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$ARTIFACTS/" "$@" "${CORPORA[@]}"
