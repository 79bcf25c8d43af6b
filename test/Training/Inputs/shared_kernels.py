"""shared_kernels.py DIR: a model whose SGD update, compiled one kernel per
op (--no-fuse), has the body of an ordinary kernel: writes DIR/model.onnx,
DIR/x.npy, DIR/y.npy and PyTorch's MSE loss over 5 SGD steps (lr 0.1) on
that batch, DIR/sgd.losses.npy.

Two layers `h = tanh(x - w1)`, `out = h - w2` with w1, w2, x of one shape
(4x8): the forward subtractions of both layers, and both parameters' update
`w - lr * g`, are one body `sub(a, b)` on 4x8. The updates write over their
parameter; the forward ones must not write over their operand.
"""
import os
import sys

import numpy as np
import torch

out = sys.argv[1]
torch.manual_seed(0)


class TwoLayers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = torch.nn.Parameter(0.5 * torch.randn(4, 8))
        self.w2 = torch.nn.Parameter(0.5 * torch.randn(4, 8))

    def forward(self, x):
        return torch.tanh(x - self.w1) - self.w2


model = TwoLayers()
x = torch.randn(4, 8)
y = torch.randn(4, 8)
torch.onnx.export(model, (x,), os.path.join(out, "model.onnx"),
                  opset_version=17, input_names=["x"], output_names=["out"],
                  do_constant_folding=False)
np.save(os.path.join(out, "x.npy"), x.numpy())
np.save(os.path.join(out, "y.npy"), y.numpy())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
for _ in range(5):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
np.save(os.path.join(out, "sgd.losses.npy"), np.array(losses, np.float32))
