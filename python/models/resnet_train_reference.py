"""PyTorch reference for training the small ResNet (train mode: batch-norm
with batch statistics and running-statistics updates).

Writes, next to the exported ONNX files:
  resnet.train.x.npy [S*B, 3, 16, 16], resnet.train.targets.npy [S*B] (int64)
  resnet.sgd.losses.npy [S]   loss of step i with the weights before step i
  resnet.sgd.final/NAME.npy   every parameter and running statistic after S
                              steps (names as in the ONNX initializers)
starting from resnet.init_state.npz (the ONNX model's weights), SGD lr 0.05
momentum 0.9, batches in order.

  /usr/bin/python3 python/models/resnet_train_reference.py test/Import/ONNX/Inputs/torch
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import resnet  # noqa: E402

STEPS, BATCH = 4, 2


def main(out):
    torch.set_num_threads(1)
    model = resnet.build(0)
    state = np.load(os.path.join(out, "resnet.init_state.npz"))
    model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    model.train()
    rng = np.random.RandomState(7)
    x = rng.randn(STEPS * BATCH, 3, 16, 16).astype(np.float32)
    y = rng.randint(0, 10, size=STEPS * BATCH).astype(np.int64)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for i in range(STEPS):
        opt.zero_grad(set_to_none=True)
        xs = torch.from_numpy(x[i * BATCH:(i + 1) * BATCH])
        ys = torch.from_numpy(y[i * BATCH:(i + 1) * BATCH])
        loss = F.cross_entropy(model(xs), ys)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    np.save(os.path.join(out, "resnet.train.x.npy"), x)
    np.save(os.path.join(out, "resnet.train.targets.npy"), y)
    np.save(os.path.join(out, "resnet.sgd.losses.npy"), np.array(losses, np.float32))
    final = os.path.join(out, "resnet.sgd.final")
    os.makedirs(final, exist_ok=True)
    for name, value in model.state_dict().items():
        if name.endswith("num_batches_tracked"):
            continue
        np.save(os.path.join(final, name + ".npy"), value.numpy())
    print("losses", losses)


if __name__ == "__main__":
    main(sys.argv[1])
