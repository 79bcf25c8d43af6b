#!/usr/bin/env python3
"""Activation recomputation: memory and step time of each --recompute mode.

A GPT from python/models/gpt_config.py (8 layers, d=32, 4 heads, seq 16,
vocab 128, global batch 64: the dimensions of bench/training_scaling.py),
AdamW, trained on 1 rank, 2 data-parallel ranks, a 2-stage 1F1B pipeline
(4 micro-batches), and 4 ranks (2 stages x 2 data-parallel ranks; 2x2
data,tensor), with --recompute=none, selective and full. For each: the
regst memory the runtime plans for its largest rank (oneflow-run's memory
line), the median step time, and the last loss (equal across modes).

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
      /usr/bin/python3 bench/recompute_memory.py --bin build/bin
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from docs_block import write_block  # noqa: E402
from realtime import realtime_priority  # noqa: E402

MARKER_BEGIN = "<!-- recompute-memory: begin -->"
MARKER_END = "<!-- recompute-memory: end -->"
LAYERS, HIDDEN, HEADS, SEQ, VOCAB, BATCH = 8, 32, 4, 16, 128, 64
LAYOUTS = [
    ("1 rank", []),
    ("2 ranks, data", ["--mesh=2"]),
    ("2 stages, 1F1B, 4 micro-batches", ["--stages=2", "--microbatches=4",
                                         "--schedule=1f1b"]),
    ("4 ranks: 2 stages x 2 data", ["--stages=2", "--microbatches=4",
                                    "--schedule=1f1b", "--mesh=2"]),
    ("4 ranks: 2x2 data,tensor", ["--mesh=2x2",
                                  "--sbp-strategy=data,tensor"]),
]
MODES = ["none", "selective", "full"]


def peak_regst_bytes(log):
    per_rank = re.search(r"memory per rank \(regsts\): (.*)", log)
    if per_rank:
        return max(int(entry.split(":")[1])
                   for entry in per_rank.group(1).split())
    return int(re.search(r"memory: (\d+) bytes of regsts", log).group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        model = os.path.join(work, "gpt.mlir")
        subprocess.run([sys.executable,
                        os.path.join(ROOT, "python", "models", "gpt_config.py"),
                        "--layers", str(LAYERS), "--hidden", str(HIDDEN),
                        "--heads", str(HEADS), "--seq", str(SEQ), "--vocab",
                        str(VOCAB), "--batch", str(BATCH), "-o", model],
                       check=True)
        rng = np.random.default_rng(0)
        for name in ("tokens", "labels"):
            np.save(os.path.join(work, name + ".npy"),
                    rng.integers(0, VOCAB, (BATCH * 4, SEQ)))
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        for layout, flags in LAYOUTS:
            for mode in MODES:
                plan = os.path.join(work, f"plan-{len(rows)}")
                subprocess.run(
                    [os.path.join(args.bin, "oneflow-opt"), model, "--train",
                     "--label=labels", "--optimizer=adamw", "--lr=1e-3",
                     f"--recompute={mode}", "--emit=plan", "-o", plan] + flags,
                    check=True, capture_output=True)
                metrics = plan + ".jsonl"
                run = subprocess.run(
                    [os.path.join(args.bin, "oneflow-run"), plan, "--data",
                     f"tokens={os.path.join(work, 'tokens.npy')}", "--data",
                     f"labels={os.path.join(work, 'labels.npy')}", "--steps",
                     str(args.steps + 3), "--quiet", "--metrics", metrics],
                    check=True, capture_output=True, text=True, env=env,
                    preexec_fn=realtime_priority)
                records = [json.loads(line) for line in open(metrics)]
                step_ms = statistics.median(
                    BATCH / r["samples_per_s"] * 1e3 for r in records[3:])
                rows.append((layout, mode, peak_regst_bytes(run.stderr),
                             step_ms, records[-1]["loss"]))
    lines = [
        f"GPT from gpt_config.py ({LAYERS} layers, d={HIDDEN}, {HEADS} heads, "
        f"seq {SEQ}, vocab {VOCAB}, global batch {BATCH}, AdamW); regst "
        "memory of the largest rank as the runtime plans it (activations, "
        "gradients and temporaries; parameters and optimizer state are "
        "persistent and not included); ms/step the median of "
        f"{args.steps} steps, one thread per rank, ranks under SCHED_FIFO "
        "where permitted (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset); 4 "
        "ranks share this machine's 2 cores:",
        "",
        "| layout | --recompute | regst MiB (largest rank) | vs none | "
        "ms/step | last loss |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    base = {}
    for layout, mode, peak, ms, loss in rows:
        base.setdefault(layout, peak)
        lines.append(f"| {layout} | {mode} | {peak / 2**20:.2f} | "
                     f"{peak / base[layout]:.2f}x | {ms:.1f} | {loss:.6f} |")
    table = "\n".join(lines)
    print(table)
    if not args.no_write:
        write_block(MARKER_BEGIN, MARKER_END, table,
                    "## Activation recomputation\n\n"
                    "`bench/recompute_memory.py`")


if __name__ == "__main__":
    main()
