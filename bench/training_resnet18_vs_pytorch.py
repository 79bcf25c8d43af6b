#!/usr/bin/env python3
"""Times one training step of torchvision's ResNet-18 (random weights, 1000 classes, train-mode
batch norm) in PyTorch eager and as a plan compiled by OneFlow-MLIR, with the same thread count,
and checks that both follow the same loss trajectory (issue 21: at most 0.8x PyTorch, one thread).

  /usr/bin/python3 bench/training_resnet18_vs_pytorch.py [--bin build/bin] [--threads 1]
        [--batch 8] [--size 64] [--steps 5] [--warmup 2] [--rounds 2] [--json FILE]

PyTorch: model.train(), per step zero_grad(set_to_none), forward, F.cross_entropy, backward,
SGD(lr 0.001, momentum 0.9).step().  OneFlow-MLIR: the module exported in eval() mode with
TrainingMode.PRESERVE (every initializer a parameter or buffer, no Conv+BN folding), compiled with

  oneflow-opt resnet18.onnx --train --loss=cross-entropy --label=labels --optimizer=sgd \\
      --lr=0.001 --momentum=0.9 --emit=plan -o DIR

(`--train` turns each BatchNormalization into batch statistics with running-statistics updates, as
PyTorch's train mode) and run as oneflow-run DIR --data x=x.npy --data labels=labels.npy --batch B.
Both sides start from the same weights and see the same batches in order (batch i is rows
[B i, B i + B) of 8 B random images, wrapping around), so the per-step losses must agree.
Runs alternate (PyTorch, ours, PyTorch, ...) so a drift of the machine's speed hits both.
"""

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torchvision
from torch.nn import functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "models"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import export_models  # noqa: E402
import inference_vs_pytorch  # noqa: E402
import training_vs_pytorch  # noqa: E402

LR, MOMENTUM, CLASSES = 0.001, 0.9, 1000


def make_model():
    torch.manual_seed(0)
    return torchvision.models.resnet18(num_classes=CLASSES)


def make_data(batch, size, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(8 * batch, 3, size, size).astype(np.float32)
    y = rng.randint(0, CLASSES, size=8 * batch).astype(np.int64)
    return x, y


def time_torch(module, x, y, batch, threads, warmup, steps):
    inference_vs_pytorch.set_torch_threads(threads)
    model = copy.deepcopy(module).train()
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    xs, ys = torch.from_numpy(x), torch.from_numpy(y)
    inference_vs_pytorch.settle()
    times, losses = [], []
    for step in range(warmup + steps):
        idx = torch.from_numpy(np.arange(step * batch, (step + 1) * batch) % len(x))
        start = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(xs[idx]), ys[idx])
        loss.backward()
        opt.step()
        elapsed = time.perf_counter() - start
        losses.append(loss.item())
        if step >= warmup:
            times.append(elapsed * 1e3)
    return times, losses


def time_oneflow(bin_dir, plan, work, batch, threads, warmup, steps):
    metrics = os.path.join(work, f"metrics-{threads}.jsonl")
    if os.path.exists(metrics):
        os.remove(metrics)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    cmd = [os.path.join(bin_dir, "oneflow-run"), plan,
           "--data", f"x={os.path.join(work, 'x.npy')}",
           "--data", f"labels={os.path.join(work, 'labels.npy')}",
           "--batch", str(batch), "--steps", str(warmup + steps), "--metrics", metrics, "--quiet"]
    inference_vs_pytorch.settle()
    run = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        sys.stderr.write(run.stdout + run.stderr)
        raise subprocess.CalledProcessError(run.returncode, cmd)
    rows = [json.loads(line) for line in open(metrics) if line.strip()]
    if len(rows) != warmup + steps:
        raise RuntimeError(f"{metrics}: {len(rows)} records for {warmup + steps} steps")
    ms = [batch / float(r["samples_per_s"]) * 1e3 for r in rows]
    return ms[warmup:], [float(r["loss"]) for r in rows]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--threads", default="1", help="comma-separated thread counts")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--size", type=int, default=64, help="image height and width")
    parser.add_argument("--steps", type=int, default=5, help="timed steps per run")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps before")
    parser.add_argument("--rounds", type=int, default=2, help="alternating runs per side")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    threads = sorted({int(t) for t in args.threads.split(",") if t})

    module = make_model()
    x, y = make_data(args.batch, args.size)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        onnx_path = os.path.join(work, "resnet18.onnx")
        data = export_models.export_onnx(
            copy.deepcopy(module).eval(), {"x": x[:args.batch]}, 17)
        with open(onnx_path, "wb") as f:
            f.write(data)
        np.save(os.path.join(work, "x.npy"), x)
        np.save(os.path.join(work, "labels.npy"), y)
        plan = os.path.join(work, "plan")
        start = time.perf_counter()
        subprocess.run([os.path.join(args.bin, "oneflow-opt"), onnx_path, "--train",
                        "--loss=cross-entropy", "--label=labels", "--optimizer=sgd",
                        f"--lr={LR:g}", f"--momentum={MOMENTUM:g}", "--emit=plan", "-o", plan],
                       check=True)
        compile_s = time.perf_counter() - start
        for t in threads:
            theirs, ours, their_losses, our_losses = [], [], None, None
            for _ in range(args.rounds):
                times, losses = time_torch(module, x, y, args.batch, t, args.warmup, args.steps)
                theirs += times
                their_losses = their_losses or losses
                times, losses = time_oneflow(args.bin, plan, work, args.batch, t, args.warmup,
                                             args.steps)
                ours += times
                our_losses = our_losses or losses
            row = {"threads": t, "pytorch_ms": statistics.median(theirs),
                   "pytorch_min_ms": min(theirs), "oneflow_ms": statistics.median(ours),
                   "oneflow_min_ms": min(ours), "compile_s": compile_s,
                   "pytorch_losses": their_losses, "oneflow_losses": our_losses,
                   "loss_rel_diff": training_vs_pytorch.rel_diff(our_losses, their_losses)}
            row["ratio"] = row["oneflow_ms"] / row["pytorch_ms"]
            rows.append(row)
            print(f"{t} thread(s): PyTorch {row['pytorch_ms']:.1f} ms/step (min "
                  f"{row['pytorch_min_ms']:.1f}), OneFlow-MLIR {row['oneflow_ms']:.1f} (min "
                  f"{row['oneflow_min_ms']:.1f}), ratio {row['ratio']:.2f}, losses max rel diff "
                  f"{row['loss_rel_diff']:.1e} ({their_losses[0]:.3f} -> {their_losses[-1]:.3f})",
                  flush=True)
    load = os.getloadavg()[0]
    print()
    print(f"torchvision ResNet-18 ({CLASSES} classes), batch {args.batch}, {args.size}x{args.size}, "
          f"SGD lr {LR} momentum {MOMENTUM}, median of {args.rounds} x {args.steps} steps per side "
          f"(alternating runs, {args.warmup} warm-up each); PyTorch {torch.__version__}, "
          f"{inference_vs_pytorch.cpu_name()} ({os.cpu_count()} cores), load average {load:.1f}")
    print()
    print("| threads | PyTorch ms (median / min) | OneFlow-MLIR ms (median / min) | ratio | "
          "compile s | loss rel diff |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['threads']} | {r['pytorch_ms']:.1f} / {r['pytorch_min_ms']:.1f} | "
              f"{r['oneflow_ms']:.1f} / {r['oneflow_min_ms']:.1f} | {r['ratio']:.2f} | "
              f"{r['compile_s']:.0f} | {r['loss_rel_diff']:.1e} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"batch": args.batch, "size": args.size, "rows": rows,
                       "load_average": load}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
