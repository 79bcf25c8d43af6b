#!/usr/bin/env python3
"""The automatic parallel search (issue 18) against hand strategies.

--gpt3: GPT-3 175B (gpt_config.py, batch 128) on 1,024 A100s: the wall time
of `oneflow-opt --auto-parallel --devices=1024` (search and compile), its
choice and the simulator's step time of the plan it compiled, next to the
simulator's step time of every Megatron-style hand layout (data x tensor x
stages, tensor in {1, 2, 4, 8}, one-sample micro-batches). No layout of this
model fits 80 GB per device without activation recomputation (which the
compiler does not have), so both sides run on a copy of the A100 file whose
memory capacity is raised; the comparison is of step times only.

--measure: the test models (the GPT of gpt_config.py, an MLP and the ResNet
of python/models/resnet.py) trained on
2 and 4 local ranks: the auto plan (`--auto-parallel --devices=N` on
clusters/cpu-local.json) against each hand strategy, runs interleaved,
medians of ms/step per run and the range over repeats.

  /usr/bin/python3 bench/auto_parallel.py --bin build/bin --gpt3 --measure
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from docs_block import write_block  # noqa: E402

MLP = """func.func @main(%x: tensor<256x784xf32> {onnx.name = "x"}) -> (tensor<256x10xf32> {onnx.name = "logits"}) {
  %w1 = oneflow.variable @fc1.weight {initializer = #oneflow.init<normal, mean = 0.0, std = 0.02, seed = 1>} : tensor<784x1024xf32>
  %b1 = oneflow.variable @fc1.bias {initializer = #oneflow.init<zeros>} : tensor<1024xf32>
  %w2 = oneflow.variable @fc2.weight {initializer = #oneflow.init<normal, mean = 0.0, std = 0.02, seed = 2>} : tensor<1024x1024xf32>
  %b2 = oneflow.variable @fc2.bias {initializer = #oneflow.init<zeros>} : tensor<1024xf32>
  %w3 = oneflow.variable @fc3.weight {initializer = #oneflow.init<normal, mean = 0.0, std = 0.02, seed = 3>} : tensor<1024x10xf32>
  %h1 = oneflow.matmul %x, %w1 : (tensor<256x784xf32>, tensor<784x1024xf32>) -> tensor<256x1024xf32>
  %a1 = oneflow.add %h1, %b1 : (tensor<256x1024xf32>, tensor<1024xf32>) -> tensor<256x1024xf32>
  %r1 = oneflow.relu %a1 : tensor<256x1024xf32>
  %h2 = oneflow.matmul %r1, %w2 : (tensor<256x1024xf32>, tensor<1024x1024xf32>) -> tensor<256x1024xf32>
  %a2 = oneflow.add %h2, %b2 : (tensor<256x1024xf32>, tensor<1024xf32>) -> tensor<256x1024xf32>
  %r2 = oneflow.relu %a2 : tensor<256x1024xf32>
  %y = oneflow.matmul %r2, %w3 : (tensor<256x1024xf32>, tensor<1024x10xf32>) -> tensor<256x10xf32>
  return %y : tensor<256x10xf32>
}
"""


def opt(bin_dir, args):
    start = time.monotonic()
    run = subprocess.run([os.path.join(bin_dir, "oneflow-opt")] + args,
                         capture_output=True, text=True)
    seconds = time.monotonic() - start
    if run.returncode != 0:
        raise RuntimeError(f"oneflow-opt {' '.join(args)} failed:\n"
                           f"{run.stderr[-3000:]}")
    return seconds, run.stderr


def gpt3(args, work):
    model = os.path.join(work, "gpt3.mlir")
    subprocess.run(
        [sys.executable, os.path.join(ROOT, "python", "models",
                                      "gpt_config.py"),
         "--layers", "96", "--hidden", "12288", "--heads", "96", "--seq",
         "2048", "--vocab", "51200", "--batch", "128", "-o", model],
        check=True)
    cluster = json.load(open(os.path.join(ROOT, "clusters",
                                          "a100-80gb-sxm.json")))
    cluster["device"]["memory_capacity"] = 8.5899345920e14
    cluster["name"] += " (memory x10000)"
    relaxed = os.path.join(work, "a100-relaxed.json")
    json.dump(cluster, open(relaxed, "w"))
    common = ["--train", "--label=labels", "--optimizer=adamw",
              "--emit=plan", f"--simulate={relaxed}"]

    rows = []
    sim = os.path.join(work, "auto.json")
    seconds, err = opt(args.bin, [model] + common + [
        "--auto-parallel", "--devices=1024", "-o",
        os.path.join(work, "auto"), f"--simulate-json={sim}"])
    chosen = re.search(r"auto-parallel: chosen: (.*)", err).group(1)
    predicted = float(re.search(r"auto-parallel: predicted step ([0-9.e+-]+)",
                                err).group(1))
    search = float(re.search(r"SBP solves of the forward graph \(\d+ ops\) "
                             r"in ([0-9.]+) s", err).group(1))
    # With the simulator's check of the candidates: its choice, and the
    # whole search's time (the step model's included).
    check = re.search(r"auto-parallel: simulator's check: .* in ([0-9.]+) s; "
                      r"chosen: (.*), simulated step", err)
    if check:
        search = float(check.group(1))
        chosen = check.group(2)
    step = json.load(open(sim))["step_seconds"]
    print(err, flush=True)
    auto_row = (f"auto: {chosen}", seconds, search, predicted, step)

    grid = []
    for tensor in (8, 4, 2, 1):
        for stages in (1, 2, 4, 8, 16):
            data = 1024 // (tensor * stages)
            if data > 128 or 128 % data:
                continue
            micro = 128 // data
            if tensor == 8 or (tensor == 4 and stages <= 8) or \
                    (tensor <= 2 and stages in (8, 16)):
                grid.append((data, tensor, stages, micro))
    for data, tensor, stages, micro in grid:
        if args.quick and (tensor, stages) not in ((8, 1), (8, 8)):
            continue
        if args.hand and f"{data}x{tensor}x{stages}" not in \
                args.hand.split(","):
            continue
        sim = os.path.join(work, f"hand-{data}-{tensor}-{stages}.json")
        mesh = f"{data}x{tensor}" if tensor > 1 else f"{data}"
        strategy = "data,tensor" if tensor > 1 else "data"
        try:
            seconds, err = opt(args.bin, [model] + common + [
                f"--mesh={mesh}", f"--sbp-strategy={strategy}",
                f"--stages={stages}", f"--microbatches={micro}", "-o",
                os.path.join(work, "hand"), f"--simulate-json={sim}"])
        except RuntimeError as error:
            print(error, flush=True)
            continue
        step = json.load(open(sim))["step_seconds"]
        rows.append((f"data {data} x tensor {tensor} x stages {stages}, "
                     f"{micro} micro-batch(es), 1f1b", seconds, None, None,
                     step))
        print(rows[-1], flush=True)
    best = min(rows, key=lambda r: r[4]) if rows else None
    lines = [
        "GPT-3 175B (batch 128, AdamW, CPU plans) on 1,024 A100s "
        f"(`clusters/a100-80gb-sxm.json`, memory capacity raised), "
        f"{time.strftime('%Y-%m-%d')}:",
        "",
        "| layout | compile (s) | search (s) | step model's prediction (s) "
        "| simulated step (s) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, seconds, search, predicted, step in [auto_row] + rows:
        lines.append(
            f"| {name} | {seconds:.1f} | "
            f"{'' if search is None else f'{search:.2f}'} | "
            f"{'' if predicted is None else f'{predicted:.2f}'} | "
            f"{step:.2f} |")
    if best:
        lines += ["", f"Best hand layout: {best[0]} ({best[4]:.2f} s); "
                  f"auto / best hand = {auto_row[4] / best[4]:.3f}."]
    return "\n".join(lines)


def write_test_models(work):
    """The GPT of gpt_config.py (4 layers, d=128, seq 64, batch 16) and the
    MLP, written into `work`: their paths."""
    gpt = os.path.join(work, "gpt.mlir")
    subprocess.run(
        [sys.executable, os.path.join(ROOT, "python", "models",
                                      "gpt_config.py"),
         "--layers", "4", "--hidden", "128", "--heads", "4", "--seq", "64",
         "--vocab", "512", "--batch", "16", "-o", gpt], check=True)
    mlp = os.path.join(work, "mlp.mlir")
    with open(mlp, "w") as f:
        f.write(MLP)
    return gpt, mlp


def make_models(work):
    """(name, model file, batch, feeds) of the GPT, MLP and ResNet test
    models and their data, written into `work`."""
    gpt, mlp = write_test_models(work)
    resnet = os.path.join(work, "resnet.onnx")
    subprocess.run([sys.executable, "-c", f"""
import sys, torch
sys.path.insert(0, {os.path.join(ROOT, 'python', 'models')!r})
import resnet
model = resnet.build().eval()
torch.onnx.export(model, torch.randn(32, 3, 32, 32), {resnet!r},
                  input_names=['x'], output_names=['logits'],
                  opset_version=17)
"""], check=True, capture_output=True)
    rng = np.random.default_rng(0)
    data = {
        "tokens": rng.integers(0, 512, (64, 64)).astype(np.int64),
        "tok_labels": rng.integers(0, 512, (64, 64)).astype(np.int64),
        "x": rng.standard_normal((1024, 784)).astype(np.float32),
        "y": rng.integers(0, 10, 1024).astype(np.int64),
        "img": rng.standard_normal((128, 3, 32, 32)).astype(np.float32),
        "img_labels": rng.integers(0, 10, 128).astype(np.int64),
    }
    for name, array in data.items():
        np.save(os.path.join(work, name + ".npy"), array)
    path = lambda name: os.path.join(work, name + ".npy")  # noqa: E731
    return [
        ("GPT (4 layers, d=128, seq 64, batch 16)", gpt, 16,
         [("tokens", path("tokens")), ("labels", path("tok_labels"))]),
        ("MLP (784-1024-1024-10, batch 256)", mlp, 256,
         [("x", path("x")), ("labels", path("y"))]),
        ("ResNet (test model, batch 32, 32x32)", resnet, 32,
         [("x", path("img")), ("labels", path("img_labels"))]),
    ]


def run_plan(bin_dir, plan, feeds, steps, batch, prefix=()):
    """The median ms/step of `steps` steps after 3 warm-up ones, one thread
    per rank; `prefix` runs oneflow-run under another command (chrt)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    metrics = plan + ".jsonl"
    cmd = list(prefix) + [os.path.join(bin_dir, "oneflow-run"), plan,
                          "--steps", str(steps + 3), "--quiet", "--metrics",
                          metrics]
    for name, path in feeds:
        cmd += ["--data", f"{name}={path}"]
    subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    rows = [json.loads(line) for line in open(metrics)]
    # samples/s of the steps after the warm-up, as ms per step.
    return rows, statistics.median(1000.0 * batch / r["samples_per_s"]
                                   for r in rows[3:])


def same_plan(a, b):
    """Whether two plan directories hold the same plan.pb."""
    with open(os.path.join(a, "plan.pb"), "rb") as x, \
            open(os.path.join(b, "plan.pb"), "rb") as y:
        return x.read() == y.read()


def measure(args, work):
    models = {name: (model, batch, feeds)
              for name, model, batch, feeds in make_models(work)}
    lines = [
        f"Measured on this machine ({time.strftime('%Y-%m-%d')}), AdamW "
        "training steps, one thread per rank; ms/step: the median of "
        f"{args.steps} steps per run, the median and range over "
        f"{args.repeats} interleaved runs, and the best run (the least "
        "disturbed by the other processes of this shared 2-core machine; "
        "4 ranks oversubscribe its cores):",
        "",
        "| model | ranks | plan | ms/step: median (range) | best run "
        "| auto / best hand: medians, best runs |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    base = ["--train", "--label=labels", "--optimizer=adamw", "--emit=plan"]
    for name, (model, batch, feeds) in models.items():
        for ranks in (2, 4):
            plans = {}
            _, err = opt(args.bin, [model] + base + [
                "--auto-parallel", f"--devices={ranks}", "-o",
                os.path.join(work, "auto")])
            chosen = re.search(r"auto-parallel: compiling (.*)", err).group(1)
            plans[f"auto ({chosen})"] = os.path.join(work, "auto")
            hands = [("data", f"--mesh={ranks}", "--sbp-strategy=data"),
                     ("tensor", f"--mesh={ranks}", "--sbp-strategy=tensor")]
            if ranks == 4:
                hands.append(("data,tensor 2x2", "--mesh=2x2",
                              "--sbp-strategy=data,tensor"))
            for label, mesh, strategy in hands:
                plan = os.path.join(work, label.replace(" ", "_").replace(
                    ",", "_"))
                try:
                    opt(args.bin, [model] + base + [mesh, strategy, "-o",
                                                    plan])
                except RuntimeError as error:
                    print(error, flush=True)
                    continue
                plans[label] = plan
            # The search may choose exactly a hand plan: then its ratio
            # only measures how far runs of one plan spread.
            auto_label = next(iter(plans))
            same = [label for label in plans if label != auto_label and
                    same_plan(plans[auto_label], plans[label])]
            times = {label: [] for label in plans}
            for _ in range(args.repeats):
                for label, plan in plans.items():
                    _, ms = run_plan(args.bin, plan, feeds, args.steps, batch)
                    times[label].append(ms)
            hands = [v for k, v in times.items() if not k.startswith("auto")]
            best_hand = min(statistics.median(v) for v in hands)
            best_hand_run = min(min(v) for v in hands)
            for label, values in times.items():
                med = statistics.median(values)
                ratio = (f"{med / best_hand:.3f}, "
                         f"{min(values) / best_hand_run:.3f}"
                         if label.startswith("auto") else "")
                if label.startswith("auto") and same:
                    ratio += f" (the same plan as `{same[0]}`)"
                lines.append(f"| {name} | {ranks} | {label} | {med:.2f} "
                             f"({min(values):.2f}-{max(values):.2f}) | "
                             f"{min(values):.2f} | {ratio} |")
                print(lines[-1], flush=True)
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--gpt3", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="with --gpt3: two hand layouts only")
    parser.add_argument("--hand", default="",
                        help="with --gpt3: only these hand layouts, "
                             "DATAxTENSORxSTAGES comma-separated")
    parser.add_argument("--measure", action="store_true")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-docs", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        if args.gpt3:
            table = gpt3(args, work)
            print(table)
            if not args.no_docs:
                write_block("<!-- auto-parallel-gpt3: begin -->",
                            "<!-- auto-parallel-gpt3: end -->", table,
                            "## Automatic parallel plans: GPT-3 175B")
        if args.measure:
            table = measure(args, work)
            print(table)
            if not args.no_docs:
                write_block("<!-- auto-parallel-measured: begin -->",
                            "<!-- auto-parallel-measured: end -->", table,
                            "## Automatic parallel plans: measured")


if __name__ == "__main__":
    main()
