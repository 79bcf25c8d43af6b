#!/usr/bin/env python3
"""Data-parallel training-step scaling: the 8-layer GPT-style decoder of
issue 17 (d=32, 4 heads, seq 16, vocab 128, global batch 64, AdamW) trained
on 1 rank and on 2 ranks (`--mesh=2`, same global batch, one thread per
rank), with and without gradient buckets. Prints and writes to
docs/benchmarks.md: ms/step (median), scaling efficiency T1 / (2 T2),
collectives per step and kernels per rank (from oneflow-opt's summary),
compile seconds, and the loss of the last step (the runs must agree).

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
      /usr/bin/python3 bench/training_scaling.py --bin build/bin
"""

import argparse
import json
import os
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
from docs_block import write_block  # noqa: E402
from realtime import realtime_priority, realtime_priority_available  # noqa: E402

MARKER_BEGIN = "<!-- training-scaling: begin -->"
MARKER_END = "<!-- training-scaling: end -->"
VOCAB, SEQ, D_MODEL, HEADS, LAYERS, BATCH = 128, 16, 32, 4, 8, 64


def compile_plan(bin_dir, onnx_path, plan, extra):
    start = time.monotonic()
    run = subprocess.run(
        [os.path.join(bin_dir, "oneflow-opt"), onnx_path, "--train",
         "--label=targets", "--optimizer=adamw", "--lr=1e-3", "--emit=plan",
         "-o", plan] + extra, check=True, capture_output=True, text=True)
    seconds = time.monotonic() - start
    kernels = re.search(r"kernels: (\d+) over (\d+) rank", run.stderr)
    per_rank = int(kernels.group(1)) / int(kernels.group(2))
    coll = re.search(r"collectives per step: \d+ over \d+ rank\(s\) "
                     r"\(at most (\d+) on a rank\)", run.stderr)
    return seconds, per_rank, int(coll.group(1)) if coll else 0


def run_plan(bin_dir, plan, work, steps):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    metrics = plan + ".jsonl"
    subprocess.run(
        [os.path.join(bin_dir, "oneflow-run"), plan, "--data",
         f"tokens={os.path.join(work, 'tokens.npy')}", "--data",
         f"targets={os.path.join(work, 'targets.npy')}", "--steps",
         str(steps + 3), "--quiet", "--metrics", metrics],
        check=True, capture_output=True, text=True, env=env,
        preexec_fn=realtime_priority)
    rows = [json.loads(line) for line in open(metrics)]
    step_ms = [BATCH / row["samples_per_s"] * 1e3 for row in rows[3:]]
    return statistics.median(step_ms), rows[-1]["loss"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5,
                        help="runs of each plan, interleaved; the table "
                        "gives the median of their medians and the range")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    torch.manual_seed(0)
    gpt = gpt_model.GPT(vocab_size=VOCAB, block_size=SEQ, d_model=D_MODEL,
                        n_head=HEADS, n_layer=LAYERS).eval()
    rng = np.random.default_rng(0)
    samples = BATCH * 4
    tokens = rng.integers(0, VOCAB, (samples, SEQ), dtype=np.int64)
    targets = rng.integers(0, VOCAB, (samples, SEQ), dtype=np.int64)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        onnx_path = os.path.join(work, "gpt.onnx")
        torch.onnx.export(gpt, (torch.from_numpy(tokens[:BATCH]),), onnx_path,
                          opset_version=17, input_names=["tokens"],
                          output_names=["logits"])
        np.save(os.path.join(work, "tokens.npy"), tokens)
        np.save(os.path.join(work, "targets.npy"), targets)
        configs = [("1 rank", []),
                   ("2 ranks, buckets (25 MiB)", ["--mesh=2"]),
                   ("2 ranks, one collective per tensor",
                    ["--mesh=2", "--bucket-mb=0"])]
        compiled = []
        for index, (name, extra) in enumerate(configs):
            plan = os.path.join(work, f"p{index}")
            compiled.append((plan,) + compile_plan(args.bin, onnx_path, plan,
                                                   extra))
        # Runs of the configurations alternate, so that a slow spell of a
        # shared machine does not fall on one of them only.
        times = [[] for _ in configs]
        losses = [None] * len(configs)
        for _ in range(args.repeats):
            for index, (plan, _, _, _) in enumerate(compiled):
                ms, losses[index] = run_plan(args.bin, plan, work, args.steps)
                times[index].append(ms)
        for index, (name, _) in enumerate(configs):
            _, seconds, kernels, collectives = compiled[index]
            rows.append((name, times[index], collectives, kernels, seconds,
                         losses[index]))

    base = statistics.median(rows[0][1])
    lines = [
        f"GPT decoder training step (d={D_MODEL}, {LAYERS} layers, "
        f"{HEADS} heads, seq {SEQ}, vocab {VOCAB}, global batch {BATCH}, "
        f"AdamW), one thread per rank; ms/step is the median over "
        f"{args.repeats} interleaved runs of each run's median of "
        f"{args.steps} steps, with the runs' range "
        "(OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset; "
        + ("ranks under SCHED_FIFO, so that other processes of the machine "
           "do not preempt them" if realtime_priority_available() else
           "normal scheduling: SCHED_FIFO was not permitted") + "):",
        "",
        "| configuration | ms/step | scaling efficiency T1/(2 T2) | "
        "collectives per step and rank | kernels per rank | compile s | "
        "last loss |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, runs, collectives, kernels, seconds, loss in rows:
        ms = statistics.median(runs)
        eff = "" if name == "1 rank" else f"{base / (2 * ms) * 100:.0f}%"
        lines.append(f"| {name} | {ms:.1f} ({min(runs):.1f}-{max(runs):.1f}) "
                     f"| {eff} | {collectives} | "
                     f"{kernels:.0f} | {seconds:.1f} | {loss:.6f} |")
    table = "\n".join(lines)
    print(table)
    if args.no_write:
        return
    write_block(MARKER_BEGIN, MARKER_END, table,
                "## Data-parallel training scaling\n\n"
                "`bench/training_scaling.py`")


if __name__ == "__main__":
    main()
