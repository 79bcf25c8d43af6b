#!/usr/bin/env python3
"""Times one training step (forward, cross-entropy, backward, optimizer update) of the GPT-style
decoder -- d=256, 4 layers, 8 heads, sequence 128, batch 8, vocab 512: the configuration of
bench/inference_vs_pytorch.py -- in PyTorch eager and as a plan compiled by OneFlow-MLIR, with the
same thread count, and checks that both follow the same loss trajectory.

  /usr/bin/python3 bench/training_vs_pytorch.py [--bin build/bin] [--threads 1,2]
        [--optimizer sgd,adamw] [--steps 10] [--warmup 3] [--rounds 3] [--json FILE] [--torch-only]

PyTorch: torch.set_num_threads(T) and OpenBLAS's thread count T; per step zero_grad(set_to_none), forward,
F.cross_entropy(logits.reshape(-1, 512), labels.reshape(-1)), backward, optimizer.step(); --steps
timed steps after --warmup untimed ones. Each row alternates --rounds runs of PyTorch and of
OneFlow-MLIR (PyTorch, ours, PyTorch, ours, ...; each run from the initial weights), so a drift of
the machine's speed during the row hits both sides; a side's time is the median of all its timed
steps.

OneFlow-MLIR: the model is exported as export_models.py does (eval() module, TrainingMode.PRESERVE,
initializers = parameters), compiled once per optimizer with

  oneflow-opt gpt.onnx --train --loss=cross-entropy --label=labels --optimizer=sgd --lr=0.1 \
      --emit=plan -o DIR                          (adamw: --optimizer=adamw --lr=1e-3)

and run as  OMP_NUM_THREADS=T OPENBLAS_NUM_THREADS=T oneflow-run DIR --data tokens=tokens.npy
--data labels=labels.npy --batch 8 --steps W+N --metrics m.jsonl;  the times of the steps after
the warm-up are batch / samples_per_s from the metrics file (the wall time printed per step on
stderr when the metrics have no samples_per_s).

Both sides start from the same weights and see the same batches in the same order (no --shuffle:
batch i is rows [8i, 8i+8) of the data, wrapping around), so the per-step losses must agree; the
table shows the largest relative difference.  The data is learnable (t[i+1] = (5 t[i] + 3) mod 512
from a random start, labels = tokens shifted by one), so the loss goes down.

If `oneflow-opt --help` does not list --train (or with --torch-only), only PyTorch is timed.
"""

import argparse
import copy
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
from torch.nn import functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "models"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import export_models  # noqa: E402
import inference_vs_pytorch  # noqa: E402

BATCH = 8
SEQ = 128
VOCAB = 512
N_SEQUENCES = 64  # 8 distinct batches; the runtime (and the PyTorch loop) wrap around
OPTIMIZERS = {
    "sgd": (torch.optim.SGD, 0.1),
    "adamw": (torch.optim.AdamW, 1e-3),
}


def gpt_model():
    """The GPT of bench/inference_vs_pytorch.py (same constructor arguments and seed)."""
    for name, config, module, input_name, example in inference_vs_pytorch.models():
        if name.startswith("GPT"):
            assert input_name == "tokens" and tuple(example.shape) == (BATCH, SEQ), example.shape
            return config, module, example
    raise AssertionError("bench/inference_vs_pytorch.py has no GPT model")


def make_data(seed=0):
    rng = np.random.RandomState(seed)
    seq = np.zeros((N_SEQUENCES, SEQ + 1), dtype=np.int64)
    seq[:, 0] = rng.randint(0, VOCAB, size=N_SEQUENCES)
    for i in range(1, SEQ + 1):
        seq[:, i] = (5 * seq[:, i - 1] + 3) % VOCAB
    return np.ascontiguousarray(seq[:, :SEQ]), np.ascontiguousarray(seq[:, 1:])


def batch_rows(step):
    """Rows of the data that step `step` (0-based) uses: the next BATCH rows in order, wrapping."""
    return np.arange(step * BATCH, (step + 1) * BATCH) % N_SEQUENCES


def time_torch(module, tokens, labels, opt_name, threads, warmup, steps):
    inference_vs_pytorch.set_torch_threads(threads)
    opt_cls, lr = OPTIMIZERS[opt_name]
    model = copy.deepcopy(module).train()
    opt = opt_cls(model.parameters(), lr=lr)
    tok, lab = torch.from_numpy(tokens), torch.from_numpy(labels)
    inference_vs_pytorch.settle()
    times, losses = [], []
    for step in range(warmup + steps):
        idx = torch.from_numpy(batch_rows(step))
        start = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        logits = model(tok[idx])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), lab[idx].reshape(-1))
        loss.backward()
        opt.step()
        elapsed = time.perf_counter() - start
        losses.append(loss.item())
        if step >= warmup:
            times.append(elapsed * 1e3)
    return times, losses


def supports_train(bin_dir):
    opt = os.path.join(bin_dir, "oneflow-opt")
    if not os.access(opt, os.X_OK):
        return False, f"{opt} not found"
    out = subprocess.run([opt, "--help"], capture_output=True, text=True)
    if re.search(r"^\s*--train\b", out.stdout + out.stderr, re.M):
        return True, ""
    return False, "oneflow-opt --help does not list --train"


def export_gpt(module, example, path):
    data = export_models.export_onnx(module.eval(), {"tokens": example.numpy()}, 17)
    with open(path, "wb") as f:
        f.write(data)


def compile_plan(bin_dir, onnx_path, opt_name, plan):
    lr = OPTIMIZERS[opt_name][1]
    cmd = [os.path.join(bin_dir, "oneflow-opt"), onnx_path, "--train", "--loss=cross-entropy",
           "--label=labels", f"--optimizer={opt_name}", f"--lr={lr:g}", "--emit=plan", "-o", plan]
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - start


def step_times_from_metrics(path):
    ms, losses = [], []
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            losses.append(float(rec["loss"]))
            for key in ("step_ms", "ms", "time_ms", "wall_ms"):
                if key in rec:
                    ms.append(float(rec[key]))
                    break
            else:
                sps = rec.get("samples_per_s")
                ms.append(BATCH / float(sps) * 1e3 if sps else None)
    return ms, losses


def time_oneflow(bin_dir, plan, work, threads, warmup, steps):
    metrics = os.path.join(work, f"metrics-{threads}.jsonl")
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    cmd = [os.path.join(bin_dir, "oneflow-run"), plan,
           "--data", f"tokens={os.path.join(work, 'tokens.npy')}",
           "--data", f"labels={os.path.join(work, 'labels.npy')}",
           "--batch", str(BATCH), "--steps", str(warmup + steps), "--metrics", metrics]
    inference_vs_pytorch.settle()
    run = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        sys.stderr.write(run.stdout + run.stderr)
        raise subprocess.CalledProcessError(run.returncode, cmd)
    ms, losses = step_times_from_metrics(metrics)
    if len(losses) != warmup + steps:
        raise RuntimeError(f"{metrics}: {len(losses)} records for {warmup + steps} steps")
    if any(m is None for m in ms):
        ms = [float(m) for m in re.findall(r"step \d+/\d+: ([0-9.]+) ms", run.stderr)]
        if len(ms) != warmup + steps:
            raise RuntimeError("no per-step times in the metrics nor on stderr")
    return ms[warmup:], losses


def rel_diff(a, b):
    n = min(len(a), len(b))
    a, b = np.asarray(a[:n], dtype=np.float64), np.asarray(b[:n], dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-12))) if n else float("nan")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--threads", default=f"1,{os.cpu_count() or 1}",
                        help="comma-separated thread counts (default: 1 and all CPUs)")
    parser.add_argument("--optimizer", default="sgd,adamw", help="sgd, adamw or both (comma-separated)")
    parser.add_argument("--steps", type=int, default=10, help="timed steps (median)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps before")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating PyTorch / OneFlow-MLIR runs per row (the medians pool them)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--torch-only", action="store_true", help="time PyTorch only")
    args = parser.parse_args(argv)
    threads = sorted({int(t) for t in args.threads.split(",") if t})
    opts = [o for o in args.optimizer.split(",") if o]
    for o in opts:
        if o not in OPTIMIZERS:
            parser.error(f"unknown optimizer {o!r} (sgd, adamw)")
    if args.steps < 1 or args.warmup < 0 or args.rounds < 1 or not threads or min(threads) < 1:
        parser.error("need --steps >= 1, --warmup >= 0, --rounds >= 1, thread counts >= 1")

    config, module, example = gpt_model()
    tokens, labels = make_data()
    ours_ok, why = (False, "--torch-only") if args.torch_only else supports_train(args.bin)
    if not ours_ok:
        print(f"OneFlow-MLIR: not timed ({why}); PyTorch only")

    rows = []
    with tempfile.TemporaryDirectory() as work:
        onnx_path = os.path.join(work, "gpt.onnx")
        if ours_ok:
            export_gpt(module, example, onnx_path)
            np.save(os.path.join(work, "tokens.npy"), tokens)
            np.save(os.path.join(work, "labels.npy"), labels)
        for opt_name in opts:
            plan, compile_s = None, None
            if ours_ok:
                plan = os.path.join(work, f"plan-{opt_name}")
                compile_s = compile_plan(args.bin, onnx_path, opt_name, plan)
            for t in threads:
                # Alternating runs: a drift of the machine's speed hits both sides alike.
                their_times, our_times, their_losses, our_losses = [], [], None, None
                for _ in range(args.rounds):
                    times, losses = time_torch(module, tokens, labels, opt_name, t, args.warmup,
                                               args.steps)
                    their_times += times
                    their_losses = their_losses or losses
                    if ours_ok:
                        times, losses = time_oneflow(args.bin, plan, work, t, args.warmup, args.steps)
                        our_times += times
                        our_losses = our_losses or losses
                theirs, theirs_min = statistics.median(their_times), min(their_times)
                row = {"optimizer": opt_name, "lr": OPTIMIZERS[opt_name][1], "threads": t,
                       "pytorch_ms": theirs, "pytorch_min_ms": theirs_min, "pytorch_losses": their_losses,
                       "oneflow_ms": None, "oneflow_min_ms": None, "ratio": None, "compile_s": compile_s}
                line = f"{opt_name:5s} {t} thread(s): PyTorch {theirs:8.2f} ms/step (min {theirs_min:.2f})"
                if ours_ok:
                    ours, ours_min = statistics.median(our_times), min(our_times)
                    row.update(oneflow_ms=ours, oneflow_min_ms=ours_min, ratio=ours / theirs,
                               oneflow_losses=our_losses, loss_rel_diff=rel_diff(our_losses, their_losses))
                    line += (f", OneFlow-MLIR {ours:8.2f} ms/step (min {ours_min:.2f}), ratio {ours / theirs:.2f}, "
                             f"losses max rel diff {row['loss_rel_diff']:.1e}")
                line += f" (loss {their_losses[0]:.3f} -> {their_losses[-1]:.3f})"
                print(line, flush=True)
                rows.append(row)

    load = os.getloadavg()[0]
    print()
    if load > 0.5:
        print(f"note: load average {load:.1f} on {os.cpu_count()} CPUs while timing: other processes "
              "share the cores, the times are inflated (2-thread runs most)")
    print(f"GPT decoder ({config}, vocab {VOCAB}), one training step, median of {args.rounds} x "
          f"{args.steps} steps ({args.rounds} alternating runs per side, each after {args.warmup} "
          f"warm-up); PyTorch {torch.__version__}, {inference_vs_pytorch.cpu_name()} "
          f"({os.cpu_count()} cores)")
    print()
    print("| optimizer | threads | PyTorch ms (median / min) | OneFlow-MLIR ms (median / min) | ratio (medians) "
          "| compile s | loss rel diff |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        ours = f"{r['oneflow_ms']:.2f} / {r['oneflow_min_ms']:.2f}" if r["oneflow_ms"] is not None else "n/a"
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "n/a"
        comp = f"{r['compile_s']:.1f}" if r["compile_s"] is not None else "n/a"
        diff = f"{r['loss_rel_diff']:.1e}" if "loss_rel_diff" in r else "n/a"
        print(f"| {r['optimizer']} (lr {r['lr']:g}) | {r['threads']} | {r['pytorch_ms']:.2f} / "
              f"{r['pytorch_min_ms']:.2f} | {ours} | "
              f"{ratio} | {comp} | {diff} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": f"GPT decoder, {config}, vocab {VOCAB}", "batch": BATCH, "seq": SEQ,
                       "steps": args.steps, "warmup": args.warmup, "rounds": args.rounds, "torch_version": torch.__version__,
                       "cpu": inference_vs_pytorch.cpu_name(), "cpus": os.cpu_count(),
                       "load_average": load, "oneflow_timed": ours_ok, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
