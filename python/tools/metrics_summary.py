#!/usr/bin/env python3
"""Summarizes an `oneflow-run --metrics FILE.jsonl` file (one {"step", "loss", "samples_per_s"} per step).

    /usr/bin/python3 python/tools/metrics_summary.py METRICS.jsonl [--every K] [--epoch-size N --batch B]

Prints the first step's loss, then the mean loss of every K steps (default: about 10 lines; with
--epoch-size and --batch, K is one epoch and lines are labelled with the epoch), and the median
throughput after the first 10% of the steps.  Exits 1 if the file is empty or a loss is not finite.
"""

import argparse
import json
import math
import statistics
import sys


def read(path):
    recs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    recs.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise SystemExit(f"metrics_summary.py: {path}:{n}: {e}")
    return recs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("metrics")
    p.add_argument("--every", type=int)
    p.add_argument("--epoch-size", type=int, help="training samples per epoch")
    p.add_argument("--batch", type=int, help="samples per step")
    p.add_argument("--lines", type=int, default=10, help="about this many lines when --every is not given")
    args = p.parse_args(argv)
    recs = read(args.metrics)
    if not recs:
        print(f"metrics_summary.py: {args.metrics} has no records", file=sys.stderr)
        return 1
    losses = [float(r["loss"]) for r in recs]
    steps_per_epoch = None
    if args.epoch_size and args.batch:
        steps_per_epoch = args.epoch_size / args.batch
    every = args.every or (max(1, round(steps_per_epoch)) if steps_per_epoch else 0) \
        or max(1, len(losses) // args.lines)
    if steps_per_epoch and not args.every:
        every *= max(1, math.ceil(len(losses) / every / args.lines))  # at most ~--lines lines

    def label(step):
        s = f"step {step:5d}"
        if steps_per_epoch:
            s += f" (epoch {step / steps_per_epoch:5.1f})"
        return s

    print(f"  {label(1)}: loss {losses[0]:.4f}")
    prev = 0
    while prev < len(losses):
        end = min(prev + every, len(losses))
        window = losses[prev:end]
        print(f"  {label(end)}: mean loss of the last {len(window)} steps {statistics.fmean(window):.4f}")
        prev = end
    sps = [float(r["samples_per_s"]) for r in recs if r.get("samples_per_s")]
    if sps:
        tail = sps[len(sps) // 10:] or sps
        print(f"  {len(losses)} steps, median {statistics.median(tail):.0f} samples/s "
              f"(after the first {len(sps) - len(tail)} steps)")
    if not all(math.isfinite(v) for v in losses):
        print("metrics_summary.py: a loss is NaN or Inf", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
