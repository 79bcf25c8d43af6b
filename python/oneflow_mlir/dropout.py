"""The dropout masks of `oneflow.dropout`, computed in NumPy.

The compiler draws element i of a dropout op as (docs/architecture.md,
*Dropout*), in wrapping 64-bit arithmetic:

    key  = mix(seed * G + stream)
    k    = mix(key ^ (step * H))
    bits = mix(position * G + k) >> 40
    keep = bits >= ceil(ratio * 2**24)

with mix splitmix64's finalizer, G = 0x9E3779B97F4A7C15 and
H = 0xD1B54A32D192ED03. reference_dropout reproduces it, so a PyTorch
model can be run with the compiled graph's masks.
"""

import math

import numpy as np
import torch

G = np.uint64(0x9E3779B97F4A7C15)
H = np.uint64(0xD1B54A32D192ED03)


def _mix(z):
    z = z.astype(np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def keep_mask(shape, ratio, seed, stream, step):
    """The kept elements (bool, `shape`) of dropout op `stream` at `step`."""
    with np.errstate(over="ignore"):
        key = _mix(np.array(seed, dtype=np.uint64) * G + np.uint64(stream))
        k = _mix(key ^ (np.array(step, dtype=np.uint64) * H))
        pos = np.arange(int(np.prod(shape)), dtype=np.uint64)
        bits = _mix(pos * G + k) >> np.uint64(40)
    threshold = np.uint64(math.ceil(ratio * (1 << 24)))
    return torch.from_numpy((bits >= threshold).reshape(shape))


def reference_dropout(x, ratio, seed, stream, step):
    """x with oneflow.dropout's mask and scale (differentiable in x)."""
    mask = keep_mask(tuple(x.shape), ratio, seed, stream, step).to(x.dtype)
    scale = torch.tensor(1.0 / (1.0 - ratio), dtype=x.dtype)
    return x * scale * mask
