#!/usr/bin/env python3
"""Measures the convolution kernels' efficiency curves of a CPU cluster file
(`device.conv_efficiency`, docs/simulator.md) on this machine.

`oneflow-run --calibrate` times the products' library entry point; the
convolutions' kernels are the compiler's own (im2col and a product for
conv2d, a product and col2im for conv_transpose2d, generated unfolding
loops and a batched product for conv2d_grad_filter), whose speed differs
from the products' by up to 5x at the same FLOPs. So this script compiles
and runs real training plans: for a sweep of convolution layers (channels,
image sizes, 1x1 and 3x3 filters, strides 1 and 2, groups, batch sizes) a
model `conv -> relu -> conv -> flatten -> linear` exported by PyTorch is
compiled for --ranks data-parallel ranks (each with the listed batch;
`--train --optimizer=sgd`) and run with `--trace` (one thread per rank,
all computing at once as `oneflow-run --calibrate` measures, at real-time
priority where allowed so that other processes do not take the cores);
each convolution kernel's median firing over the ranks, less what
the cost model gives the rest of its kernel (the per-firing overhead and
the fused epilogue's vector or memory term), is its convolution's time.
Efficiency = conv FLOPs / (time * peak f32); the curve is the median per
half decade of the FLOPs of one image and group (the product the kernels
compute per image, so that splitting the batch over ranks keeps the
point), per kernel kind.

  /usr/bin/python3 bench/calibrate_convolutions.py [--bin build/bin]
        [--cluster clusters/cpu-local.json] [--write] [--steps 8]

The sweep's layers differ from those of the test models the simulator is
checked on (bench/simulator_accuracy.py), so that check stays out of
sample. --write stores the curves in the cluster file (atomically) and
appends how they were measured to its "sources".
"""

import argparse
import collections
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from simulator_accuracy import realtime_prefix  # noqa: E402
from validate_calibration import load_plan_module  # noqa: E402

KINDS = ["conv2d", "conv_transpose2d", "conv2d_grad_filter"]

# (batch, channels in, channels out, size, kernel, stride, groups)
SWEEP = [
    (4, 8, 8, 28, 3, 1, 1),
    (16, 8, 8, 28, 3, 1, 1),
    (8, 24, 24, 14, 3, 1, 1),
    (16, 24, 48, 14, 3, 2, 1),
    (8, 48, 48, 14, 3, 1, 1),
    (16, 64, 64, 8, 3, 1, 1),
    (4, 64, 64, 14, 3, 1, 1),
    (16, 48, 48, 28, 1, 1, 1),
    (8, 24, 96, 14, 1, 1, 1),
    (16, 96, 24, 8, 1, 1, 1),
    (4, 8, 24, 56, 3, 2, 1),
    (8, 64, 64, 8, 3, 1, 4),
    (2, 24, 24, 28, 3, 1, 1),
    (32, 8, 8, 14, 3, 1, 1),
    (16, 128, 128, 7, 3, 1, 1),
    (4, 3, 24, 56, 3, 1, 1),
    (4, 16, 16, 24, 3, 1, 1),
    (8, 16, 32, 40, 3, 2, 1),
    (4, 32, 32, 20, 3, 1, 1),
    (8, 16, 16, 40, 3, 1, 1),
]


def export(path, ranks, batch, cin, cout, size, kernel, stride, groups):
    script = f"""
import torch
from torch import nn
torch.manual_seed(0)
pad = {kernel} // 2
model = nn.Sequential(
    nn.Conv2d({cin}, {cin}, 3, padding=1, bias=False),
    nn.ReLU(),
    nn.Conv2d({cin}, {cout}, {kernel}, stride={stride}, padding=pad,
              groups={groups}),
    nn.Flatten(1))
with torch.no_grad():
    out = model(torch.zeros(1, {cin}, {size}, {size})).shape[1]
model = nn.Sequential(model, nn.Linear(out, 10))
torch.onnx.export(model.eval(),
                  torch.randn({ranks * batch}, {cin}, {size}, {size}),
                  {path!r}, input_names=['x'], output_names=['logits'],
                  opset_version=17)
"""
    subprocess.run([sys.executable, "-c", script], check=True,
                   capture_output=True)


class CostModel:
    """The non-convolution terms of docs/simulator.md's kernel cost."""

    def __init__(self, cluster):
        device = cluster["device"]
        self.peak = device["peak_flops"]["f32"]
        self.overhead = device["kernel_overhead"]
        self.vector = device["vector_flops"]
        self.bandwidth = device["memory_bandwidth"]

    def rest(self, cost):
        return self.overhead + max(cost.vector_flops / self.vector,
                                   cost.bytes / self.bandwidth)


def measure(args, work, plan_pb2, model, prefix):
    """(kind, flops per convolution, efficiency) of every convolution
    kernel of `model`'s training plan."""
    import numpy as np
    plan_dir = os.path.join(work, "plan")
    subprocess.run([os.path.join(args.bin, "oneflow-opt"), model, "--train",
                    "--label=labels", "--optimizer=sgd", "--emit=plan",
                    f"--mesh={args.ranks}", "--sbp-strategy=data",
                    "-o", plan_dir], check=True, capture_output=True)
    x_shape = None
    plan = plan_pb2.Plan()
    with open(os.path.join(plan_dir, "plan.pb"), "rb") as f:
        plan.ParseFromString(f.read())
    for io in plan.inputs:
        if io.name == "x":
            x_shape = list(io.desc.shape)
    rng = np.random.default_rng(0)
    np.save(os.path.join(work, "x.npy"),
            rng.standard_normal(x_shape).astype(np.float32))
    np.save(os.path.join(work, "y.npy"),
            rng.integers(0, 10, x_shape[0]).astype(np.int64))
    trace = os.path.join(work, "trace.json")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    subprocess.run(prefix + [
        os.path.join(args.bin, "oneflow-run"), plan_dir, "--steps",
        str(args.steps + 2), "--quiet", "--trace", trace, "--data",
        f"x={os.path.join(work, 'x.npy')}", "--data",
        f"labels={os.path.join(work, 'y.npy')}"], check=True,
        capture_output=True, env=env, timeout=600)
    with open(trace) as f:
        events = json.load(f)
    events = events["traceEvents"] if isinstance(events, dict) else events
    firings = collections.defaultdict(list)
    for event in events:
        if event.get("ph") == "X" and event["args"]["step"] >= 2:
            # By name: the ranks' tasks of one kernel share it.
            firings[event["name"]].append(event["dur"] * 1e-6)
    points = []
    seen = set()
    for task in plan.tasks:
        if task.name in seen:
            continue
        seen.add(task.name)
        cost = task.cost
        convs = [getattr(cost, kind) for kind in KINDS]
        kinds = [k for k, c in zip(KINDS, convs) if c.count > 0]
        if len(kinds) != 1 or task.name not in firings:
            continue
        conv = getattr(cost, kinds[0])
        if conv.flops != cost.gemm_flops:
            continue  # other products in the kernel too
        seconds = statistics.median(firings[task.name]) - args.model.rest(
            cost)
        if seconds <= 0:
            continue
        points.append((kinds[0], conv.flops / conv.images,
                       min(1.0, conv.flops / (seconds * args.model.peak))))
    return points


def curve(points):
    """The median efficiency per half decade of flops, as [flops, fraction]
    points at the bins' median flops."""
    bins = collections.defaultdict(list)
    for flops, fraction in points:
        bins[math.floor(2 * math.log10(flops))].append((flops, fraction))
    out = []
    for key in sorted(bins):
        values = bins[key]
        flops = statistics.median(f for f, _ in values)
        fraction = statistics.median(e for _, e in values)
        out.append([float(f"{flops:.3g}"), float(f"{fraction:.3g}")])
    return out


def cluster_text(cluster):
    """The file's layout as oneflow-run --calibrate writes it: a key per
    line, arrays and small objects inline."""
    def inline(value):
        if isinstance(value, float):
            return format(value, ".4g")
        if isinstance(value, list):
            return "[" + ", ".join(inline(v) for v in value) + "]"
        if isinstance(value, dict):
            return "{" + ", ".join(f"{json.dumps(k)}: {inline(v)}"
                                   for k, v in value.items()) + "}"
        return json.dumps(value)
    lines = ["{"]
    for index, (key, value) in enumerate(cluster.items()):
        last = index + 1 == len(cluster)
        if key == "device":
            lines.append('  "device": {')
            items = list(value.items())
            for i, (k, v) in enumerate(items):
                comma = "," if i + 1 < len(items) else ""
                lines.append(f"    {json.dumps(k)}: {inline(v)}{comma}")
            lines.append("  }" + ("" if last else ","))
        elif key == "links":
            lines.append('  "links": [')
            lines += [f"    {inline(link)}" + ("," if i + 1 < len(value)
                                               else "")
                      for i, link in enumerate(value)]
            lines.append("  ]" + ("" if last else ","))
        else:
            lines.append(f"  {json.dumps(key)}: {inline(value)}"
                         + ("" if last else ","))
    return "\n".join(lines + ["}"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--cluster",
                        default=os.path.join(ROOT, "clusters",
                                             "cpu-local.json"))
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--ranks", type=int, default=2,
                        help="data-parallel ranks measuring at once (as "
                        "the cluster file's other figures were: the "
                        "machine's cores share its caches and memory)")
    args = parser.parse_args()
    with open(args.cluster) as f:
        cluster = json.load(f)
    args.model = CostModel(cluster)
    prefix = realtime_prefix()
    load = os.getloadavg()[0]
    measured = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as work:
        plan_pb2 = load_plan_module(work)
        for layer in SWEEP:
            model = os.path.join(work, "model.onnx")
            export(model, args.ranks, *layer)
            for kind, flops, fraction in measure(args, work, plan_pb2, model,
                                                 prefix):
                measured[kind].append((flops, fraction))
                print(f"{layer}: {kind} {flops:.3g} flops: "
                      f"{fraction:.3f} of the peak", flush=True)
    curves = {kind: curve(measured[kind]) for kind in KINDS if measured[kind]}
    for kind, points in curves.items():
        print(f"{kind}: {points}")
    if not args.write:
        return
    cluster["device"]["conv_efficiency"] = curves
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    note = (f" conv_efficiency: bench/calibrate_convolutions.py on {when} "
            f"(load average {load:.1f}"
            f"{', the rank at real-time priority' if prefix else ''}): "
            f"{len(SWEEP)} PyTorch conv layers (batch 2-32, 3-128 channels, "
            "7x7 to 56x56, 1x1 and 3x3, strides 1 and 2, groups 1 and 4) "
            f"trained on {args.ranks} data-parallel ranks at once, each convolution kernel's median firing "
            "less the cost model's overhead and epilogue terms; the median "
            "per half decade of flops per image and group.")
    sources = cluster.get("sources", "")
    marker = " conv_efficiency: bench/calibrate_convolutions.py"
    if marker in sources:
        sources = sources[:sources.index(marker)]
    cluster["sources"] = sources + note
    text = cluster_text(cluster)
    tmp = args.cluster + ".tmp"
    with open(tmp, "w") as f:
        f.write(text + "\n")
    os.replace(tmp, args.cluster)
    print(f"wrote {args.cluster}")


if __name__ == "__main__":
    main()
