"""Checks the outputs of ops.mlir against numpy."""
import sys

import numpy as np

d = sys.argv[1]
x = np.load(f"{d}/x.npy").astype(np.float64)
idx = np.load(f"{d}/idx.npy")
got = lambda name: np.load(f"{d}/out/{name}.npy")


def check(name, expected, exact=False):
    value = got(name)
    ok = (np.array_equal(value, expected) if exact else
          np.allclose(value, expected, rtol=1e-5, atol=1e-6))
    print(f"{name} {'ok' if ok else 'WRONG'}")
    if not ok:
        print(value, expected, sep="\n")


e = np.exp(x - x.max(axis=3, keepdims=True))
check("softmax", e / e.sum(axis=3, keepdims=True))
check("gather", x.reshape(6, 4, 4)[idx])
check("argmax", np.argmax(x, axis=2), exact=True)
check("cumsum", np.cumsum(x, axis=2))
check("topk", -np.sort(-x, axis=3)[..., :2])
check("pool", x.reshape(2, 3, 2, 2, 2, 2).max(axis=(3, 5)))
mean = x.mean(axis=3, keepdims=True)
var = ((x - mean) ** 2).mean(axis=3, keepdims=True)
check("layer_norm", (x - mean) / np.sqrt(var + 1e-5) * np.array([1.0, 2.0, 3.0, 4.0]))
check("variable", np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32), exact=True)
