#!/usr/bin/env python3
"""The training demo's model: an MLP 64 -> 128 -> ReLU -> 64 -> ReLU -> 10 for sklearn's 8x8 digits
(mlp.MLP, PyTorch's default nn.Linear init after torch.manual_seed(SEED)), its ONNX export, and a
PyTorch reference training run.

  # ONNX for `oneflow-opt --train`: input "x" [B, 64] float32, output "logits" [B, 10], opset 17,
  # initializers fc1.weight [128, 64], fc1.bias, fc2.weight, fc2.bias, fc3.weight, fc3.bias
  digits_mlp.py export OUT.onnx [--batch 32] [--seed 0]
  # the same graph with the weights of another ONNX file of this model, at another batch size
  # (python/tools/onnx_set_batch.py does the same on any ONNX graph without PyTorch)
  digits_mlp.py export OUT.onnx --batch 360 --weights-from trained.onnx
  # PyTorch reference: same init, AdamW(lr=1e-3) (or SGD), batch 32, shuffled; test accuracy vs step
  digits_mlp.py train DATA_DIR [--steps 900] [--optimizer adamw] [--lr 1e-3] [--eval-every 45]
                     [--export trained.onnx [--export-batch 360]] [--json FILE]

DATA_DIR is what python/datasets/digits.py writes (train_x.npy, train_y.npy, test_x.npy, test_y.npy).

The export follows export_models.py: the module in eval() mode exported with
TrainingMode.PRESERVE (no op of this model behaves differently in training; nothing is fused or
folded into the weights), keep_initializers_as_inputs=False, static shapes, constant folding on.
The batch dimension is FIXED (a plan is compiled for one batch size).

The reference training samples batches like `oneflow-run --data ... --batch B --shuffle --seed S`
is specified to: a stream of samples made of one random permutation of the training set per
epoch, cut into consecutive batches of B (a batch may straddle two epochs).  The permutations come
from numpy.random.RandomState(seed), so they need not be the runtime's: only the statistics (steps
to reach an accuracy) are comparable, not individual losses.
"""

import argparse
import io
import json
import os
import sys
import time
import warnings

import numpy as np
import torch
from torch.nn import functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mlp  # noqa: E402

SEED = 0
IN_FEATURES = 64
NUM_CLASSES = 10
INPUT_NAME = "x"
OUTPUT_NAME = "logits"
OPSET = 17


def build(seed=SEED):
    """64 -> 128 -> 64 -> 10 MLP with PyTorch's default initialization under manual_seed(seed)."""
    torch.manual_seed(seed)
    return mlp.MLP(in_features=IN_FEATURES, hidden=(128, 64), num_classes=NUM_CLASSES)


def export_bytes(model, batch, opset=OPSET):
    """The ONNX model (serialized) for a fixed batch size."""
    model = model.eval()
    f = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="It is recommended that constant folding be turned off")
        torch.onnx.export(
            model, (torch.zeros(batch, IN_FEATURES),), f,
            export_params=True, opset_version=opset, do_constant_folding=True,
            input_names=[INPUT_NAME], output_names=[OUTPUT_NAME], dynamic_axes=None,
            keep_initializers_as_inputs=False, training=torch.onnx.TrainingMode.PRESERVE,
        )
    return f.getvalue()


def check_export(data, model, batch):
    """The exported graph has the promised interface, and every parameter is an initializer of its name."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load_from_string(data)
    onnx.checker.check_model(m, full_check=True)
    ins = [(i.name, [d.dim_value for d in i.type.tensor_type.shape.dim]) for i in m.graph.input]
    outs = [(o.name, [d.dim_value for d in o.type.tensor_type.shape.dim]) for o in m.graph.output]
    assert ins == [(INPUT_NAME, [batch, IN_FEATURES])], ins
    assert outs == [(OUTPUT_NAME, [batch, NUM_CLASSES])], outs
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    params = {n: p.detach().numpy() for n, p in model.named_parameters()}
    assert sorted(inits) == sorted(params), (sorted(inits), sorted(params))
    for n, p in params.items():
        np.testing.assert_array_equal(inits[n], p, err_msg=n)
    return m


def load_onnx_weights(model, path):
    """Copy the initializers of an ONNX file of this model (named after the parameters) into model."""
    import onnx
    from onnx import numpy_helper
    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer}
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name not in inits:
                raise SystemExit(f"digits_mlp.py: {path} has no initializer {name!r}")
            arr = inits[name]
            if tuple(arr.shape) != tuple(p.shape):
                raise SystemExit(f"digits_mlp.py: {path}: {name} has shape {list(arr.shape)}, "
                                 f"expected {list(p.shape)}")
            p.copy_(torch.from_numpy(np.array(arr, dtype=np.float32)))
    return model


def write_bytes(path, data):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def export(model, path, batch):
    data = export_bytes(model, batch)
    check_export(data, model, batch)
    write_bytes(path, data)
    return data


# --------------------------------------------------------------------------------------------------
# Reference training
# --------------------------------------------------------------------------------------------------

def batch_stream(n, batch, seed, shuffle=True):
    """Yields index arrays of `batch` samples: consecutive epochs (each a fresh permutation when
    shuffling), cut into batches that may straddle an epoch boundary."""
    rng = np.random.RandomState(seed)
    buf = np.empty(0, dtype=np.int64)
    while True:
        while len(buf) < batch:
            epoch = rng.permutation(n) if shuffle else np.arange(n)
            buf = np.concatenate([buf, epoch])
        yield buf[:batch]
        buf = buf[batch:]


def accuracy(model, x, y):
    with torch.no_grad():
        pred = model(torch.from_numpy(x)).argmax(dim=-1).numpy()
    return float((pred == y).mean()), int((pred == y).sum())


def train(model, data, steps, batch, optimizer, lr, seed, eval_every, shuffle=True, log=print):
    xtr, ytr, xte, yte = data
    if optimizer == "adamw":
        opt = torch.optim.AdamW(model.parameters(), lr=lr)
    elif optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=lr)
    else:
        raise ValueError(optimizer)
    model.train()
    stream = batch_stream(len(xtr), batch, seed, shuffle)
    xtr_t, ytr_t = torch.from_numpy(xtr), torch.from_numpy(ytr)
    curve, losses = [], []
    first = {}
    acc0, _ = accuracy(model, xte, yte)
    curve.append({"step": 0, "epoch": 0.0, "test_accuracy": acc0})
    for step in range(1, steps + 1):
        idx = torch.from_numpy(next(stream))
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(xtr_t[idx]), ytr_t[idx])
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step % eval_every == 0 or step == steps:
            acc, _ = accuracy(model, xte, yte)
            for t in (0.90, 0.95, 0.97):
                if acc >= t and t not in first:
                    first[t] = step
            window = losses[-eval_every:]
            curve.append({"step": step, "epoch": step * batch / len(xtr), "test_accuracy": acc,
                          "train_loss": float(np.mean(window))})
            log(f"  step {step:5d} (epoch {step * batch / len(xtr):5.1f}): mean train loss "
                f"{np.mean(window):.4f}, test accuracy {100 * acc:6.2f}%")
    return curve, losses, first


def load_data(d):
    names = ("train_x", "train_y", "test_x", "test_y")
    try:
        return tuple(np.load(os.path.join(d, n + ".npy")) for n in names)
    except FileNotFoundError as e:
        raise SystemExit(f"digits_mlp.py: {e}; run python/datasets/digits.py {d} first")


def cmd_export(args):
    model = build(args.seed)
    if args.weights_from:
        load_onnx_weights(model, args.weights_from)
    data = export(model, args.out, args.batch)
    src = args.weights_from or f"PyTorch default init, seed {args.seed}"
    print(f"digits_mlp: {args.out} ({len(data)} bytes): x [{args.batch}, {IN_FEATURES}] -> "
          f"logits [{args.batch}, {NUM_CLASSES}], opset {OPSET}, weights: {src}")
    return 0


def cmd_train(args):
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    data = load_data(args.data_dir)
    model = build(args.seed)
    print(f"PyTorch reference: {args.optimizer} lr {args.lr}, batch {args.batch}, "
          f"{'shuffled' if not args.no_shuffle else 'in order'} (seed {args.data_seed}), "
          f"{len(data[0])} train / {len(data[2])} test samples, {args.steps} steps")
    start = time.perf_counter()
    curve, losses, first = train(model, data, args.steps, args.batch, args.optimizer, args.lr,
                                 args.data_seed, args.eval_every, not args.no_shuffle)
    wall = time.perf_counter() - start
    acc, correct = accuracy(model, data[2], data[3])
    for t in (0.90, 0.95, 0.97):
        s = first.get(t)
        print(f"  first evaluation at >= {100 * t:.0f}%: "
              + (f"step {s} (epoch {s * args.batch / len(data[0]):.1f})" if s else "not reached"))
    print(f"  final test accuracy {100 * acc:.2f}% ({correct}/{len(data[3])}), {wall:.1f} s")
    if args.export:
        export(model, args.export, args.export_batch or args.batch)
        print(f"  trained model -> {args.export} (batch {args.export_batch or args.batch})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"optimizer": args.optimizer, "lr": args.lr, "batch": args.batch,
                       "steps": args.steps, "seed": args.seed, "data_seed": args.data_seed,
                       "final_test_accuracy": acc,
                       "first_step_at": {f"{int(100 * k)}%": v for k, v in first.items()},
                       "curve": curve, "losses": losses}, f, indent=1)
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="write the ONNX model")
    e.add_argument("out")
    e.add_argument("--batch", type=int, default=32)
    e.add_argument("--seed", type=int, default=SEED, help="torch.manual_seed before building (default 0)")
    e.add_argument("--weights-from", metavar="ONNX", help="take the weights from this ONNX file")
    t = sub.add_parser("train", help="PyTorch reference training on the digits")
    t.add_argument("data_dir")
    t.add_argument("--steps", type=int, default=900)
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--optimizer", choices=("adamw", "sgd"), default="adamw")
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--seed", type=int, default=SEED, help="weight init seed (default 0)")
    t.add_argument("--data-seed", type=int, default=0, help="shuffling seed (default 0)")
    t.add_argument("--no-shuffle", action="store_true")
    t.add_argument("--eval-every", type=int, default=45)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--export", metavar="ONNX", help="export the trained model here")
    t.add_argument("--export-batch", type=int, help="batch of the exported model (default --batch)")
    t.add_argument("--json", help="write the accuracy curve and losses here")
    args = p.parse_args(argv)
    if getattr(args, "batch", 1) <= 0 or getattr(args, "export_batch", None) == 0:
        p.error("batch sizes must be positive")
    return cmd_export(args) if args.cmd == "export" else cmd_train(args)


if __name__ == "__main__":
    sys.exit(main())
