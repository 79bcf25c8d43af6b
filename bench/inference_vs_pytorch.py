#!/usr/bin/env python3
"""Times inference of the GPT-style decoder and the small ResNet compiled by
OneFlow-MLIR (oneflow-opt --emit=plan, run by oneflow-run) against PyTorch
eager (Debian's python3-torch) with the same thread count, in one run, checks
that both compute the same outputs, and writes the table to
docs/benchmarks.md.

  /usr/bin/python3 bench/inference_vs_pytorch.py --bin build/bin [--threads 2]
"""

import argparse
import ctypes
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "models"))
import gpt as gpt_model  # noqa: E402
import resnet as resnet_model  # noqa: E402

MARKER_BEGIN = "<!-- inference-vs-pytorch: begin -->"
MARKER_END = "<!-- inference-vs-pytorch: end -->"


def models():
    torch.manual_seed(0)
    gpt = gpt_model.GPT(vocab_size=512, block_size=128, d_model=256, n_head=8,
                        n_layer=4).eval()
    tokens = torch.randint(0, 512, (8, 128), dtype=torch.int64)
    torch.manual_seed(0)
    resnet = resnet_model.ResNet(num_classes=10).eval()
    images = torch.randn(16, 3, 32, 32)
    return [
        ("GPT decoder", "d=256, 4 layers, 8 heads, seq 128, batch 8", gpt,
         "tokens", tokens),
        ("ResNet", "3 stages of basic blocks, 16 x 3 x 32 x 32", resnet, "x",
         images),
    ]


def set_torch_threads(threads):
    """torch.set_num_threads(T) and the same T for the BLAS PyTorch calls.

    Debian's PyTorch (BLAS_INFO=generic) does not tell OpenBLAS how many
    threads to use, so its matrix products would run on every core even
    with torch.set_num_threads(1): set the loaded OpenBLAS's count too.
    """
    torch.set_num_threads(threads)
    with open("/proc/self/maps") as maps:
        libraries = {line.split()[-1] for line in maps if "openblas" in line}
    for path in sorted(libraries):
        if path.endswith(".so") or ".so." in path:
            try:
                ctypes.CDLL(path).openblas_set_num_threads(threads)
            except (OSError, AttributeError):
                pass


def settle():
    """Waits for idle threads of the previous timing (PyTorch's OpenMP pool,
    OpenBLAS's servers, which spin a while before sleeping) to stop using the
    cores, so that neither side is timed while the other's threads spin."""
    time.sleep(1.0)


def time_torch(module, example, steps, threads):
    set_torch_threads(threads)
    settle()
    times = []
    with torch.no_grad():
        for _ in range(3):
            module(example)
        for _ in range(steps):
            start = time.perf_counter()
            out = module(example)
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), out.numpy()


def time_oneflow(bin_dir, module, input_name, example, steps, threads, work):
    onnx_path = os.path.join(work, "model.onnx")
    torch.onnx.export(module, (example,), onnx_path, opset_version=17,
                      input_names=[input_name], output_names=["out"])
    plan = os.path.join(work, "plan")
    start = time.perf_counter()
    subprocess.run([os.path.join(bin_dir, "oneflow-opt"), onnx_path,
                    "--emit=plan", "-o", plan], check=True)
    compile_s = time.perf_counter() - start
    np.save(os.path.join(work, "input.npy"), example.numpy())
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads),
               OMP_NUM_THREADS=str(threads))
    settle()
    run = subprocess.run(
        [os.path.join(bin_dir, "oneflow-run"), plan, "--input",
         f"{input_name}={os.path.join(work, 'input.npy')}", "--steps",
         str(steps + 3), "--output-dir", os.path.join(work, "out")],
        check=True, capture_output=True, text=True, env=env)
    step_ms = [float(m) for m in re.findall(r"step \d+/\d+: ([0-9.]+) ms",
                                            run.stderr)]
    # The first steps warm caches and page in the weights, as for PyTorch.
    return (statistics.median(step_ms[3:]), compile_s,
            np.load(os.path.join(work, "out", "out.npy")))


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--threads", default=f"1,{os.cpu_count() or 1}",
                        help="comma-separated thread counts")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--doc", default=os.path.join(ROOT, "docs",
                                                      "benchmarks.md"))
    args = parser.parse_args()
    thread_counts = sorted({int(t) for t in args.threads.split(",") if t})

    rows = []
    for name, config, module, input_name, example in models():
        for threads in thread_counts:
            with tempfile.TemporaryDirectory() as work:
                ours, compile_s, our_out = time_oneflow(
                    args.bin, module, input_name, example, args.steps,
                    threads, work)
            theirs, their_out = time_torch(module, example, args.steps,
                                           threads)
            error = float(np.abs(our_out - their_out).max())
            rows.append((name, config, threads, ours, theirs, ours / theirs,
                         compile_s, error))
            print(f"{name}, {threads} thread(s): OneFlow-MLIR {ours:.2f} ms, "
                  f"PyTorch {theirs:.2f} ms, ratio {ours / theirs:.2f} "
                  f"(compile {compile_s:.1f} s, max |diff| {error:.1e})")

    table = [
        MARKER_BEGIN,
        f"Inference, median of {args.steps} steps after warm-up, "
        f"the same thread count for both (oneDNN/OpenBLAS/OpenMP threads for "
        f"OneFlow-MLIR, `torch.set_num_threads` and OpenBLAS threads for PyTorch "
        f"{torch.__version__}), on {cpu_name()} ({os.cpu_count()} cores).",
        "",
        "| model | configuration | threads | OneFlow-MLIR ms | PyTorch ms | "
        "ratio | compile s | max abs diff |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, config, threads, ours, theirs, ratio, compile_s, error in rows:
        table.append(f"| {name} | {config} | {threads} | {ours:.2f} | "
                     f"{theirs:.2f} | {ratio:.2f} | {compile_s:.1f} | "
                     f"{error:.1e} |")
    table += ["", "Reproduce: `/usr/bin/python3 bench/inference_vs_pytorch.py "
              f"--bin build/bin --threads {args.threads}`", MARKER_END]

    text = ""
    if os.path.exists(args.doc):
        with open(args.doc) as f:
            text = f.read()
    block = "\n".join(table)
    if MARKER_BEGIN in text:
        head, rest = text.split(MARKER_BEGIN, 1)
        text = head + block + rest.split(MARKER_END, 1)[1]
    else:
        if not text:
            text = "# Benchmarks\n\nRatios below 1 mean OneFlow-MLIR is faster.\n"
        text += "\n## Inference against PyTorch\n\n" + block + "\n"
    with open(args.doc + ".tmp", "w") as f:
        f.write(text)
    os.replace(args.doc + ".tmp", args.doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
