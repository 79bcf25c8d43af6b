#!/usr/bin/env python3
"""Exports the torchvision-style classifiers of vision.py to ONNX with reference outputs.

    /usr/bin/python3 python/models/export_vision.py [--out DIR]

Default output folder: test/E2E/Inputs/vision/. For every model M and batch B in (1, 4):

  M_b<B>.onnx             torch.onnx.export, opset 17, eval mode, static shapes, constant
                          folding on (what a user's export looks like)
  M_b<B>.input.x.npy      the input images, [B, 3, 64, 64]
  M_b<B>.output.logits.npy  PyTorch's logits for them

The script is deterministic: a second run rewrites byte-identical files.
"""

import argparse
import io
import os
import sys
import warnings

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import vision  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_OUT = os.path.join(REPO, "test", "E2E", "Inputs", "vision")
BATCHES = (1, 4)
OPSET = 17


def save_npy(path, arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def export(model, x, path):
    f = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.from_numpy(x),), f, opset_version=OPSET,
                          do_constant_folding=True, input_names=["x"], output_names=["logits"],
                          training=torch.onnx.TrainingMode.EVAL)
    with open(path, "wb") as out:
        out.write(f.getvalue())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--only", default="", help="comma-separated model names")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    names = args.only.split(",") if args.only else list(vision.MODELS)
    for index, name in enumerate(names):
        model = vision.build(name, seed=index)
        for batch in BATCHES:
            rng = np.random.RandomState(1000 * index + batch)
            x = rng.standard_normal((batch, 3, 64, 64)).astype(np.float32)
            stem = os.path.join(args.out, f"{name}_b{batch}")
            export(model, x, stem + ".onnx")
            with torch.no_grad():
                logits = model(torch.from_numpy(x)).numpy()
            save_npy(stem + ".input.x.npy", x)
            save_npy(stem + ".output.logits.npy", logits)
            print(f"{name} b{batch}: {os.path.getsize(stem + '.onnx')} bytes")


if __name__ == "__main__":
    main()
