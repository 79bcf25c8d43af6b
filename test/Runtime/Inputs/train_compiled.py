"""Helpers for train-compiled.test (plans compiled by oneflow-opt --train).

  train_compiled.py data TORCH_DIR OUT       the MLP's 10 training batches
                                             as one data set (80 samples)
  train_compiled.py losses METRICS REF.npy FIRST TOL
                                             the metrics' losses against
                                             REF[FIRST:] (absolute TOL)
  train_compiled.py same-ckpt A B TOL        two checkpoints hold the same
                                             variables and step, values
                                             within TOL
  train_compiled.py export ONNX CKPT         the exported model's
                                             initializers are the
                                             checkpoint's parameters
"""
import json
import os
import sys

import numpy as np


def data(torch_dir, out):
    os.makedirs(out, exist_ok=True)
    x = np.load(os.path.join(torch_dir, "mlp.train.x.npy"))
    y = np.load(os.path.join(torch_dir, "mlp.train.targets.npy"))
    np.save(os.path.join(out, "x.npy"), x.reshape(-1, x.shape[-1]))
    np.save(os.path.join(out, "labels.npy"), y.reshape(-1))


def losses(metrics, ref, first, tol):
    got = [json.loads(line) for line in open(metrics)]
    want = np.load(ref)[int(first):]
    steps = [r["step"] for r in got]
    assert steps == list(range(int(first), int(first) + len(got))), steps
    diff = max(abs(r["loss"] - float(w)) for r, w in zip(got, want))
    assert diff <= float(tol), (diff, [r["loss"] for r in got], want)
    print(f"losses match: steps {steps[0]}..{steps[-1]} "
          f"(max difference <= {tol})")


def load(ckpt):
    manifest = json.load(open(os.path.join(ckpt, "manifest.json")))
    return manifest, {v["name"]: np.load(os.path.join(ckpt, v["file"]))
                      for v in manifest["variables"]}


def same_ckpt(a, b, tol):
    (ma, ta), (mb, tb) = load(a), load(b)
    assert ma["step"] == mb["step"], (ma["step"], mb["step"])
    assert sorted(ta) == sorted(tb), (sorted(ta), sorted(tb))
    diff = 0.0
    for name in ta:
        assert ta[name].shape == tb[name].shape, name
        if ta[name].size:
            diff = max(diff, float(np.max(np.abs(
                ta[name].astype(np.float64) - tb[name].astype(np.float64)))))
    assert diff <= float(tol), diff
    print(f"same checkpoint: step {ma['step']}, {len(ta)} variables "
          f"(max difference <= {tol})")


def export(model_path, ckpt):
    import onnx
    from onnx import numpy_helper
    model = onnx.load(model_path)
    onnx.checker.check_model(model)
    _, tensors = load(ckpt)
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    replaced = sorted(n for n in tensors if n in inits)
    for name in replaced:
        assert np.array_equal(inits[name], tensors[name]), name
    state = sorted(n for n in tensors if n not in inits)
    print(f"export matches the checkpoint: {len(replaced)} parameters "
          f"{replaced}; {len(state)} optimizer state variables")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"data": data, "losses": losses, "same-ckpt": same_ckpt,
     "export": export}[command](*args)
