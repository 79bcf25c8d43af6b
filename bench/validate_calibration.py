#!/usr/bin/env python3
"""Checks a cluster description (`oneflow-run --calibrate`) against the task
times of real plans on the machine it describes.

  /usr/bin/python3 bench/validate_calibration.py [--bin build/bin]
        [--cluster clusters/cpu-local.json] [--model gpt256|gpt32]
        [--steps 8] [--warmup 2] [--no-fuse] [--ranks 1,2] [--keep DIR]

A GPT training step (AdamW) is compiled for 1 rank and for 2 data-parallel
ranks (--mesh=2) and run by oneflow-run with --trace, with as many threads
per rank as the cluster file was measured with (its name says "x N
threads"): gpt256 is bench/training_vs_pytorch.py's (d=256, 4 layers, 8
heads, seq 128, batch 8, vocab 512), gpt32 bench/training_scaling.py's
(d=32, 8 layers, 4 heads, seq 16, batch 64, vocab 128). Each task's time is
the median of its firings over the steps after the warm-up (over both
ranks); it is compared with docs/simulator.md's formulas on the file's
figures:

  - matrix products (kernels whose name holds "matmul"; with --no-fuse,
    ONEFLOW_NO_FUSE=1, the product alone): kernel_overhead + flops / (peak
    * efficiency(flops / products)), the sizes read from the plan's regsts;
  - collectives: the ring formula of their kind on the link level, with B
    the input regst's bytes (the output's for ALL_GATHER); the firing of the
    rank that arrived last (the smaller of the two ranks' times in a step),
    so that waiting for the other rank does not count;
  - the other kernels: only the memory term, kernel_overhead + bytes /
    memory_bandwidth with bytes = their regsts in and out (a lower bound:
    the plan does not carry their arithmetic yet);
  - the step: the sum over rank 0's tasks with the products and the
    collectives predicted and the rest measured, and with the other kernels
    at their memory term too (no arithmetic term: a lower bound of what
    the cost model gives them), against the measured step (each step's
    end to the next, median).

Prints one table per plan: each group's summed measured and predicted time
and the ratio, and the products and collectives one by one.
"""

import argparse
import bisect
import json
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import training_vs_pytorch as training  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "python", "models"))
import gpt as gpt_model  # noqa: E402

ELEMENT_BYTES = {1: 4, 2: 8, 3: 2, 4: 2, 5: 4, 6: 8, 7: 1}


def load_plan_module(work):
    """plan_pb2 generated from proto/oneflow/plan.proto by protoc."""
    subprocess.run(["protoc", f"--python_out={work}",
                    f"-I{os.path.join(ROOT, 'proto', 'oneflow')}", "plan.proto"],
                   check=True)
    sys.path.insert(0, work)
    import plan_pb2  # noqa: E402
    return plan_pb2


class Cluster:
    def __init__(self, path):
        with open(path) as f:
            self.json = json.load(f)
        device = self.json["device"]
        self.peak = device["peak_flops"]["f32"]
        self.curve = device["gemm_efficiency"]
        self.vector = device["vector_flops"]
        self.bandwidth = device["memory_bandwidth"]
        self.overhead = device["kernel_overhead"]
        link = self.json["links"][-1]
        self.alpha, self.beta = link["latency"], link["bandwidth"]

    def efficiency(self, flops):
        """Linear in log10(flops) between the points, clamped at the ends."""
        xs = [math.log10(f) for f, _ in self.curve]
        ys = [e for _, e in self.curve]
        x = math.log10(flops)
        if x <= xs[0]:
            return ys[0]
        if x >= xs[-1]:
            return ys[-1]
        i = bisect.bisect_right(xs, x)
        t = (x - xs[i - 1]) / (xs[i] - xs[i - 1])
        return ys[i - 1] + t * (ys[i] - ys[i - 1])

    def gemm_seconds(self, flops, count):
        return self.overhead + flops / (self.peak * self.efficiency(flops / count))

    def collective_seconds(self, kind, n, nbytes):
        if kind == "ALL_REDUCE":
            c1, c2 = 2 * (n - 1), 2 * (n - 1) / n
        elif kind in ("REDUCE_SCATTER", "ALL_GATHER", "ALL_TO_ALL"):
            c1, c2 = n - 1, (n - 1) / n
        else:
            c1, c2 = 1, 1
        return c1 * self.alpha + c2 * nbytes / self.beta


def regst_bytes(regst):
    return regst.size_bytes


def gemm_size(plan, task, regsts):
    """(flops, products) of a matmul kernel from its regsts: the output is
    [..., m, n]; the operand whose trailing dims hold m gives k. A batch
    whose right operand is shared (2-D) and whose left operands are not
    transposed is one tall product: lib/Kernels/Gemm.cpp stacks it."""
    outs = [regsts[r] for r in task.out_regsts]
    ins = [regsts[r] for r in task.in_regsts]
    best = None
    for out in outs:
        shape = list(out.desc.shape)
        if len(shape) < 2:
            continue
        m, n = shape[-2], shape[-1]
        batch = math.prod(shape[:-2])
        for a in ins:
            ashape = list(a.desc.shape)
            if len(ashape) < 2 or math.prod(ashape[:-2]) not in (batch, 1):
                continue
            options = ([(ashape[-1], False)] if ashape[-2] == m else []) + \
                      ([(ashape[-2], True)] if ashape[-1] == m else [])
            for k, transposed in options:
                # The other operand must be [k, n] or [n, k].
                for b in ins:
                    bshape = list(b.desc.shape)
                    if b is a or len(bshape) < 2:
                        continue
                    if sorted(bshape[-2:]) == sorted([k, n]):
                        flops = 2.0 * batch * m * n * k
                        stacked = len(bshape) == 2 and not transposed
                        count = 1 if stacked else batch
                        if best is None or flops > best[0]:
                            best = (flops, count)
    return best


def median_durations(trace, ranks):
    """{(rank, task id): [dur in s per step]} and the step lists."""
    per = {}
    for event in trace:
        key = (event["pid"], event["args"]["task"])
        per.setdefault(key, {})[event["args"]["step"]] = event["dur"] * 1e-6
    return per


def make_model(name, work):
    """Writes the model and its data into `work`; returns (onnx path,
    label input name, batch)."""
    onnx_path = os.path.join(work, f"{name}.onnx")
    if name == "gpt256":
        config, module, example = training.gpt_model()
        training.export_gpt(module, example, onnx_path)
        tokens, labels = training.make_data()
        batch = training.BATCH
    else:
        import torch
        vocab, seq, d, heads, layers, batch = 128, 16, 32, 4, 8, 64
        torch.manual_seed(0)
        module = gpt_model.GPT(vocab_size=vocab, block_size=seq, d_model=d,
                               n_head=heads, n_layer=layers).eval()
        rng = np.random.default_rng(0)
        tokens = rng.integers(0, vocab, (batch * 4, seq), dtype=np.int64)
        labels = rng.integers(0, vocab, (batch * 4, seq), dtype=np.int64)
        torch.onnx.export(module, (torch.from_numpy(tokens[:batch]),), onnx_path,
                          opset_version=17, input_names=["tokens"],
                          output_names=["logits"])
    np.save(os.path.join(work, "tokens.npy"), tokens)
    np.save(os.path.join(work, "labels.npy"), labels)
    return onnx_path, batch


def run_plan(bin_dir, plan, work, steps, batch, threads, trace_path):
    cmd = [os.path.join(bin_dir, "oneflow-run"), plan,
           "--data", f"tokens={os.path.join(work, 'tokens.npy')}",
           "--data", f"labels={os.path.join(work, 'labels.npy')}",
           "--batch", str(batch), "--steps", str(steps),
           "--quiet", "--trace", trace_path]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads))
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic() - start
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return cpu / wall


def analyse(name, plan_pb2, plan_dir, trace_path, cluster, warmup, lines):
    plan = plan_pb2.Plan()
    with open(os.path.join(plan_dir, "plan.pb"), "rb") as f:
        plan.ParseFromString(f.read())
    regsts = {r.id: r for r in plan.regsts}
    with open(trace_path) as f:
        trace = json.load(f)
    per = median_durations(trace, plan.num_ranks)
    steps = sorted({e["args"]["step"] for e in trace})
    timed = [s for s in steps if s >= steps[0] + warmup]
    # A step ends with rank 0's last firing of it; its time is the gap to
    # the previous step's end.
    ends = {}
    for event in trace:
        if event["pid"] == 0:
            step = event["args"]["step"]
            ends[step] = max(ends.get(step, 0), event["ts"] + event["dur"])
    step_seconds = statistics.median(
        (ends[s] - ends[s - 1]) * 1e-6 for s in timed if s - 1 in ends)

    # Map every (rank, task id) in the trace to a task name.
    event_names = {}
    for event in trace:
        event_names[(event["pid"], event["args"]["task"])] = event["name"]
    by_name = {}
    for (rank, tid), steps_of in per.items():
        by_name.setdefault(event_names[(rank, tid)], {}).setdefault(rank, []).append(steps_of)

    def measured(task, collective=False):
        ranks = by_name.get(task.name, {})
        values = []
        for step in timed:
            per_rank = []
            for rank, lists in ranks.items():
                for steps_of in lists:
                    if step in steps_of:
                        per_rank.append(steps_of[step])
            if not per_rank:
                continue
            if collective:
                values.append(min(per_rank))
            else:
                values.extend(per_rank)
        return statistics.median(values) if values else None

    groups = {"products": [0, 0], "collectives": [0, 0], "other kernels": [0, 0],
              "other tasks": [0, 0]}
    products, collectives = [], []
    step_prediction = 0  # other kernels at their measured time
    memory_prediction = 0  # other kernels at their memory term
    for task in plan.tasks:
        if task.rank != 0:
            continue
        seconds = measured(task, collective=(task.kind == plan_pb2.COLLECTIVE))
        if seconds is None:
            continue
        kind = plan_pb2.TaskKind.Name(task.kind)
        if kind == "KERNEL" and "matmul" in task.name:
            size = gemm_size(plan, task, regsts)
            if size:
                flops, count = size
                predicted = cluster.gemm_seconds(flops, count)
                products.append((task.name, flops, count, seconds, predicted))
                groups["products"][0] += seconds
                groups["products"][1] += predicted
                step_prediction += predicted
                memory_prediction += predicted
                continue
        if kind == "COLLECTIVE":
            c = task.collective
            ckind = plan_pb2.Collective.Kind.Name(c.kind)
            n = len(c.group) if c.group else 2
            reg = regsts[task.out_regsts[0]] if ckind in ("ALL_GATHER", "RECV") \
                else regsts[task.in_regsts[0]]
            predicted = cluster.collective_seconds(ckind, n, regst_bytes(reg))
            collectives.append((task.name, ckind, regst_bytes(reg), seconds, predicted))
            groups["collectives"][0] += seconds
            groups["collectives"][1] += predicted
            step_prediction += predicted
            memory_prediction += predicted
            continue
        if kind == "KERNEL":
            nbytes = sum(regst_bytes(regsts[r]) for r in list(task.in_regsts) +
                         list(task.out_regsts))
            predicted = cluster.overhead + nbytes / cluster.bandwidth
            groups["other kernels"][0] += seconds
            groups["other kernels"][1] += predicted
            step_prediction += seconds
            memory_prediction += predicted
            continue
        groups["other tasks"][0] += seconds
        groups["other tasks"][1] += seconds
        step_prediction += seconds
        memory_prediction += seconds

    lines.append(f"### {name}")
    lines.append("")
    lines.append("| tasks (rank 0) | measured ms | predicted ms | predicted / measured |")
    lines.append("| --- | --- | --- | --- |")
    for group, (m, p) in groups.items():
        if m:
            note = " (memory term only)" if group == "other kernels" else \
                " (measured)" if group == "other tasks" else ""
            lines.append(f"| {group}{note} | {m * 1e3:.2f} | {p * 1e3:.2f} | "
                         f"{p / m:.2f} |")
    lines.append("")
    if products:
        lines.append("| product | GFLOP | products | measured us | predicted us | ratio |")
        lines.append("| --- | --- | --- | --- | --- | --- |")
        for task_name, flops, count, m, p in sorted(products, key=lambda r: -r[1])[:12]:
            lines.append(f"| {task_name[:48]} | {flops / 1e9:.3f} | {count} | "
                         f"{m * 1e6:.0f} | {p * 1e6:.0f} | {p / m:.2f} |")
        lines.append("")
    if collectives:
        lines.append("| collective | kind | bytes | measured us | predicted us | ratio |")
        lines.append("| --- | --- | --- | --- | --- | --- |")
        for task_name, ckind, nbytes, m, p in collectives:
            lines.append(f"| {task_name[:48]} | {ckind} | {nbytes} | {m * 1e6:.0f} | "
                         f"{p * 1e6:.0f} | {p / m:.2f} |")
        lines.append("")
    return step_prediction, memory_prediction, step_seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--cluster", default=os.path.join(ROOT, "clusters", "cpu-local.json"))
    parser.add_argument("--model", choices=["gpt256", "gpt32"], default="gpt256")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--no-fuse", action="store_true")
    parser.add_argument("--ranks", default="1,2")
    parser.add_argument("--keep", help="keep plans and traces in this directory")
    args = parser.parse_args()

    cluster = Cluster(args.cluster)
    if args.no_fuse:
        os.environ["ONEFLOW_NO_FUSE"] = "1"
    work_dir = args.keep or tempfile.mkdtemp(prefix="validate-calibration-")
    os.makedirs(work_dir, exist_ok=True)
    plan_pb2 = load_plan_module(work_dir)
    onnx_path, batch = make_model(args.model, work_dir)
    threads = re.search(r"x (\d+) threads?$", cluster.json["name"])
    threads = int(threads.group(1)) if threads else 1

    lines = [f"Cluster file {os.path.relpath(args.cluster, ROOT)} ({cluster.json['name']}): f32 peak "
             f"{cluster.peak / 1e9:.1f} GFLOP/s, bandwidth {cluster.bandwidth / 1e9:.1f} GB/s, "
             f"kernel overhead {cluster.overhead * 1e9:.0f} ns, link {cluster.alpha * 1e6:.2f} us / "
             f"{cluster.beta / 1e9:.2f} GB/s; {'no fusion' if args.no_fuse else 'fused kernels'}, "
             f"median of steps {args.warmup}..{args.steps - 1}.", ""]
    for ranks in [int(r) for r in args.ranks.split(",")]:
        plan_dir = os.path.join(work_dir, f"plan{ranks}")
        cmd = [os.path.join(args.bin, "oneflow-opt"), onnx_path, "--train",
               "--loss=cross-entropy", "--label=labels", "--optimizer=adamw",
               "--lr=1e-3", "--emit=plan", "-o", plan_dir]
        if ranks > 1:
            cmd.append(f"--mesh={ranks}")
        subprocess.run(cmd, check=True, capture_output=True)
        trace_path = os.path.join(work_dir, f"trace{ranks}.json")
        share = run_plan(args.bin, plan_dir, work_dir, args.steps, batch,
                         threads, trace_path)
        predicted, memory_only, step = analyse(f"{args.model}, {ranks} rank{'s' if ranks > 1 else ''}, "
                            f"{threads} thread{'s' if threads > 1 else ''} each", plan_pb2,
                            plan_dir, trace_path, cluster, args.warmup, lines)
        lines.append(f"Step: measured {step * 1e3:.1f} ms (median, traced); the "
                     f"sum of rank 0's tasks, products and collectives predicted, "
                     f"the rest measured: {predicted * 1e3:.1f} ms (ratio "
                     f"{predicted / step:.2f}); with the other kernels at their "
                     f"memory term: {memory_only * 1e3:.1f} ms (ratio "
                     f"{memory_only / step:.2f}). The run used {share:.2f} cores "
                     f"(CPU time / wall time of the ranks).")
        lines.append("")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
