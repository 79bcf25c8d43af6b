#!/usr/bin/env python3
"""Models exported by PyTorch whose outputs have data-dependent lengths, with
PyTorch's outputs as references (NonMaxSuppression, Unique, NonZero;
issue 21).

  /usr/bin/python3 python/models/data_dependent.py [OUT]

writes into OUT (default test/E2E/Inputs/data-dependent):
  detector.onnx        opset 13: a conv backbone over a [1, 3, 32, 32] image, a
                       head with 4 box deltas and CLASSES logits per cell of the
                       8x8 map, boxes decoded around fixed anchors, each box's
                       best class and its softmax score, then torchvision's
                       batched_nms (IoU 0.5) and the first MAX_DETECTIONS kept:
                       outputs boxes [n, 4], scores [n], labels [n], where n
                       depends on the image
  detector.x.npy       the image
  detector.{boxes,scores,labels}.npy   PyTorch's outputs
  dedupe.onnx          opset 13: torch.unique (sorted, with counts and the
                       inverse) over TOKENS token ids, an embedding of each
                       distinct token scaled by its count: outputs values [k],
                       weighted [k, 4], inverse [TOKENS]
  dedupe.tokens.npy, dedupe.{values,weighted,inverse}.npy
  masked.onnx          opset 13: a Linear over [ROWS, 6] features, the rows
                       whose outputs sum above 0 (boolean indexing: NonZero,
                       GatherND) through a softmax along each row, and the
                       coordinates of the outputs above 0.3 (torch.nonzero):
                       outputs rows [r, 4], coords [c, 2]
  masked.x.npy, masked.{rows,coords}.npy

Random weights are scaled so that fewer than MAX_DETECTIONS boxes survive:
the outputs are shorter than the most the plan has room for. The script is
deterministic (single-threaded CPU torch).
"""
import os
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn
import torchvision

CLASSES, MAX_DETECTIONS, CELLS, TOKENS, ROWS = 3, 100, 8, 12, 10


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
        self.head = nn.Conv2d(32, 4 + CLASSES, 3, padding=1)
        centers = (torch.arange(CELLS, dtype=torch.float32) + 0.5) * 4
        cy, cx = torch.meshgrid(centers, centers, indexing="ij")
        self.register_buffer("anchors", torch.stack(
            [cx - 6, cy - 6, cx + 6, cy + 6], -1).reshape(-1, 4))

    def forward(self, x):
        out = self.head(self.backbone(x))          # [1, 4 + C, 8, 8]
        out = out.flatten(2).transpose(1, 2)[0]    # [64, 4 + C]
        boxes = self.anchors + out[:, :4] * 4
        probs = out[:, 4:].softmax(-1)
        scores, labels = probs.max(-1)
        keep = torchvision.ops.batched_nms(boxes, scores, labels, 0.5)
        keep = keep[:MAX_DETECTIONS]
        return boxes[keep], scores[keep], labels[keep]


class Dedupe(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 4)

    def forward(self, tokens):
        values, inverse, counts = torch.unique(
            tokens, sorted=True, return_inverse=True, return_counts=True)
        return values, self.embed(values) * counts.unsqueeze(1).float(), inverse


class Masked(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 4)

    def forward(self, x):
        h = self.proj(x)
        return h[h.sum(-1) > 0].softmax(-1), torch.nonzero(h > 0.3)


def export(model, inputs, path, input_names, output_names):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, inputs, path, opset_version=13,
                          input_names=input_names, output_names=output_names)


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "test", "E2E", "Inputs",
        "data-dependent")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = Detector().eval()
    x = torch.randn(1, 3, 32, 32)
    with torch.no_grad():
        boxes, scores, labels = model(x)
    assert 0 < len(boxes) < MAX_DETECTIONS, len(boxes)
    export(model, (x,), os.path.join(out, "detector.onnx"), ["x"],
           ["boxes", "scores", "labels"])
    np.save(os.path.join(out, "detector.x.npy"), x.numpy())
    for name, value in [("boxes", boxes), ("scores", scores),
                        ("labels", labels)]:
        np.save(os.path.join(out, f"detector.{name}.npy"), value.numpy())
    print(f"{len(boxes)} of {CELLS * CELLS} boxes kept")

    model = Dedupe().eval()
    tokens = torch.randint(0, 20, (TOKENS,))
    with torch.no_grad():
        outputs = model(tokens)
    assert len(outputs[0]) < TOKENS
    export(model, (tokens,), os.path.join(out, "dedupe.onnx"), ["tokens"],
           ["values", "weighted", "inverse"])
    np.save(os.path.join(out, "dedupe.tokens.npy"), tokens.numpy())
    for name, value in zip(["values", "weighted", "inverse"], outputs):
        np.save(os.path.join(out, f"dedupe.{name}.npy"), value.numpy())
    print(f"{len(outputs[0])} of {TOKENS} tokens distinct")

    model = Masked().eval()
    x = torch.randn(ROWS, 6)
    with torch.no_grad():
        rows, coords = model(x)
    assert 0 < len(rows) < ROWS and 0 < len(coords) < ROWS * 4
    export(model, (x,), os.path.join(out, "masked.onnx"), ["x"],
           ["rows", "coords"])
    np.save(os.path.join(out, "masked.x.npy"), x.numpy())
    np.save(os.path.join(out, "masked.rows.npy"), rows.numpy())
    np.save(os.path.join(out, "masked.coords.npy"), coords.numpy())
    print(f"{len(rows)} of {ROWS} rows, {len(coords)} of {ROWS * 4} outputs")


if __name__ == "__main__":
    main(sys.argv)
