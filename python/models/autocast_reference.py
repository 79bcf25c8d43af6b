#!/usr/bin/env python3
"""PyTorch's bf16 mixed-precision trajectory of the test GPT, the reference
for `oneflow-opt --precision=bf16` (test/Training/bf16.test).

    /usr/bin/python3 python/models/autocast_reference.py [--out DIR]

Starts from the weights the GPT's ONNX files were exported with
(test/Import/ONNX/Inputs/torch/gpt.init_state.npz) and trains STEPS steps on
the GPT training batches (batch i % 10 at step i, what `oneflow-run --data`
feeds from the flattened samples) with AdamW(lr=1e-3) and SGD(lr=0.1):

  gpt.bf16.adamw.losses.npy, gpt.bf16.sgd.losses.npy
      the forward and loss under torch.autocast("cpu", dtype=torch.bfloat16)
      (linear layers and matmuls in bf16, f32 parameters, optimizer state
      and loss), backward and step outside it, as PyTorch's AMP recipe says;
  gpt.f32.adamw.losses.npy, gpt.f32.sgd.losses.npy
      the same steps in f32, to show how far bf16 moves the trajectory;
  gpt.bf16.adamw.final/NAME.npy
      the f32 master weights after the last step, under their ONNX
      initializer names (gpt_opset17.params.json);
  gpt.bf16.logits.npy
      the initial model's logits for gpt.input.tokens.npy under autocast
      (bf16, rounded to f32), against which an f32 computation is off by
      the bf16 rounding.
"""

import argparse
import json
import os
import sys

import numpy as np
import torch
from torch.nn import functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gpt  # noqa: E402

TORCH_INPUTS = os.path.join(REPO, "test", "Import", "ONNX", "Inputs", "torch")
STEPS = 20
OPTIMIZERS = {"adamw": (torch.optim.AdamW, {"lr": 1e-3}), "sgd": (torch.optim.SGD, {"lr": 0.1})}


def trajectory(precision, optimizer):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = gpt.build()
    state = np.load(os.path.join(TORCH_INPUTS, "gpt.init_state.npz"))
    model.load_state_dict({k: torch.from_numpy(state[k]) for k in state.files})
    model.train()
    tokens = np.load(os.path.join(TORCH_INPUTS, "gpt.train.tokens.npy"))
    targets = np.load(os.path.join(TORCH_INPUTS, "gpt.train.targets.npy"))
    cls, kwargs = OPTIMIZERS[optimizer]
    opt = cls(model.parameters(), **kwargs)
    losses = []
    for step in range(STEPS):
        i = step % len(tokens)
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
            logits = model(torch.from_numpy(tokens[i]))
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                   torch.from_numpy(targets[i]).reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    weights = {n: p.detach().numpy().copy() for n, p in model.named_parameters()}
    return np.asarray(losses, dtype=np.float32), weights


def save_onnx_named(weights, folder):
    with open(os.path.join(TORCH_INPUTS, "gpt_opset17.params.json")) as f:
        params = json.load(f)
    os.makedirs(folder, exist_ok=True)
    for name, entry in params["initializers"].items():
        if entry["kind"] != "parameter":
            continue
        value = weights[entry["source"]]
        if entry["transform"] == "transpose":
            value = value.T
        np.save(os.path.join(folder, name + ".npy"), np.ascontiguousarray(value))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(REPO, "test", "Training", "Inputs", "bf16"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    model = gpt.build()
    state = np.load(os.path.join(TORCH_INPUTS, "gpt.init_state.npz"))
    model.load_state_dict({k: torch.from_numpy(state[k]) for k in state.files})
    model.eval()
    tokens = torch.from_numpy(np.load(os.path.join(TORCH_INPUTS, "gpt.input.tokens.npy")))
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(tokens).float().numpy()
    np.save(os.path.join(args.out, "gpt.bf16.logits.npy"), logits)
    for optimizer in OPTIMIZERS:
        for precision in ("bf16", "f32"):
            losses, weights = trajectory(precision, optimizer)
            np.save(os.path.join(args.out, f"gpt.{precision}.{optimizer}.losses.npy"), losses)
            if precision == "bf16" and optimizer == "adamw":
                save_onnx_named(weights, os.path.join(args.out, "gpt.bf16.adamw.final"))
            print(precision, optimizer, " ".join(f"{v:.5f}" for v in losses))


if __name__ == "__main__":
    main()
