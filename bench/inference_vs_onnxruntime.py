#!/usr/bin/env python3
"""Times inference of torchvision models (random weights) and transformer
encoders compiled by OneFlow-MLIR (oneflow-opt --emit=plan, run by
oneflow-run) against ONNX Runtime's CPU execution provider on the same ONNX
file, with the same thread count, checks that both compute the same
outputs, and writes the table to docs/benchmarks.md (issue 21's speed
criteria: geometric mean of our/ORT <= 1).

ONNX Runtime comes from the npm package onnxruntime-node, installed outside
the repository (its install script fetches GPU binaries and fails, hence
--ignore-scripts; the CPU library is bin/napi-v*/linux/x64/):

  mkdir -p /work/ort && cd /work/ort && \\
      npm install --ignore-scripts onnxruntime-node
  /usr/bin/python3 bench/inference_vs_onnxruntime.py --bin build/bin \\
      --ort /work/ort/node_modules/onnxruntime-node [--batches 1,8] \\
      [--threads 1,2] [--only resnet18,vit]

Both sides of a row are timed in one run of this script, alternating:
--rounds fresh processes of each side (ours, ORT, ours, ORT, ...), each
giving the median step of oneflow-run --steps or the median of
InferenceSession.run (bench/ort_time.js; graph optimizations on, one
inter-op thread, intraOpNumThreads = the thread count); a side's time is
the median over its processes. On a shared VM one process can run 20-40%
slower than the next throughout (both sides' do, seemingly by where their
memory lands in the shared caches), which a single process per side turns
into a ratio off by as much.
"""

import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import torch
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from docs_block import write_block  # noqa: E402
from inference_vs_pytorch import cpu_name  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "python", "models"))
import vision  # noqa: E402

MARKER_BEGIN = "<!-- inference-vs-onnxruntime: begin -->"
MARKER_END = "<!-- inference-vs-onnxruntime: end -->"

# torchvision.models constructors (weights=None) and their image size:
# those of test/Python/test_frontend.py's Torchvision group, AlexNet at its
# own 224 (its pooling wants it).
TORCHVISION = {
    "resnet18": ({}, 64), "resnext50_32x4d": ({}, 64),
    "mobilenet_v2": ({}, 64), "mobilenet_v3_small": ({}, 64),
    "efficientnet_b0": ({}, 64), "convnext_tiny": ({}, 64),
    "densenet121": ({}, 64), "squeezenet1_0": ({}, 64),
    "shufflenet_v2_x0_5": ({}, 64), "mnasnet0_5": ({}, 64),
    "regnet_y_400mf": ({}, 64),
    "googlenet": (dict(aux_logits=False, init_weights=True), 64),
    "alexnet": ({}, 224),
}
MODELS = list(TORCHVISION) + ["vit", "transformer_encoder"]


def build(name, batch):
    """(module, example input, description) of a benchmark model."""
    import torchvision
    torch.manual_seed(4)
    if name == "vit":
        from torchvision.models.vision_transformer import VisionTransformer
        model = VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                                  num_heads=2, hidden_dim=64, mlp_dim=128)
        return vision.nontrivial(model).eval(), torch.randn(batch, 3, 32, 32), \
            "2 layers, d 64, 32x32"
    if name == "transformer_encoder":
        layer = nn.TransformerEncoderLayer(d_model=256, nhead=4,
                                           dim_feedforward=1024,
                                           dropout=0.0, batch_first=True)
        model = nn.TransformerEncoder(layer, num_layers=4,
                                      enable_nested_tensor=False)
        return vision.nontrivial(model).eval(), torch.randn(batch, 64, 256), \
            "4 layers, d 256, seq 64"
    options, size = TORCHVISION[name]
    model = getattr(torchvision.models, name)(weights=None, **options)
    return vision.nontrivial(model).eval(), torch.randn(batch, 3, size, size), \
        f"{size}x{size}"


def export(module, example, path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (example,), path, opset_version=17,
                          do_constant_folding=True, input_names=["x"],
                          output_names=["out"])


def settle():
    """Lets the previous side's spinning worker threads go to sleep."""
    time.sleep(0.5)


def time_oneflow(bin_dir, plan, work, steps, threads):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads),
               OMP_NUM_THREADS=str(threads))
    settle()
    run = subprocess.run(
        [os.path.join(bin_dir, "oneflow-run"), plan, "--input",
         f"x={os.path.join(work, 'input.npy')}", "--steps", str(steps + 3),
         "--output-dir", os.path.join(work, "out")],
        check=True, capture_output=True, text=True, env=env)
    step_ms = [float(m) for m in re.findall(r"step \d+/\d+: ([0-9.]+) ms",
                                            run.stderr)]
    # The first steps warm caches and page in the weights.
    return statistics.median(step_ms[3:]), np.load(
        os.path.join(work, "out", "out.npy"))


def time_ort(ort_dir, onnx_path, example, work, steps, threads):
    inp, out = os.path.join(work, "input.f32"), os.path.join(work, "ort.f32")
    example.numpy().astype(np.float32).tofile(inp)
    shape = "x".join(str(d) for d in example.shape)
    settle()
    run = subprocess.run(
        ["node", os.path.join(ROOT, "bench", "ort_time.js"), ort_dir,
         onnx_path, "x", inp, shape, str(threads), str(steps), out],
        check=True, capture_output=True, text=True)
    median = float(re.search(r'"median_ms":([0-9.eE+-]+)',
                             run.stdout).group(1))
    return median, np.fromfile(out, dtype=np.float32)


def ort_version(ort_dir):
    try:
        with open(os.path.join(ort_dir, "package.json")) as f:
            return re.search(r'"version":\s*"([^"]+)"', f.read()).group(1)
    except (OSError, AttributeError):
        return "?"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--ort", default="/work/ort/node_modules/"
                        "onnxruntime-node",
                        help="the onnxruntime-node package directory")
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--only", default="",
                        help="comma-separated model names (default: all)")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3,
                        help="processes per side and row, alternating")
    parser.add_argument("--no-doc", action="store_true",
                        help="print the table only")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(args.ort, "bin")):
        sys.exit(f"no ONNX Runtime at {args.ort}: install it with `mkdir -p "
                 "/work/ort && cd /work/ort && npm install --ignore-scripts "
                 "onnxruntime-node` and pass --ort "
                 "/work/ort/node_modules/onnxruntime-node")
    batches = [int(b) for b in args.batches.split(",") if b]
    thread_counts = [int(t) for t in args.threads.split(",") if t]
    names = args.only.split(",") if args.only else MODELS
    torch.set_num_threads(1)

    rows = []
    for name in names:
        for batch in batches:
            module, example, config = build(name, batch)
            with tempfile.TemporaryDirectory() as work:
                onnx_path = os.path.join(work, "model.onnx")
                export(module, example, onnx_path)
                plan = os.path.join(work, "plan")
                start = time.perf_counter()
                subprocess.run([os.path.join(args.bin, "oneflow-opt"),
                                onnx_path, "--emit=plan", "-o", plan],
                               check=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                compile_s = time.perf_counter() - start
                np.save(os.path.join(work, "input.npy"), example.numpy())
                with torch.no_grad():
                    ref = module(example).numpy().ravel()
                scale = float(np.abs(ref).max())
                for threads in thread_counts:
                    our_times, their_times = [], []
                    for _ in range(args.rounds):
                        ours, our_out = time_oneflow(args.bin, plan, work,
                                                     args.steps, threads)
                        theirs, their_out = time_ort(args.ort, onnx_path,
                                                     example, work,
                                                     args.steps, threads)
                        our_times.append(ours)
                        their_times.append(theirs)
                    ours = statistics.median(our_times)
                    theirs = statistics.median(their_times)
                    # Both against PyTorch, relative to its largest output.
                    error = max(float(np.abs(our_out.ravel() - ref).max()),
                                float(np.abs(their_out - ref).max())) / scale
                    agree = float(np.abs(our_out.ravel() -
                                         their_out).max()) / scale
                    rows.append((name, config, batch, threads, ours, theirs,
                                 compile_s, agree))
                    print(f"{name} b{batch} t{threads}: OneFlow-MLIR "
                          f"{ours:.2f} ms, ORT {theirs:.2f} ms, ratio "
                          f"{ours / theirs:.2f} (processes: ours "
                          f"{min(our_times):.2f}-{max(our_times):.2f}, ORT "
                          f"{min(their_times):.2f}-{max(their_times):.2f}; "
                          f"compile {compile_s:.1f} s, "
                          f"ours vs ORT {agree:.1e}, worst vs PyTorch "
                          f"{error:.1e} of the largest output)", flush=True)
                    if agree > 1e-3:
                        sys.exit(f"{name}: OneFlow-MLIR and ONNX Runtime "
                                 f"disagree ({agree:.1e})")

    lines = [
        f"Inference, median of {args.steps} steps after 3 warm-up steps "
        f"per process, median over {args.rounds} processes per side "
        f"(alternating), "
        f"OneFlow-MLIR (oneflow-run, OMP_NUM_THREADS = OPENBLAS_NUM_THREADS "
        f"= threads) against ONNX Runtime {ort_version(args.ort)} "
        f"(onnxruntime-node, CPU execution provider, graph optimizations "
        f"all, intraOpNumThreads = threads) on the same ONNX file (opset "
        f"17, random weights), both timed in one run per row, on "
        f"{cpu_name()} ({os.cpu_count()} cores). Ratio = ours / ORT (below 1: "
        f"we are faster); agreement = max |ours - ORT| / max |output|.",
        "",
        "| model | input | batch | threads | OneFlow-MLIR ms | ORT ms | "
        "ratio | compile s | agreement |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for (name, config, batch, threads, ours, theirs, compile_s,
         agree) in rows:
        lines.append(f"| {name} | {config} | {batch} | {threads} | "
                     f"{ours:.2f} | {theirs:.2f} | {ours / theirs:.2f} | "
                     f"{compile_s:.1f} | {agree:.0e} |")
    lines.append("")
    for batch in batches:
        for threads in thread_counts:
            ratios = [r[4] / r[5] for r in rows
                      if r[2] == batch and r[3] == threads]
            if ratios:
                summary = (f"Batch {batch}, {threads} thread(s): geometric "
                           f"mean ratio {geomean(ratios):.2f} over "
                           f"{len(ratios)} models, worst {max(ratios):.2f}.")
                lines.append(summary)
                lines.append("")
                print(summary)
    lines.append("Reproduce: `/usr/bin/python3 bench/inference_vs_onnxruntime.py "
                 f"--bin build/bin --ort /work/ort/node_modules/onnxruntime-node "
                 f"--batches {args.batches} --threads {args.threads} "
                 f"--rounds {args.rounds}"
                 + (f" --only {args.only}" if args.only else "") + "`")
    if not args.no_doc:
        write_block(MARKER_BEGIN, MARKER_END, "\n".join(lines),
                    "## Inference against ONNX Runtime")
    return 0


if __name__ == "__main__":
    sys.exit(main())
