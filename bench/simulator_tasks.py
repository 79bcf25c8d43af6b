#!/usr/bin/env python3
"""Where the plan simulator and a measured run disagree, task by task
(issue 18's accuracy on this machine).

One of bench/simulator_accuracy.py's configurations is compiled with
--simulate-trace and run by oneflow-run --trace (one thread per rank);
every task's simulated duration is set against the median of its measured
firings after the warm-up steps. Tasks are grouped by kind (the kernel's
name without its numbers, or the collective's stream) and the groups'
sums over rank 0's tasks printed with their ratio, then the tasks whose
absolute error is largest. The last lines split the measured step into
rank 0's busy time (its tasks' medians summed) and the rest (waiting for
other ranks, the runtime's own work): the part no task's cost explains.

  /usr/bin/python3 bench/simulator_tasks.py --model gpt --ranks 2 \\
      --flags="--mesh=2 --sbp-strategy=data" [--steps 10] [--top 15]
"""

import argparse
import collections
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from auto_parallel import make_models  # noqa: E402
from simulator_accuracy import realtime_prefix  # noqa: E402

WARMUP = 3


def kind_of(name):
    """A task's group: its name without numbers and what follows them."""
    base = re.split(r"[\s(\[]", name.strip(), maxsplit=1)[0]
    base = re.sub(r"[._]?\d+$", "", base)
    return re.sub(r"\d+", "#", base) or name


def load_events(path):
    with open(path) as f:
        return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--cluster",
                        default=os.path.join(ROOT, "clusters",
                                             "cpu-local.json"))
    parser.add_argument("--model", choices=["gpt", "mlp", "resnet"],
                        default="gpt")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--flags", default="",
                        help="oneflow-opt flags, as on a command line")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--rank", type=int, default=0)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as work:
        models = {m[0].split()[0].lower(): m for m in make_models(work)}
        _, model, batch, feeds = models[args.model]
        plan = os.path.join(work, "plan")
        sim_trace = os.path.join(work, "sim.trace.json")
        sim_json = os.path.join(work, "sim.json")
        flags = shlex.split(args.flags)
        subprocess.run(
            [os.path.join(args.bin, "oneflow-opt"), model, "--train",
             "--label=labels", "--optimizer=adamw", "--emit=plan",
             f"--simulate={args.cluster}", f"--simulate-json={sim_json}",
             f"--simulate-trace={sim_trace}", "-o", plan] + flags,
            check=True)
        trace = os.path.join(work, "run.trace.json")
        metrics = os.path.join(work, "metrics.jsonl")
        cmd = realtime_prefix() + [
            os.path.join(args.bin, "oneflow-run"), plan, "--steps",
            str(args.steps + WARMUP), "--quiet", "--trace", trace,
            "--metrics", metrics]
        for name, path in feeds:
            cmd += ["--data", f"{name}={path}"]
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        subprocess.run(cmd, check=True, env=env)
        simulated = load_events(sim_trace)
        measured = load_events(trace)
        report = json.load(open(sim_json))
        rows = [json.loads(line) for line in open(metrics)]

    step_ms = statistics.median(1000.0 * batch / r["samples_per_s"]
                                for r in rows[WARMUP:])
    firings = collections.defaultdict(list)
    for event in measured:
        if event["args"]["step"] >= WARMUP:
            firings[event["args"]["task"]].append(event["dur"] / 1000.0)
    groups = collections.defaultdict(lambda: [0, 0.0, 0.0])
    tasks = []
    for event in simulated:
        if event["pid"] != args.rank:
            continue
        task = event["args"]["task"]
        sim_ms = event["dur"] / 1000.0
        if task not in firings:
            continue
        ms = statistics.median(firings[task])
        kind = kind_of(event["name"])
        if "comm" in event["tid"] or "collective" in event["name"].lower():
            kind = f"{kind} [{event['tid']}]"
        group = groups[kind]
        group[0] += 1
        group[1] += sim_ms
        group[2] += ms
        tasks.append((abs(sim_ms - ms), event["name"], sim_ms, ms))

    print(f"{args.model}, {args.ranks} rank(s), flags {flags or 'none'}; "
          f"rank {args.rank}'s tasks, ms per step (measured: median firing "
          f"over {args.steps} steps after {WARMUP} warm-up ones)")
    print()
    print("| kind | tasks | simulated ms | measured ms | simulated / "
          "measured |")
    print("| --- | --- | --- | --- | --- |")
    total_sim = total_ms = 0.0
    for kind, (count, sim_ms, ms) in sorted(groups.items(),
                                            key=lambda kv: -kv[1][2]):
        total_sim += sim_ms
        total_ms += ms
        print(f"| {kind} | {count} | {sim_ms:.3f} | {ms:.3f} | "
              f"{sim_ms / ms if ms else float('inf'):.2f} |")
    print(f"| all | {sum(g[0] for g in groups.values())} | {total_sim:.3f} "
          f"| {total_ms:.3f} | {total_sim / total_ms:.2f} |")
    print()
    print(f"Largest errors (top {args.top}):")
    print()
    print("| task | simulated ms | measured ms |")
    print("| --- | --- | --- |")
    for _, name, sim_ms, ms in sorted(tasks, reverse=True)[:args.top]:
        print(f"| {name} | {sim_ms:.3f} | {ms:.3f} |")
    print()
    sim_step = 1000 * report["step_seconds"]
    print(f"Step: simulated {sim_step:.2f} ms (compute "
          f"{1000 * report['compute_seconds']:.2f}, exposed communication "
          f"{1000 * report['exposed_communication_seconds']:.2f}, bubble "
          f"{1000 * report['bubble_seconds']:.2f}); measured {step_ms:.2f} "
          f"ms ({sim_step / step_ms:.2f}).")
    print(f"Rank {args.rank}'s tasks sum to {total_ms:.2f} ms measured "
          f"(streams overlap), {total_sim:.2f} ms simulated; the measured "
          f"step exceeds the measured sum by {step_ms - total_ms:.2f} ms.")


if __name__ == "__main__":
    main()
