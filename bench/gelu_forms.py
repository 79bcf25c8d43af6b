#!/usr/bin/env python3
"""GELU's erf form against its tanh form (what cuBLASLt's GELU epilogues
compute): the evidence behind oneflow-fold-gemm-tensor-epilogues folding
only tanh GELU (docs/architecture.md).

Prints the largest difference of the two functions (and of their
derivatives) on [-10, 10], then, on the test GPT (python/models/gpt.py, the
weights and batches of test/Import/ONNX/Inputs/torch), how far its 10-step
AdamW and SGD losses and its inference logits move when its GELUs switch
from erf to tanh form, also with its MLP blocks' first layer scaled so that
the pre-activations spread like a trained model's.

Usage: /usr/bin/python3 bench/gelu_forms.py   (torch, numpy; CPU, seconds)
"""
import copy
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "python", "models"))
import gpt  # noqa: E402

DATA = os.path.join(REPO, "test", "Import", "ONNX", "Inputs", "torch")


def functions():
    x = torch.linspace(-10, 10, 2000001, dtype=torch.float64)
    erf, tanh = F.gelu(x), F.gelu(x, approximate="tanh")
    diff = (erf - tanh).abs()
    i = diff.argmax()
    print(f"|gelu_erf - gelu_tanh| on [-10, 10]: max {diff[i]:.3g} at x = "
          f"{x[i]:.2f}")
    tail = (x < -2) & (x > -4)
    print(f"  relative to gelu_erf for -4 < x < -2: max "
          f"{(diff[tail] / erf[tail].abs()).max():.3g}")
    xe, xt = x.clone().requires_grad_(), x.clone().requires_grad_()
    F.gelu(xe).sum().backward()
    F.gelu(xt, approximate="tanh").sum().backward()
    print(f"|derivatives|: max {(xe.grad - xt.grad).abs().max():.3g}")


def with_gelu(model, approximate, scale=1.0):
    m = copy.deepcopy(model)
    for block in m.blocks:
        block.mlp.gelu = torch.nn.GELU(approximate=approximate)
        with torch.no_grad():
            block.mlp.fc.weight.mul_(scale)
            block.mlp.fc.bias.mul_(scale)
    return m


def losses(model, tokens, targets, optimizer):
    model.train()
    opt = (torch.optim.AdamW(model.parameters(), lr=1e-3)
           if optimizer == "adamw" else
           torch.optim.SGD(model.parameters(), lr=0.1))
    out = []
    for i in range(len(tokens)):
        opt.zero_grad()
        logits = model(torch.from_numpy(tokens[i]))
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                               torch.from_numpy(targets[i]).reshape(-1))
        loss.backward()
        opt.step()
        out.append(loss.item())
    return np.array(out)


def pre_activations(model, tokens):
    seen = []
    hooks = [b.mlp.fc.register_forward_hook(
        lambda mod, i, o: seen.append(o.detach().flatten()))
        for b in model.blocks]
    with torch.no_grad():
        model.eval()(torch.from_numpy(tokens))
    for h in hooks:
        h.remove()
    return torch.cat(seen)


def main():
    torch.set_num_threads(1)
    functions()
    model = gpt.GPT()
    state = np.load(os.path.join(DATA, "gpt.init_state.npz"))
    model.load_state_dict({k: torch.from_numpy(state[k]) for k in state.files})
    tokens = np.load(os.path.join(DATA, "gpt.train.tokens.npy"))
    targets = np.load(os.path.join(DATA, "gpt.train.targets.npy"))
    for scale in (1.0, 8.0):
        pre = pre_activations(with_gelu(model, "none", scale), tokens[0])
        print(f"GPT, MLP first layer x{scale:g}: pre-activations std "
              f"{pre.std():.2f}, |max| {pre.abs().max():.2f}")
        for optimizer in ("adamw", "sgd"):
            erf = losses(with_gelu(model, "none", scale), tokens, targets,
                         optimizer)
            tanh = losses(with_gelu(model, "tanh", scale), tokens, targets,
                          optimizer)
            print(f"  {optimizer} 10-step losses: max relative difference "
                  f"{np.max(np.abs(tanh - erf) / np.abs(erf)):.2g}")
    inputs = torch.from_numpy(np.load(os.path.join(DATA, "gpt.input.tokens.npy")))
    with torch.no_grad():
        erf = with_gelu(model, "none").eval()(inputs)
        tanh = with_gelu(model, "tanh").eval()(inputs)
    print(f"GPT inference logits: max abs difference "
          f"{(erf - tanh).abs().max():.2g} (largest |logit| "
          f"{erf.abs().max():.2f})")


if __name__ == "__main__":
    main()
