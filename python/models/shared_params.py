#!/usr/bin/env python3
"""Models whose ONNX export shares parameters, and their PyTorch training
references (issue 24).

PyTorch 1.13's exporter merges initializers with equal values (then reads
the copies through Identity nodes): a fresh model's batch-norm and layer-norm
weights (ones) and biases (zeros), the equal layers of a TransformerEncoder
(its layers are deep copies of one layer), and parameters tied on purpose.
One ONNX initializer then feeds several ops, so training must sum its
gradient over the uses and update it once.

  /usr/bin/python3 python/models/shared_params.py [OUT]

  /usr/bin/python3 python/models/shared_params.py OUT gpt   (one model)

writes into OUT (default test/Training/Inputs/shared), for M in densenet,
encoder, tied, gpt (the test GPT of gpt.py, vocabulary 10, with fresh
LayerNorms: the exporter merges their 5 weights and 5 biases):

  M.onnx                opset 17, eval mode (TrainingMode.PRESERVE: batch
                        norms are not folded into convolutions), batch 4
  M.tied.json           ONNX initializer -> the PyTorch parameters whose
                        values it holds (tied in the references)
  M.x.npy, M.labels.npy STEPS batches of BATCH samples, flattened
  M.sgd.losses.npy      the losses of STEPS SGD steps (lr 0.01) of the model
                        in training mode with its parameters tied as in the
                        ONNX file, gradients summed over the uses
  M.adamw.losses.npy    the same with AdamW (lr 1e-3, PyTorch defaults)
  M.sgd.final/NAME.npy  after the SGD steps: every ONNX initializer (its
                        tied parameters' value) and running statistic
                        (named as PyTorch's buffer)

The script is deterministic (single-threaded CPU torch).
"""
import collections
import io
import json
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

STEPS, BATCH, CLASSES = 5, 4, 10


class DenseLayer(nn.Module):
    """torchvision's DenseNet layer: BN-ReLU-Conv1x1-BN-ReLU-Conv3x3."""

    def __init__(self, channels, growth):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(channels)
        self.conv1 = nn.Conv2d(channels, 4 * growth, 1, bias=False)
        self.norm2 = nn.BatchNorm2d(4 * growth)
        self.conv2 = nn.Conv2d(4 * growth, growth, 3, padding=1, bias=False)

    def forward(self, x):
        y = self.conv1(F.relu(self.norm1(x)))
        y = self.conv2(F.relu(self.norm2(y)))
        return torch.cat([x, y], 1)


class DenseNet(nn.Module):
    """A small DenseNet-121 (module names as torchvision's): two dense blocks
    and a transition; every batch norm is fresh (weight 1, bias 0)."""

    def __init__(self, growth=8, stem=16, blocks=(3, 2)):
        super().__init__()
        layers = collections.OrderedDict()
        layers["conv0"] = nn.Conv2d(3, stem, 3, padding=1, bias=False)
        layers["norm0"] = nn.BatchNorm2d(stem)
        layers["relu0"] = nn.ReLU()
        channels = stem
        for b, count in enumerate(blocks):
            block = nn.Sequential(collections.OrderedDict(
                (f"denselayer{i + 1}", DenseLayer(channels + i * growth, growth))
                for i in range(count)))
            layers[f"denseblock{b + 1}"] = block
            channels += count * growth
            if b + 1 < len(blocks):
                layers[f"transition{b + 1}"] = nn.Sequential(collections.OrderedDict([
                    ("norm", nn.BatchNorm2d(channels)), ("relu", nn.ReLU()),
                    ("conv", nn.Conv2d(channels, channels // 2, 1, bias=False)),
                    ("pool", nn.AvgPool2d(2))]))
                channels //= 2
        layers["norm5"] = nn.BatchNorm2d(channels)
        self.features = nn.Sequential(layers)
        self.classifier = nn.Linear(channels, CLASSES)

    def forward(self, x):
        y = F.relu(self.features(x))
        return self.classifier(y.mean((2, 3)))


class Encoder(nn.Module):
    """nn.TransformerEncoder (2 pre-norm layers, deep copies of one layer)
    between an input projection and a per-position classifier."""

    def __init__(self, features=16, d_model=32, heads=4):
        super().__init__()
        self.inp = nn.Linear(features, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, heads, 2 * d_model, dropout=0.0, batch_first=True,
            norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, CLASSES)

    def forward(self, x):
        return self.head(self.encoder(self.inp(x)))


class Tied(nn.Module):
    """Tied on purpose: the embedding table is also the output projection,
    and one recurrent weight is applied twice (its second read comes after
    its first use's backward in the backward program)."""

    def __init__(self, vocab=CLASSES, d=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.recur = nn.Linear(d, d)
        self.out_bias = nn.Parameter(torch.randn(vocab) * 0.1)

    def forward(self, tokens):
        h = self.embed(tokens)
        h = torch.tanh(self.recur(h))
        h = torch.tanh(self.recur(h)) + h
        # A Gemm reading the table itself (transB): without a bias,
        # h @ table.t() is exported with a constant-folded transposed copy,
        # a second initializer.
        rows = F.linear(h.reshape(-1, h.shape[-1]), self.embed.weight,
                        self.out_bias)
        return rows.reshape(h.shape[:-1] + (-1,))


def build(name):
    torch.manual_seed({"densenet": 1, "encoder": 2, "tied": 3, "gpt": 4}[name])
    if name == "gpt":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import gpt
        model = gpt.GPT(vocab_size=CLASSES, block_size=8, d_model=16, n_head=2)
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
        return model, ("tokens", (BATCH, 8), CLASSES), (BATCH, 8)
    if name == "densenet":
        return DenseNet(), ("x", (BATCH, 3, 16, 16), None), (BATCH,)
    if name == "encoder":
        return Encoder(), ("x", (BATCH, 8, 16), None), (BATCH, 8)
    return Tied(), ("tokens", (BATCH, 8), CLASSES), (BATCH, 8)


def data(name, spec, label_shape):
    rng = np.random.RandomState({"densenet": 11, "encoder": 12, "tied": 13,
                                 "gpt": 14}[name])
    input_name, shape, vocab = spec
    n = STEPS * shape[0]
    if vocab:
        x = rng.randint(0, vocab, size=(n,) + shape[1:]).astype(np.int64)
    else:
        x = rng.randn(n, *shape[1:]).astype(np.float32)
    y = rng.randint(0, CLASSES, size=(n,) + label_shape[1:]).astype(np.int64)
    return x, y


def export(model, example, input_name):
    f = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model, (torch.from_numpy(example),), f, opset_version=17,
            do_constant_folding=True, input_names=[input_name],
            output_names=["logits"],
            training=torch.onnx.TrainingMode.PRESERVE)
    return f.getvalue()


def tied_groups(proto, model):
    """ONNX initializer -> the parameters it holds: by name (an initializer,
    or an Identity of one), else by value (constant folding stores a
    transposed copy of a matmul weight under a new name)."""
    inits = {t.name: numpy_helper.to_array(t) for t in proto.graph.initializer}
    alias = {n.output[0]: n.input[0] for n in proto.graph.node
             if n.op_type == "Identity" and n.input[0] in inits}
    groups = collections.OrderedDict()
    for pname, p in model.named_parameters():
        value = p.detach().numpy()
        init = pname if pname in inits else alias.get(pname)
        if init is None:
            matches = [k for k, v in inits.items()
                       if (v.shape == value.shape and np.array_equal(v, value)) or
                       (value.ndim == 2 and v.shape == value.T.shape and
                        np.array_equal(v, value.T))]
            assert len(matches) == 1, f"{pname}: initializers {matches}"
            init = matches[0]
        groups.setdefault(init, []).append(pname)
    # Every other float initializer must be a buffer (a parameter the
    # exporter copied, e.g. transposed, would be trained apart from it).
    buffers = {n for n, _ in model.named_buffers()}
    for name, value in inits.items():
        if name not in groups and value.dtype.kind == "f":
            aliases = {a for a, i in alias.items() if i == name}
            assert buffers & ({name} | aliases), f"{name}: not a parameter"
    return groups


def tie(model, groups):
    """Makes every parameter of a group the group's first one."""
    def site(name):
        owner, _, attr = name.rpartition(".")
        return model.get_submodule(owner), attr

    for names in groups.values():
        shared = getattr(*site(names[0]))
        for other in names[1:]:
            setattr(*site(other), shared)


def trajectory(model, x, y, optimizer):
    model.train()
    params = list(model.parameters())  # Each shared parameter once.
    opt = (torch.optim.SGD(params, lr=0.01) if optimizer == "sgd" else
           torch.optim.AdamW(params, lr=1e-3))
    losses = []
    for step in range(STEPS):
        xs = torch.from_numpy(x[step * BATCH:(step + 1) * BATCH])
        ys = torch.from_numpy(y[step * BATCH:(step + 1) * BATCH])
        opt.zero_grad(set_to_none=True)
        logits = model(xs)
        loss = F.cross_entropy(logits.reshape(-1, CLASSES), ys.reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses, np.float32)


def save_final(model, groups, folder):
    os.makedirs(folder, exist_ok=True)
    state = model.state_dict(keep_vars=True)
    for init, names in groups.items():
        value = state[names[0]].detach().numpy()
        if init.startswith("onnx::MatMul"):  # A transposed copy.
            value = value.T
        np.save(os.path.join(folder, init + ".npy"), np.ascontiguousarray(value))
    for name, value in model.named_buffers():
        if "running_" in name:
            np.save(os.path.join(folder, name + ".npy"), value.numpy())


def main(out, names):
    torch.set_num_threads(1)
    os.makedirs(out, exist_ok=True)
    for name in names:
        model, spec, label_shape = build(name)
        model.eval()
        x, y = data(name, spec, label_shape)
        blob = export(model, x[:BATCH], spec[0])
        proto = onnx.load_from_string(blob)
        onnx.checker.check_model(proto)
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(blob)
        groups = tied_groups(proto, model)
        with open(os.path.join(out, name + ".tied.json"), "w") as f:
            json.dump(groups, f, indent=1)
            f.write("\n")
        np.save(os.path.join(out, name + ".x.npy"), x)
        np.save(os.path.join(out, name + ".labels.npy"), y)
        shared = {k: v for k, v in groups.items() if len(v) > 1}
        for optimizer in ("sgd", "adamw"):
            reference, _, _ = build(name)
            tie(reference, groups)
            losses = trajectory(reference, x, y, optimizer)
            np.save(os.path.join(out, f"{name}.{optimizer}.losses.npy"), losses)
            if optimizer == "sgd":
                save_final(reference, groups, os.path.join(out, f"{name}.sgd.final"))
            print(name, optimizer, losses.tolist())
        print(f"{name}: {len(groups)} initializers, {len(shared)} shared by "
              f"{sum(len(v) for v in shared.values())} parameters")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "test", "Training", "Inputs",
        "shared"), sys.argv[2:] or ["densenet", "encoder", "tied", "gpt"])
