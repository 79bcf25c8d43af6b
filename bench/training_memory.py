#!/usr/bin/env python3
"""Memory modes of a training step: activation recomputation (--recompute)
and ZeRO stages (--zero), with the memory and step time of each.

A GPT from python/models/gpt_config.py (8 layers, d=32, 4 heads, seq 16,
vocab 128, global batch 64: the dimensions of bench/training_scaling.py),
AdamW, trained on 1 rank, 2 data-parallel ranks, a 2-stage 1F1B pipeline
(4 micro-batches), and 4 ranks (2 stages x 2 data-parallel ranks; 2x2
data,tensor), with --recompute=none, selective and full. For each: the
regst memory the runtime plans for its largest rank (oneflow-run's memory
line), the median step time, and the last loss (equal across modes). Then
--zero=0, 1 and 3 on 2 and 4 data-parallel ranks and on 2x2 data,tensor:
the persistent bytes per rank (parameters and optimizer state), the regst
bytes of the largest rank, the step time and the last loss.

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \\
      /usr/bin/python3 bench/training_memory.py --bin build/bin
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
ZERO_BEGIN = "<!-- zero-memory: begin -->"
ZERO_END = "<!-- zero-memory: end -->"
ZERO_LAYOUTS = [
    ("2 ranks, data", ["--mesh=2"], 2),
    ("4 ranks, data", ["--mesh=4"], 4),
    ("4 ranks: 2x2 data,tensor", ["--mesh=2x2", "--sbp-strategy=data,tensor"],
     4),
]
ZERO_STAGES = [0, 1, 3]


def peak_regst_bytes(log):
    per_rank = re.search(r"memory per rank \(regsts\): (.*)", log)
    if per_rank:
        return max(int(entry.split(":")[1])
                   for entry in per_rank.group(1).split())
    return int(re.search(r"memory: (\d+) bytes of regsts", log).group(1))


def persistent_bytes(log):
    return int(re.search(r"(\d+) bytes persistent", log).group(1))


def train(args, work, model, flags, env):
    """Compiles and runs one configuration: (stderr of oneflow-run,
    ms/step, last loss)."""
    plan = os.path.join(work, "plan")
    subprocess.run(
        [os.path.join(args.bin, "oneflow-opt"), model, "--train",
         "--label=labels", "--optimizer=adamw", "--lr=1e-3", "--emit=plan",
         "-o", plan] + flags, check=True, capture_output=True)
    metrics = plan + ".jsonl"
    if os.path.exists(metrics):
        os.remove(metrics)
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
    return run.stderr, step_ms, records[-1]["loss"]


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
                log, step_ms, loss = train(args, work, model,
                                           flags + [f"--recompute={mode}"],
                                           env)
                rows.append((layout, mode, peak_regst_bytes(log), step_ms,
                             loss))
        zero_rows = []
        for layout, flags, ranks in ZERO_LAYOUTS:
            for stage in ZERO_STAGES:
                log, step_ms, loss = train(args, work, model,
                                           flags + [f"--zero={stage}"], env)
                zero_rows.append((layout, stage,
                                  persistent_bytes(log) / ranks,
                                  peak_regst_bytes(log), step_ms, loss))
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
    zero_lines = [
        "The same GPT and step with each ZeRO stage; persistent memory is "
        "the parameters and optimizer state one rank keeps (the plan's "
        "persistent regsts over its ranks, divided by their number), regst "
        "memory as above:",
        "",
        "| layout | --zero | persistent KiB per rank | vs 0 | regst MiB "
        "(largest rank) | ms/step | last loss |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    zero_base = {}
    for layout, stage, persistent, peak, ms, loss in zero_rows:
        zero_base.setdefault(layout, persistent)
        zero_lines.append(
            f"| {layout} | {stage} | {persistent / 1024:.1f} | "
            f"{persistent / zero_base[layout]:.2f}x | {peak / 2**20:.2f} | "
            f"{ms:.1f} | {loss:.6f} |")
    zero_table = "\n".join(zero_lines)
    print()
    print(zero_table)
    if not args.no_write:
        write_block(MARKER_BEGIN, MARKER_END, table,
                    "## Training memory modes\n\n"
                    "`bench/training_memory.py`")
        write_block(ZERO_BEGIN, ZERO_END, zero_table, "")


if __name__ == "__main__":
    main()
