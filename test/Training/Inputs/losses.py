"""Training-test helpers.

  losses.py flatten BATCHES.npy OUT.npy        [S, B, ...] -> [S*B, ...]
  losses.py compare METRICS.jsonl REF [--rtol R] [--steps N] [--offset K]
      REF is a .npy of losses or another metrics .jsonl; compares the first
      N losses (all of REF by default), METRICS' step numbers starting at K.
  losses.py ckpt-matches CKPT DIR [--rtol R] [--mean]
      Every DIR/NAME.npy equals checkpoint variable NAME (within R times the
      tensor's largest magnitude; with --mean, the mean absolute difference
      is within R times it).
  losses.py same-onnx A.onnx B.onnx [--rtol R] [--changed-from ORIG.onnx]
      Two models hold the same initializers (and, with --changed-from, every
      one of them differs from ORIG's: training moved it).
  losses.py same-weights DIR_A DIR_B [--rtol R]
      Two checkpoint directories hold the same tensors (names, shapes, and
      values within R times each tensor's largest magnitude; default exact).
  losses.py less-memory LOG_A LOG_B [--persistent]
      oneflow-run's stderr logs: the regst memory of A's largest rank is
      below B's (with --persistent: the persistent bytes, over all ranks).
"""
import json
import os
import re
import sys

import numpy as np


def read_losses(path):
    if path.endswith(".npy"):
        return np.load(path).astype(np.float64), None
    steps, losses = [], []
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            steps.append(record["step"])
            losses.append(record["loss"])
    return np.array(losses, dtype=np.float64), steps


def option(args, name, default, kind):
    if name in args:
        i = args.index(name)
        value = kind(args[i + 1])
        del args[i:i + 2]
        return value
    return default


def compare(args):
    rtol = option(args, "--rtol", 1e-4, float)
    steps = option(args, "--steps", None, int)
    offset = option(args, "--offset", 0, int)
    got, got_steps = read_losses(args[0])
    want, _ = read_losses(args[1])
    n = steps if steps is not None else len(want)
    if len(got) < n or len(want) < n:
        sys.exit(f"error: need {n} losses, got {len(got)} and {len(want)}")
    if got_steps is not None and got_steps[:n] != list(range(offset, offset + n)):
        sys.exit(f"error: steps {got_steps[:n]} are not {offset}..{offset + n - 1}")
    got, want = got[:n], want[:n]
    rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-12)
    worst = int(np.argmax(rel))
    if not np.all(np.isfinite(got)) or rel[worst] > rtol:
        sys.exit(f"error: loss of step {worst} is {got[worst]!r}, expected "
                 f"{want[worst]!r} (relative difference {rel[worst]:.3g} > {rtol})")
    print(f"losses match: {n} steps, max relative difference {rel.max():.2g}")


def same_weights(args):
    rtol = option(args, "--rtol", 0.0, float)
    a, b = args
    ma = json.load(open(os.path.join(a, "manifest.json")))
    mb = json.load(open(os.path.join(b, "manifest.json")))
    def tensors(manifest):
        entries = manifest["variables"] if "variables" in manifest else manifest["tensors"]
        return {e["name"]: e for e in entries}
    ta, tb = tensors(ma), tensors(mb)
    if sorted(ta) != sorted(tb):
        sys.exit(f"error: different variables: {sorted(set(ta) ^ set(tb))}")
    worst = 0.0
    for name, entry in ta.items():
        x = np.load(os.path.join(a, entry["file"])).astype(np.float64)
        y = np.load(os.path.join(b, tb[name]["file"])).astype(np.float64)
        if x.shape != y.shape:
            sys.exit(f"error: {name}: shapes {x.shape} and {y.shape}")
        # Relative to the tensor's scale: elements near zero carry no weight.
        scale = max(float(np.max(np.abs(y))), 1e-6) if y.size else 1.0
        diff = float(np.max(np.abs(x - y))) / scale if x.size else 0.0
        worst = max(worst, diff)
        if diff > rtol:
            sys.exit(f"error: {name} differs (max relative difference {diff:.3g})")
    print(f"same weights: {len(ta)} variables, max relative difference {worst:.2g}")


def ckpt_matches(args):
    rtol = option(args, "--rtol", 1e-5, float)
    mean = "--mean" in args
    if mean:
        args.remove("--mean")
    ckpt, ref = args
    manifest = json.load(open(os.path.join(ckpt, "manifest.json")))
    files = {e["name"]: e["file"] for e in manifest["variables"]}
    names = sorted(f[:-4] for f in os.listdir(ref) if f.endswith(".npy"))
    worst = 0.0
    for name in names:
        if name not in files:
            sys.exit(f"error: the checkpoint has no variable '{name}'")
        x = np.load(os.path.join(ckpt, files[name])).astype(np.float64)
        y = np.load(os.path.join(ref, name + ".npy")).astype(np.float64)
        scale = max(float(np.max(np.abs(y))), 1e-6)
        if x.shape != y.shape:
            sys.exit(f"error: {name} has shape {x.shape}, expected {y.shape}")
        diff = float((np.mean if mean else np.max)(np.abs(x - y))) / scale
        worst = max(worst, diff)
        if x.shape != y.shape or diff > rtol:
            sys.exit(f"error: {name} differs (shape {x.shape} vs {y.shape}, "
                     f"max relative difference {diff:.3g})")
    print(f"checkpoint matches: {len(names)} tensors, {'mean' if mean else 'max'} "
          f"relative difference {worst:.2g}")


def same_onnx(args):
    import onnx
    from onnx import numpy_helper
    rtol = option(args, "--rtol", 0.0, float)
    original = option(args, "--changed-from", None, str)
    def load(path):
        return {t.name: numpy_helper.to_array(t).astype(np.float64)
                for t in onnx.load(path).graph.initializer}
    a, b = load(args[0]), load(args[1])
    if sorted(a) != sorted(b):
        sys.exit(f"error: different initializers: {sorted(set(a) ^ set(b))}")
    worst = 0.0
    for name in a:
        scale = max(float(np.max(np.abs(b[name]))), 1e-6) if b[name].size else 1.0
        diff = float(np.max(np.abs(a[name] - b[name]))) / scale if a[name].size else 0.0
        worst = max(worst, diff)
        if a[name].shape != b[name].shape or diff > rtol:
            sys.exit(f"error: initializer {name} differs ({diff:.3g})")
    if original:
        o = load(original)
        same = [n for n in a if np.array_equal(a[n], o[n])]
        if same:
            sys.exit(f"error: not trained: {same}")
    print(f"same initializers: {len(a)}, max relative difference {worst:.2g}")


def peak_regst_bytes(path):
    """The regst bytes of the largest rank in a oneflow-run log."""
    text = open(path).read()
    per_rank = re.search(r"memory per rank \(regsts\): (.*)", text)
    if per_rank:
        return max(int(entry.split(":")[1])
                   for entry in per_rank.group(1).split())
    total = re.search(r"memory: (\d+) bytes of regsts", text)
    if not total:
        sys.exit(f"{path}: no memory line")
    return int(total.group(1))


def persistent_bytes(path):
    found = re.search(r"(\d+) bytes persistent", open(path).read())
    if not found:
        sys.exit(f"{path}: no persistent bytes")
    return int(found.group(1))


def less_memory(args):
    measure = peak_regst_bytes
    if "--persistent" in args:
        args.remove("--persistent")
        measure = persistent_bytes
    a, b = measure(args[0]), measure(args[1])
    if a >= b:
        sys.exit(f"not less memory: {a} >= {b} bytes")
    print(f"less memory: {a} < {b} bytes ({a / b:.2f}x)")


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "flatten":
        x = np.load(args[0])
        np.save(args[1], x.reshape((-1,) + x.shape[2:]))
    elif command == "compare":
        compare(args)
    elif command == "ckpt-matches":
        ckpt_matches(args)
    elif command == "same-onnx":
        same_onnx(args)
    elif command == "same-weights":
        same_weights(args)
    elif command == "less-memory":
        less_memory(args)
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
