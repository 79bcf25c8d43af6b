#!/usr/bin/env python3
"""Compile times of issue 17 ("Fast compiles"): the GPT decoder of
bench/make_gpt.py (d=32, 4 heads, seq 16, vocab 128, batch 64) with 8 and
128 layers, its AdamW training step compiled into a plan on one rank, and
the 8-layer one on 2 data-parallel ranks with and without gradient buckets.
Runs

  oneflow-opt gpt<L>.onnx --train --loss=cross-entropy --optimizer=adamw
      [--mesh=2 [--bucket-mb=0]] --emit=plan -o DIR

for each, parses the summary (`kernels:`, `kernel code:`) and the `time:`
line of phases, prints a table and writes it to docs/benchmarks.md. Not a
test: the times depend on the machine (and on what else runs on it).

  /usr/bin/python3 bench/compile_times.py --bin build/bin [--threads N]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from docs_block import write_block  # noqa: E402
from make_gpt import make_gpt  # noqa: E402

MARKER_BEGIN = "<!-- compile-times: begin -->"
MARKER_END = "<!-- compile-times: end -->"
PHASES = ["import", "graph passes", "fusion and outlining", "plan",
          "kernel lowering", "LLVM code", "writing"]


def parse(stderr):
    """The summary's kernels, distinct kernels, objects and threads, and the
    seconds of each phase of the `time:` line."""
    kernels = re.search(r"^kernels: (\d+) over (\d+) rank\(s\) (?:from (\d+) "
                        r"ops)?", stderr, re.M)
    code = re.search(r"^kernel code: (\d+) distinct kernels in (\d+) "
                     r"object\(s\) on (\d+) thread\(s\)", stderr, re.M)
    line = re.search(r"^time: (.*); total ([0-9.]+) s$", stderr, re.M)
    if not (kernels and code and line):
        raise RuntimeError("no summary in oneflow-opt's output:\n" + stderr)
    phases = {}
    for item in line.group(1).split(", "):
        name, seconds, _ = item.rsplit(" ", 2)
        phases[name] = float(seconds)
    return {"kernels": int(kernels.group(1)), "ranks": int(kernels.group(2)),
            "ops": int(kernels.group(3)) if kernels.group(3) else None,
            "distinct": int(code.group(1)), "objects": int(code.group(2)),
            "threads": int(code.group(3)), "phases": phases,
            "total": float(line.group(2))}


def compile_plan(bin_dir, model, plan, extra, threads):
    command = [os.path.join(bin_dir, "oneflow-opt"), model, "--train",
               "--loss=cross-entropy", "--optimizer=adamw", "--emit=plan",
               "-o", plan] + extra
    if threads:
        command.append(f"--compile-threads={threads}")
    start = time.monotonic()
    run = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - start
    if run.returncode != 0:
        raise RuntimeError(" ".join(command) + " failed:\n" + run.stderr)
    result = parse(run.stderr)
    result["wall"] = wall
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--threads", type=int, default=0,
                        help="--compile-threads (0: oneflow-opt's default)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="compile each configuration this many times "
                        "and keep the fastest")
    parser.add_argument("--layers", default="8,128",
                        help="one-rank models, by layer count")
    parser.add_argument("--no-ranks", action="store_true",
                        help="skip the 2-rank 8-layer configurations")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    configs = [(int(layers), f"{layers} layers, 1 rank", [])
               for layers in args.layers.split(",")]
    if not args.no_ranks:
        configs += [(8, "8 layers, 2 ranks (--mesh=2)", ["--mesh=2"]),
                    (8, "8 layers, 2 ranks, --bucket-mb=0",
                     ["--mesh=2", "--bucket-mb=0"])]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        models = {}
        for layers, _, _ in configs:
            if layers not in models:
                models[layers] = os.path.join(work, f"gpt{layers}.onnx")
                make_gpt(layers, models[layers])
        for index, (layers, name, extra) in enumerate(configs):
            runs = [compile_plan(args.bin, models[layers],
                                 os.path.join(work, f"p{index}-{attempt}"),
                                 extra, args.threads)
                    for attempt in range(args.repeat)]
            best = min(runs, key=lambda run: run["total"])
            rows.append((name, best))
            print(f"{name}: {best['total']:.2f} s", file=sys.stderr)

    load = os.getloadavg()[0]
    lines = [
        f"AdamW training step of the GPT decoder of bench/make_gpt.py "
        f"(d=32, 4 heads, seq 16, vocab 128, batch 64) compiled into a plan; "
        f"{os.cpu_count()} cores, load average {load:.1f} when the "
        f"benchmark ended; seconds per phase of oneflow-opt's `time:` line"
        + (f", fastest of {args.repeat}" if args.repeat > 1 else "") + ":",
        "",
        "| configuration | ops | kernels (distinct) | objects / threads | "
        + " | ".join(PHASES) + " | total s |",
        "| --- | --- | --- | --- | " + " | ".join("---" for _ in PHASES)
        + " | --- |",
    ]
    for name, run in rows:
        phases = " | ".join(f"{run['phases'].get(p, 0.0):.2f}" for p in PHASES)
        ops = run["ops"] if run["ops"] is not None else ""
        lines.append(f"| {name} | {ops} | {run['kernels']} "
                     f"({run['distinct']}) | {run['objects']} / "
                     f"{run['threads']} | {phases} | {run['total']:.2f} |")
    table = "\n".join(lines)
    print(table)
    if args.no_write:
        return
    write_block(MARKER_BEGIN, MARKER_END, table,
                "## Compile times (issue 17)\n\n`bench/compile_times.py`")


if __name__ == "__main__":
    main()
