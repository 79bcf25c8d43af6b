#!/usr/bin/env python3
"""Measures the GPT-style decoder forward compiled by OneFlow-MLIR on 1 rank
and on 2 ranks (data parallel, `--mesh 2 --sbp-strategy data`) in one run,
checks both match PyTorch, and lists the SBP report's boxing bytes of each
strategy next to those of the hand-written scheme (the minimum for `data`,
Megatron's all-reduces for `tensor`). Writes the table to
docs/benchmarks.md.

  /usr/bin/python3 bench/distributed_scaling.py --bin build/bin
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "models"))
import gpt as gpt_model  # noqa: E402
from docs_block import write_block  # noqa: E402

MARKER_BEGIN = "<!-- distributed-scaling: begin -->"
MARKER_END = "<!-- distributed-scaling: end -->"
VOCAB, SEQ, D_MODEL, LAYERS, BATCH = 512, 128, 256, 4, 8


def compile_plan(bin_dir, onnx_path, plan, mesh_args):
    subprocess.run([os.path.join(bin_dir, "oneflow-opt"), onnx_path,
                    "--emit=plan", "-o", plan] + mesh_args, check=True)


def run_plan(bin_dir, plan, work, steps, env):
    out = os.path.join(plan + "-out")
    run = subprocess.run(
        [os.path.join(bin_dir, "oneflow-run"), plan, "--input",
         f"tokens={os.path.join(work, 'tokens.npy')}", "--steps",
         str(steps + 3), "--output-dir", out],
        check=True, capture_output=True, text=True, env=env)
    step_ms = [float(m) for m in re.findall(r"step \d+/\d+: ([0-9.]+) ms",
                                            run.stderr)]
    return statistics.median(step_ms[3:]), np.load(os.path.join(out, "out.npy"))


def report_bytes(bin_dir, onnx_path, mesh, strategy):
    run = subprocess.run(
        [os.path.join(bin_dir, "oneflow-opt"), onnx_path, f"--mesh={mesh}",
         f"--sbp-strategy={strategy}", "--sbp-report", "-o", os.devnull],
        check=True, capture_output=True, text=True)
    match = re.search(r"total: (\d+) boxings, (\d+) bytes per device",
                      run.stdout + run.stderr)
    return int(match.group(1)), int(match.group(2))


def reference_bytes(strategy, mesh):
    """Bytes per device of the hand-written schemes: the logits made whole
    for the output (the minimum under `data`) and, under Megatron on t
    devices, one all-reduce per attention and per MLP block and one for the
    vocabulary-split embedding (on the data shard, when another axis splits
    the batch)."""
    sizes = [int(n) for n in mesh.split("x")]
    devices = 1
    for n in sizes:
        devices *= n
    logits = BATCH * SEQ * VOCAB * 4
    total = logits * (devices - 1) / devices
    for axis_strategy, n in zip(strategy.split(","), sizes):
        if axis_strategy != "tensor":
            continue
        data = devices // n
        activation = BATCH * SEQ * D_MODEL * 4 / data
        total += (2 * LAYERS + 1) * activation * 2 * (n - 1) / n
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    torch.manual_seed(0)
    gpt = gpt_model.GPT(vocab_size=VOCAB, block_size=SEQ, d_model=D_MODEL,
                        n_head=8, n_layer=LAYERS).eval()
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ), dtype=torch.int64)
    with torch.no_grad():
        reference = gpt(tokens).numpy()
    cpus = os.cpu_count() or 1
    rows = []
    with tempfile.TemporaryDirectory() as work:
        onnx_path = os.path.join(work, "gpt.onnx")
        torch.onnx.export(gpt, (tokens,), onnx_path, opset_version=17,
                          input_names=["tokens"], output_names=["out"])
        np.save(os.path.join(work, "tokens.npy"), tokens.numpy())
        compile_plan(args.bin, onnx_path, os.path.join(work, "r1"), [])
        compile_plan(args.bin, onnx_path, os.path.join(work, "r2"),
                     ["--mesh=2", "--sbp-strategy=data"])
        configs = [("1 rank, 1 thread", "r1", 1), (f"1 rank, {cpus} threads",
                                                   "r1", cpus),
                   (f"2 ranks (data), {max(1, cpus // 2)} thread(s) each",
                    "r2", max(1, cpus // 2))]
        for name, plan, threads in configs:
            env = dict(os.environ, OMP_NUM_THREADS=str(threads),
                       OPENBLAS_NUM_THREADS=str(threads))
            ms, out = run_plan(args.bin, os.path.join(work, plan), work,
                               args.steps, env)
            err = float(np.max(np.abs(out - reference)))
            rows.append((name, ms, BATCH * SEQ / ms * 1e3, err))
        reports = [(strategy, mesh, *report_bytes(args.bin, onnx_path, mesh,
                                                 strategy),
                    reference_bytes(strategy, mesh))
                   for strategy, mesh in [("data", "2"), ("tensor", "2"),
                                          ("data,tensor", "2x2")]]

    base = rows[0][2]
    lines = [
        f"GPT decoder forward (d={D_MODEL}, {LAYERS} layers, seq {SEQ}, "
        f"batch {BATCH}), median of {args.steps} steps, {cpus} CPUs in all:",
        "",
        "| configuration | ms/step | tokens/s | vs 1 rank, 1 thread | max abs diff vs PyTorch |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, ms, tput, err in rows:
        lines.append(f"| {name} | {ms:.1f} | {tput:.0f} | {tput / base:.2f}x "
                     f"| {err:.1e} |")
    eff = rows[2][2] / (2 * base)
    lines += ["", f"Data-parallel scaling efficiency (2 ranks on {cpus} "
              f"cores vs one rank on one core): {eff * 100:.0f}%.", "",
              "| strategy | mesh | boxings | bytes per device per step | "
              "hand-written scheme (data: the minimum; tensor: Megatron) |",
              "| --- | --- | --- | --- | --- |"]
    for strategy, mesh, count, nbytes, minimum in reports:
        lines.append(f"| {strategy} | {mesh} | {count} | {nbytes} | "
                     f"{minimum:.0f} |")
    table = "\n".join(lines)
    print(table)
    if args.no_write:
        return
    write_block(MARKER_BEGIN, MARKER_END, table,
                "## Distributed scaling\n\n`bench/distributed_scaling.py`")


if __name__ == "__main__":
    main()
