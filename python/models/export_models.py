#!/usr/bin/env python3
"""Export the small PyTorch models in this folder to ONNX (opsets 13 and 17) plus reference data.

Usage (needs torch, onnx, numpy; on Debian bookworm: /usr/bin/python3 with python3-torch / python3-onnx):

    python3 python/models/export_models.py [--out DIR]

Default output folder: test/Import/ONNX/Inputs/torch/.  For every model M in (mlp, mlp_gelu, gpt, resnet):

  M_opset13.onnx, M_opset17.onnx   torch.onnx.export, eval mode, static shapes, constant folding on.
                                   Exported with TrainingMode.PRESERVE on an eval()-mode module: identical
                                   to TrainingMode.EVAL except that Conv+BatchNormalization are NOT fused,
                                   so every ONNX initializer is a PyTorch parameter/buffer (see *.params.json).
  M_opsetN.params.json             ONNX initializer -> PyTorch state_dict entry (+ "identity"/"transpose"),
                                   and which initializers are trainable parameters.
  M.input.<name>.npy               the export input(s) (ONNX graph input names)
  M.output.logits.npy              PyTorch's output for those inputs (eval mode)
  M.init_state.npz                 the PyTorch state_dict the ONNX files were exported from (np.load-able)

and for mlp, mlp_gelu and gpt, a PyTorch training trajectory starting from exactly those weights:

  M.train.<input>.npy, M.train.targets.npy   10 fixed batches, stacked on a leading [10] axis
  M.sgd.losses.npy, M.sgd.json               10 steps of SGD(lr=0.1)
  M.adamw.losses.npy, M.adamw.json           10 steps of AdamW(lr=1e-3, other PyTorch defaults)

  losses[i] = cross_entropy(model(batch_i), targets_i) (mean over all rows / tokens), computed with the
  weights before the i-th optimizer step; the JSON holds batch size, lr, all optimizer hyper-parameters,
  the loss after the last step on batch 0 and per-parameter L2 norms after training.

Every .onnx is checked with onnx.checker (full_check), strict shape inference, a reload from disk, and a
NumPy re-evaluation (onnx_numpy_ref.py; onnx 1.12 has no onnx.reference) against the saved PyTorch output.
The script is deterministic: a second run rewrites byte-identical files (single-threaded CPU torch).
"""

import argparse
import collections
import copy
import io
import json
import os
import sys
import warnings
import zipfile

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch.nn import functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gpt  # noqa: E402
import mlp  # noqa: E402
import onnx_numpy_ref  # noqa: E402
import resnet  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_OUT = os.path.join(REPO, "test", "Import", "ONNX", "Inputs", "torch")
OPSETS = (13, 17)
SEED = 0
TRAIN_STEPS = 10
OPTIMIZERS = {
    "sgd": (torch.optim.SGD, {"lr": 0.1}),
    "adamw": (torch.optim.AdamW, {"lr": 1e-3}),
}


# --------------------------------------------------------------------------------------------------
# Model specs: builder, named example inputs, and (optionally) training batches.
# --------------------------------------------------------------------------------------------------

def mlp_inputs(rng):
    return {"x": rng.standard_normal((8, 64)).astype(np.float32)}


def mlp_batches(rng):
    # Labels from a fixed random linear "teacher", so that the loss actually goes down.
    x = rng.standard_normal((TRAIN_STEPS, 8, 64)).astype(np.float32)
    teacher = rng.standard_normal((64, 10)).astype(np.float32)
    labels = np.argmax(x @ teacher, axis=-1).astype(np.int64)
    return {"x": x}, labels


def gpt_inputs(rng):
    return {"tokens": rng.randint(0, 128, size=(2, 16)).astype(np.int64)}


def gpt_batches(rng):
    # Random start tokens followed by the learnable rule t[i+1] = (5 * t[i] + 3) mod 128;
    # targets are the inputs shifted by one (next-token prediction).
    seq = np.zeros((TRAIN_STEPS, 2, 17), dtype=np.int64)
    seq[:, :, 0] = rng.randint(0, 128, size=(TRAIN_STEPS, 2))
    for i in range(1, 17):
        seq[:, :, i] = (5 * seq[:, :, i - 1] + 3) % 128
    return {"tokens": np.ascontiguousarray(seq[:, :, :16])}, np.ascontiguousarray(seq[:, :, 1:])


def resnet_inputs(rng):
    return {"x": rng.standard_normal((2, 3, 16, 16)).astype(np.float32)}


SPECS = collections.OrderedDict([
    ("mlp", dict(build=mlp.build, inputs=mlp_inputs, batches=mlp_batches, data_seed=100)),
    ("mlp_gelu", dict(build=mlp.build_gelu, inputs=mlp_inputs, batches=mlp_batches, data_seed=100)),
    ("gpt", dict(build=gpt.build, inputs=gpt_inputs, batches=gpt_batches, data_seed=200)),
    ("resnet", dict(build=resnet.build, inputs=resnet_inputs, batches=None, data_seed=300)),
])
OUTPUT_NAMES = ["logits"]


# --------------------------------------------------------------------------------------------------
# Deterministic writers
# --------------------------------------------------------------------------------------------------

def write_bytes(path, data):
    with open(path, "wb") as f:
        f.write(data)


def save_npy(path, arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
    write_bytes(path, buf.getvalue())


def save_npz(path, arrays):
    """Like np.savez, but with fixed zip timestamps so the bytes do not depend on the time of the run."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, arr in arrays.items():
            b = io.BytesIO()
            np.lib.format.write_array(b, np.ascontiguousarray(arr), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            zf.writestr(info, b.getvalue())
    write_bytes(path, buf.getvalue())


def save_json(path, obj):
    write_bytes(path, (json.dumps(obj, indent=2, sort_keys=False) + "\n").encode())


# --------------------------------------------------------------------------------------------------
# Export + verification
# --------------------------------------------------------------------------------------------------

def export_onnx(model, inputs, opset):
    f = io.BytesIO()
    with warnings.catch_warnings():
        # torch 1.13 warns about tracing `x.shape`-derived Python ints; shapes are static on purpose.
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        # PRESERVE + eval() is the "no Conv/BN fusion" form of EVAL; param_map() checks that constant
        # folding did not merge or duplicate any parameter, which is what this warning is about.
        warnings.filterwarnings("ignore", message="It is recommended that constant folding be turned off")
        torch.onnx.export(
            model, tuple(torch.from_numpy(v) for v in inputs.values()), f,
            export_params=True, opset_version=opset, do_constant_folding=True,
            input_names=list(inputs.keys()), output_names=OUTPUT_NAMES, dynamic_axes=None,
            keep_initializers_as_inputs=False, training=torch.onnx.TrainingMode.PRESERVE,
        )
    return f.getvalue()


def param_map(onnx_model, torch_model):
    """Match every ONNX initializer with the state_dict entry it was exported from."""
    params = {n: p.detach().numpy() for n, p in torch_model.named_parameters()}
    buffers = {n: b.detach().numpy() for n, b in torch_model.state_dict().items() if n not in params}
    sources = [(n, a, "parameter") for n, a in params.items()] + [(n, a, "buffer") for n, a in buffers.items()]
    mapping = collections.OrderedDict()
    for init in onnx_model.graph.initializer:
        arr = numpy_helper.to_array(init)
        cands = []
        for name, src, kind in sources:
            if src.shape == arr.shape and np.array_equal(src, arr):
                cands.append((name, kind, "identity"))
            elif src.ndim == 2 and src.T.shape == arr.shape and np.array_equal(src.T, arr):
                cands.append((name, kind, "transpose"))
        named = [c for c in cands if c[0] == init.name]
        if named:
            cands = named
        if len(cands) == 1:
            mapping[init.name] = {"source": cands[0][0], "kind": cands[0][1], "transform": cands[0][2]}
        elif not cands:
            mapping[init.name] = {"source": None, "kind": "constant", "transform": None}
        else:
            raise AssertionError(f"initializer {init.name} matches several state_dict entries: {cands}")
    used = collections.Counter(v["source"] for v in mapping.values() if v["kind"] == "parameter")
    missing = [n for n in params if used[n] == 0]
    dup = [n for n, c in used.items() if c > 1]
    assert not missing, f"parameters not exported as initializers: {missing}"
    assert not dup, f"parameters exported as several initializers: {dup}"
    return mapping


def verify(path, onnx_bytes, feeds, expected, torch_model, opset):
    model = onnx.load(path)
    assert model.SerializeToString() == onnx_bytes, "re-loaded file differs"
    # Not check_model(path, full_check=True): onnx 1.12 then runs infer_shapes_path(path), which rewrites
    # the file in place with inferred value_info.
    onnx.checker.check_model(model, full_check=True)
    assert model.opset_import[0].version == opset
    assert [i.name for i in model.graph.input] == list(feeds), [i.name for i in model.graph.input]
    assert [o.name for o in model.graph.output] == OUTPUT_NAMES
    for vi in list(model.graph.input) + list(model.graph.output):
        assert all(d.HasField("dim_value") for d in vi.type.tensor_type.shape.dim), f"non-static {vi.name}"
    got = onnx_numpy_ref.run(model, feeds)
    for name, exp in expected.items():
        np.testing.assert_allclose(got[name], exp, rtol=1e-4, atol=1e-5, err_msg=f"{path}:{name}")
    return model, param_map(model, torch_model)


# --------------------------------------------------------------------------------------------------
# Training trajectories
# --------------------------------------------------------------------------------------------------

def jsonable(d):
    return {k: v for k, v in d.items() if isinstance(v, (bool, int, float, str, type(None), tuple, list))}


def train(init_model, batch_inputs, targets, opt_name):
    opt_cls, opt_args = OPTIMIZERS[opt_name]
    model = copy.deepcopy(init_model).train()
    opt = opt_cls(model.parameters(), **opt_args)
    losses = []

    def loss_on(i):
        logits = model(*(torch.from_numpy(v[i]) for v in batch_inputs.values()))
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), torch.from_numpy(targets[i]).reshape(-1))

    for i in range(TRAIN_STEPS):
        opt.zero_grad(set_to_none=True)
        loss = loss_on(i)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        final_loss_batch0 = loss_on(0).item()
    final_l2 = {n: float(np.linalg.norm(p.detach().numpy().astype(np.float64))) for n, p in model.named_parameters()}
    return np.asarray(losses, dtype=np.float32), opt, final_loss_batch0, final_l2


# --------------------------------------------------------------------------------------------------

def op_histogram(model):
    return dict(sorted(collections.Counter(n.op_type for n in model.graph.node).items()))


def process(name, spec, out, summary):
    model = spec["build"](SEED).eval()
    rng = np.random.RandomState(spec["data_seed"])
    feeds = spec["inputs"](rng)
    with torch.no_grad():
        logits = model(*(torch.from_numpy(v) for v in feeds.values())).numpy()
    expected = {"logits": logits}
    for k, v in feeds.items():
        save_npy(os.path.join(out, f"{name}.input.{k}.npy"), v)
    for k, v in expected.items():
        save_npy(os.path.join(out, f"{name}.output.{k}.npy"), v)
    save_npz(os.path.join(out, f"{name}.init_state.npz"),
             collections.OrderedDict((k, v.detach().numpy()) for k, v in model.state_dict().items()))

    summary[name] = {}
    for opset in OPSETS:
        fname = f"{name}_opset{opset}.onnx"
        path = os.path.join(out, fname)
        data = export_onnx(model, feeds, opset)
        write_bytes(path, data)
        onnx_model, mapping = verify(path, data, feeds, expected, model, opset)
        save_json(os.path.join(out, f"{name}_opset{opset}.params.json"), {
            "onnx_file": fname,
            "state_dict_file": f"{name}.init_state.npz",
            "trainable_initializers": [k for k, v in mapping.items() if v["kind"] == "parameter"],
            "initializers": mapping,
        })
        summary[name][opset] = {"bytes": len(data), "ops": op_histogram(onnx_model),
                                "nodes": len(onnx_model.graph.node)}

    if spec["batches"] is None:
        return
    batch_inputs, targets = spec["batches"](rng)
    for k, v in batch_inputs.items():
        save_npy(os.path.join(out, f"{name}.train.{k}.npy"), v)
    save_npy(os.path.join(out, f"{name}.train.targets.npy"), targets)
    first = next(iter(batch_inputs.values()))
    for opt_name in OPTIMIZERS:
        losses, opt, final_loss, final_l2 = train(model, batch_inputs, targets, opt_name)
        save_npy(os.path.join(out, f"{name}.{opt_name}.losses.npy"), losses)
        save_json(os.path.join(out, f"{name}.{opt_name}.json"), {
            "model": name,
            "initial_weights": [f"{name}_opset{o}.onnx" for o in OPSETS] + [f"{name}.init_state.npz"],
            "optimizer": type(opt).__name__,
            "lr": opt.defaults["lr"],
            "optimizer_hyperparameters": jsonable(opt.defaults),
            "batch_size": int(first.shape[1]),
            "steps": TRAIN_STEPS,
            "inputs": {k: f"{name}.train.{k}.npy" for k in batch_inputs},
            "input_shapes": {k: list(v.shape) for k, v in batch_inputs.items()},
            "targets": f"{name}.train.targets.npy",
            "target_shape": list(targets.shape),
            "loss": "torch.nn.functional.cross_entropy(logits.reshape(-1, C), targets.reshape(-1)), "
                    "reduction='mean' (over all rows/tokens of the batch)",
            "losses": f"{name}.{opt_name}.losses.npy",
            "losses_semantics": "losses[i] is the loss on batch i with the weights before optimizer step i; "
                                "every step: zero_grad, forward, backward, step",
            "losses_values": [float(v) for v in losses],
            "final_loss_on_batch0": final_loss,
            "final_param_l2_norms": final_l2,
            "torch_version": torch.__version__,
        })
        summary[name][opt_name] = [round(float(v), 5) for v in losses]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=DEFAULT_OUT)
    p.add_argument("--models", nargs="*", default=list(SPECS))
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(args.out, exist_ok=True)
    summary = collections.OrderedDict()
    for name in args.models:
        process(name, SPECS[name], args.out, summary)
    for name, info in summary.items():
        for key, val in info.items():
            if isinstance(key, int):
                print(f"{name}_opset{key}.onnx: {val['bytes']} bytes, {val['nodes']} nodes, ops {val['ops']}")
            else:
                print(f"{name} {key} losses: {val}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
