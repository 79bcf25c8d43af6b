"""Train a PyTorch MLP on sklearn's handwritten digits with OneFlow-MLIR.

    ninja -C build
    PYTHONPATH=python /usr/bin/python3 examples/pytorch_frontend.py [--mesh 2x2] [--steps 200]

The nn.Module is traced (make_fx), compiled by oneflow-opt for the mesh
(data parallel on the first axis, tensor parallel on the second), trained by
oneflow-run on that many MPI ranks, and the trained weights come back into
the PyTorch module, which scores the held-out images.
"""

import argparse
import os
import sys

import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import oneflow_mlir as ofm  # noqa: E402
from datasets import digits  # noqa: E402


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 64)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(F.relu(self.fc2(F.relu(self.fc1(x)))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mesh", default="2x2", help="N or RxC (1 for one rank)")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()

    x, y = digits.load()
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    train_idx, test_idx = digits.split(len(x), 360, 0)
    train_idx, test_idx = torch.as_tensor(train_idx), torch.as_tensor(test_idx)

    mesh = tuple(int(d) for d in args.mesh.split("x"))
    strategy = ("data", "tensor")[:len(mesh)]
    torch.manual_seed(0)
    model = MLP()
    g = ofm.compile(model, example_inputs=(x[:args.batch],), mesh=mesh, strategy=strategy,
                    train=ofm.Train(loss=F.cross_entropy, optimizer=ofm.AdamW(lr=3e-3)))
    print(g.report().splitlines()[0])
    losses = g.fit(data=(x[train_idx], y[train_idx]), batch=args.batch, steps=args.steps,
                   shuffle=True)
    print(f"loss: step 1 {losses[0]:.4f}, step {len(losses)} {losses[-1]:.4f}")

    model.load_state_dict(g.state_dict())  # trained weights back into PyTorch
    with torch.no_grad():
        accuracy = (model(x[test_idx]).argmax(1) == y[test_idx]).float().mean().item()
    compiled = (g(x[test_idx]).argmax(1) == y[test_idx]).float().mean().item()
    print(f"held-out accuracy: PyTorch {accuracy:.3f}, compiled {compiled:.3f}")
    return 0 if accuracy > 0.9 and compiled == accuracy else 1


if __name__ == "__main__":
    sys.exit(main())
