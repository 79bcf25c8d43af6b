#!/usr/bin/env python3
"""Recurrent and upsampling models exported by PyTorch, with references for
their outputs and training (issue 21).

  /usr/bin/python3 python/models/recurrent.py [OUT] [NAMES...]

writes into OUT (default test/Training/Inputs/recurrent), for M in
  lstm  an LSTM language model: Embedding -> 2-layer nn.LSTM (batch_first)
        -> Linear, per-token logits [BATCH, SEQ, VOCAB]
  gru   a GRU classifier: a bidirectional nn.GRU over [BATCH, SEQ, FEATURES]
        whose two final states -> Linear -> logits [BATCH, CLASSES]
  unet  a small U-Net: conv, max pool, nn.Upsample (bilinear, and nearest),
        concatenated skip connections (inference only)

  M.onnx                opset 17, batch BATCH, random weights
  M.x.npy, M.labels.npy STEPS batches of BATCH samples, flattened
  M.logits.npy          PyTorch's output (eval mode) on the first batch
  M.sgd.losses.npy      cross-entropy losses of STEPS SGD steps (lr 0.1)
  M.adamw.losses.npy    the same with AdamW (lr 1e-2, PyTorch defaults)

The script is deterministic (single-threaded CPU torch).
"""
import io
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS, BATCH, SEQ, VOCAB, CLASSES, FEATURES = 5, 4, 8, 10, 5, 6


class LSTMLanguageModel(nn.Module):
    def __init__(self, d=16, hidden=24):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, d)
        self.lstm = nn.LSTM(d, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, VOCAB)

    def forward(self, tokens):
        y, _ = self.lstm(self.embed(tokens))
        return self.out(y)


class GRUClassifier(nn.Module):
    def __init__(self, hidden=12):
        super().__init__()
        self.gru = nn.GRU(FEATURES, hidden, batch_first=True,
                          bidirectional=True)
        self.out = nn.Linear(2 * hidden, CLASSES)

    def forward(self, x):
        _, h = self.gru(x)  # [2, BATCH, hidden]
        return self.out(torch.cat([h[0], h[1]], 1))


class UNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        conv = lambda i, o: nn.Sequential(nn.Conv2d(i, o, 3, padding=1),
                                          nn.ReLU())
        self.down1, self.down2, self.mid = conv(3, c), conv(c, 2 * c), conv(2 * c, 2 * c)
        self.up2 = nn.Upsample(scale_factor=2, mode="bilinear",
                               align_corners=False)
        self.up1 = nn.Upsample(scale_factor=2, mode="nearest")
        self.dec2, self.dec1 = conv(4 * c, c), conv(2 * c, c)
        self.head = nn.Conv2d(c, CLASSES, 1)

    def forward(self, x):
        d1 = self.down1(x)                       # [B, c, 16, 16]
        d2 = self.down2(F.max_pool2d(d1, 2))     # [B, 2c, 8, 8]
        m = self.mid(F.max_pool2d(d2, 2))        # [B, 2c, 4, 4]
        u2 = self.dec2(torch.cat([self.up2(m), d2], 1))
        u1 = self.dec1(torch.cat([self.up1(u2), d1], 1))
        return self.head(u1)


def build(name):
    torch.manual_seed({"lstm": 1, "gru": 2, "unet": 3}[name])
    if name == "lstm":
        return LSTMLanguageModel(), "tokens"
    if name == "gru":
        return GRUClassifier(), "x"
    return UNet(), "x"


def data(name):
    rng = np.random.RandomState({"lstm": 11, "gru": 12, "unet": 13}[name])
    n = STEPS * BATCH
    if name == "lstm":
        x = rng.randint(0, VOCAB, size=(n, SEQ)).astype(np.int64)
        y = rng.randint(0, VOCAB, size=(n, SEQ)).astype(np.int64)
    elif name == "gru":
        x = rng.randn(n, SEQ, FEATURES).astype(np.float32)
        y = rng.randint(0, CLASSES, size=(n,)).astype(np.int64)
    else:
        x = rng.randn(n, 3, 16, 16).astype(np.float32)
        y = rng.randint(0, CLASSES, size=(n, 16, 16)).astype(np.int64)
    return x, y


def export(model, example, input_name):
    f = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.from_numpy(example),), f,
                          opset_version=17, do_constant_folding=True,
                          input_names=[input_name], output_names=["logits"])
    return f.getvalue()


def trajectory(model, x, y, optimizer):
    model.train()
    opt = (torch.optim.SGD(model.parameters(), lr=0.1) if optimizer == "sgd"
           else torch.optim.AdamW(model.parameters(), lr=1e-2))
    losses = []
    for step in range(STEPS):
        xs = torch.from_numpy(x[step * BATCH:(step + 1) * BATCH])
        ys = torch.from_numpy(y[step * BATCH:(step + 1) * BATCH])
        opt.zero_grad(set_to_none=True)
        logits = model(xs)
        classes = logits.shape[1] if logits.dim() == 4 else logits.shape[-1]
        if logits.dim() == 4:  # Per-pixel classes: [B, C, H, W].
            logits = logits.permute(0, 2, 3, 1)
        loss = F.cross_entropy(logits.reshape(-1, classes), ys.reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses, np.float32)


def main(out, names):
    torch.set_num_threads(1)
    os.makedirs(out, exist_ok=True)
    for name in names:
        model, input_name = build(name)
        model.eval()
        x, y = data(name)
        blob = export(model, x[:BATCH], input_name)
        onnx.checker.check_model(onnx.load_from_string(blob))
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(blob)
        np.save(os.path.join(out, name + ".x.npy"), x)
        np.save(os.path.join(out, name + ".labels.npy"), y)
        with torch.no_grad():
            logits = model(torch.from_numpy(x[:BATCH])).numpy()
        np.save(os.path.join(out, name + ".logits.npy"), logits)
        if name == "unet":
            continue
        for optimizer in ("sgd", "adamw"):
            reference, _ = build(name)
            losses = trajectory(reference, x, y, optimizer)
            np.save(os.path.join(out, f"{name}.{optimizer}.losses.npy"), losses)
            print(name, optimizer, losses.tolist())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "test",
        "Training", "Inputs", "recurrent"), sys.argv[2:] or ["lstm", "gru", "unet"])
