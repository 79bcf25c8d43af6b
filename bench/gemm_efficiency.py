#!/usr/bin/env python3
"""How close the matrix products of the GPT training step come to the BLAS library alone.

  /usr/bin/python3 bench/gemm_efficiency.py [--bin build/bin] [--threads 1] [--steps 10]
        [--warmup 3] [--no-fuse]

The GPT decoder of bench/training_vs_pytorch.py (d=256, 4 layers, 8 heads, sequence 128, batch
8, vocab 512) is compiled as a training step (SGD) and run by oneflow-run with a Chrome trace.
The GEMM-heavy part is every kernel that holds a matrix product (`*matmul*` in its name: with
fusion, also the epilogues, prologues and transposes fused with it), summed per step.

The same 75 products (per layer: QKV, Q K^T and A V for the 64 heads, the output projection, the
two MLP products; the LM head; each forward product's two gradient products with their
transposes) run through oneDNN's dnnl_sgemm alone, the library the generated products call
(ctypes; each product timed on its own with warm operands, the median of --steps runs, less the
cost of a ctypes call; the heads' products one call each, as batched matmuls run), with the
same thread count. Both sides do the same
FLOPs; the efficiency is BLAS-alone time / our time. With --no-fuse the kernels holding a
product are the products alone.
"""

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import training_vs_pytorch as training  # noqa: E402

D, LAYERS, HEADS, SEQ, BATCH, VOCAB, MLP = 256, 4, 8, 128, 8, 512, 1024
TOKENS = BATCH * SEQ
HEAD_DIM = D // HEADS


def step_products():
    """(count, m, n, k, transpose_a, transpose_b) of every product of one training step."""
    dense = [(TOKENS, 3 * D, D), (TOKENS, D, D), (TOKENS, MLP, D), (TOKENS, D, MLP)]
    products = []
    for m, n, k in dense * LAYERS + [(TOKENS, VOCAB, D)]:
        products.append((1, m, n, k, False, False))   # y = x w
        products.append((1, m, k, n, False, True))    # dx = dy w^T
        products.append((1, k, n, m, True, False))    # dw = x^T dy
    heads = BATCH * HEADS
    for _ in range(LAYERS):
        # s = q k^T, o = a v; and their gradients.
        products += [(heads, SEQ, SEQ, HEAD_DIM, False, True),
                     (heads, SEQ, HEAD_DIM, SEQ, False, False),
                     (heads, SEQ, HEAD_DIM, SEQ, False, False),   # dq = ds k
                     (heads, SEQ, HEAD_DIM, SEQ, True, False),    # dk = ds^T q
                     (heads, SEQ, SEQ, HEAD_DIM, False, True),    # da = do v^T
                     (heads, SEQ, HEAD_DIM, SEQ, True, False)]    # dv = a^T do
    return products


def flops(products):
    return sum(2.0 * c * m * n * k for c, m, n, k, _, _ in products)


def onednn(threads):
    """oneDNN, the library the generated f32 products call (dnnl_sgemm), on
    `threads` OpenMP threads."""
    try:
        lib = ctypes.CDLL("libdnnl.so.2")
        lib.dnnl_sgemm  # noqa: B018
    except (OSError, AttributeError) as e:
        raise RuntimeError(f"oneDNN not found: {e}")
    # libdnnl's OpenMP runtime; the thread count applies to later calls.
    ctypes.CDLL("libgomp.so.1").omp_set_num_threads(threads)
    dim, f = ctypes.c_int64, ctypes.c_float
    lib.dnnl_sgemm.argtypes = [ctypes.c_char, ctypes.c_char, dim, dim, dim, f,
                               ctypes.c_void_p, dim, ctypes.c_void_p, dim, f,
                               ctypes.c_void_p, dim]
    return lib


def time_blas(products, threads, warmup, steps):
    """Per-step time of the products through dnnl_sgemm alone: each product
    timed on its own, warm, `steps` times (median), minus the cost of a ctypes
    call (measured on a 1x1x1 product), times its count."""
    lib = onednn(threads)
    rng = np.random.default_rng(0)

    def per_call_ms(m, n, k, ta, tb, repeats):
        a = rng.standard_normal((k, m) if ta else (m, k), dtype=np.float32)
        b = rng.standard_normal((n, k) if tb else (k, n), dtype=np.float32)
        c = np.empty((m, n), dtype=np.float32)
        args = (b"T" if ta else b"N", b"T" if tb else b"N", m, n, k, 1.0, a.ctypes.data,
                m if ta else k, b.ctypes.data, k if tb else n, 0.0, c.ctypes.data, n)
        times = []
        for i in range(warmup + steps):
            start = time.perf_counter()
            for _ in range(repeats):
                lib.dnnl_sgemm(*args)
            if i >= warmup:
                times.append((time.perf_counter() - start) * 1e3 / repeats)
        return statistics.median(times)

    overhead = per_call_ms(1, 1, 1, False, False, 1000)
    total = 0.0
    for count, m, n, k, ta, tb in products:
        repeats = max(1, min(count, 64))
        total += count * max(per_call_ms(m, n, k, ta, tb, repeats) - overhead, 0.0)
    return total


def time_ours(bin_dir, work, threads, warmup, steps, fuse):
    config, module, example = training.gpt_model()
    tokens, labels = training.make_data()
    onnx_path = os.path.join(work, "gpt.onnx")
    training.export_gpt(module, example, onnx_path)
    np.save(os.path.join(work, "tokens.npy"), tokens)
    np.save(os.path.join(work, "labels.npy"), labels)
    plan = os.path.join(work, "plan")
    cmd = [os.path.join(bin_dir, "oneflow-opt"), onnx_path, "--train", "--loss=cross-entropy",
           "--label=labels", "--optimizer=sgd", "--lr=0.1", "--emit=plan", "-o", plan]
    if not fuse:
        cmd.append("--no-fuse")
    report = subprocess.run(cmd, check=True, capture_output=True, text=True).stderr.strip()
    trace = os.path.join(work, "trace.json")
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    subprocess.run([os.path.join(bin_dir, "oneflow-run"), plan,
                    "--data", f"tokens={os.path.join(work, 'tokens.npy')}",
                    "--data", f"labels={os.path.join(work, 'labels.npy')}",
                    "--batch", str(BATCH), "--steps", str(warmup + steps), "--quiet",
                    "--trace", trace], check=True, env=env)
    with open(trace) as f:
        events = json.load(f)
    events = events["traceEvents"] if isinstance(events, dict) else events
    per_step, kernels = {}, set()
    for e in events:
        step = e.get("args", {}).get("step", 0)
        if e.get("ph") == "X" and "matmul" in e["name"] and step >= warmup:
            per_step[step] = per_step.get(step, 0.0) + e["dur"] / 1e3
            kernels.add(e["name"])
    return statistics.median(per_step.values()), len(kernels), report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--no-fuse", action="store_true", help="compile without kernel fusion")
    args = parser.parse_args(argv)

    products = step_products()
    total = flops(products)
    calls = sum(c for c, *_ in products)
    with tempfile.TemporaryDirectory() as work:
        ours, kernels, report = time_ours(args.bin, work, args.threads, args.warmup,
                                          args.steps, not args.no_fuse)
    blas = time_blas(products, args.threads, args.warmup, args.steps)
    print(f"plan: {report}")
    print(f"GPT training step ({len(products)} products, {calls} BLAS calls, "
          f"{total / 1e9:.2f} GFLOP), {args.threads} thread(s), median of {args.steps} steps:")
    print()
    print("| | ms per step | GFLOP/s |")
    print("| --- | --- | --- |")
    print(f"| oneDNN alone (dnnl_sgemm, same shapes) | {blas:.2f} | {total / blas / 1e6:.1f} |")
    print(f"| OneFlow-MLIR: the {kernels} kernels holding a product"
          f"{' (fusion off)' if args.no_fuse else ', fused work included'} | {ours:.2f} | "
          f"{total / ours / 1e6:.1f} |")
    print()
    print(f"efficiency: {blas / ours * 100:.1f}% of the BLAS library's FLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
