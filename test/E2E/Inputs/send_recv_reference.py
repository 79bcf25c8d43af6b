"""Writes the input and the expected outputs of send-recv.mlir to DIR."""
import sys

import numpy as np

out = sys.argv[1]
x = np.random.default_rng(7).standard_normal((4, 8)).astype(np.float32)
np.save(f"{out}/x.npy", x)
np.save(f"{out}/x4.npy", x[0, :4].copy())
y = np.maximum(x, 0)  # rank 0
z = y * 2 + 1  # rank 1
np.save(f"{out}/z.npy", z)
np.save(f"{out}/s.npy", np.exp(x) + -x)  # two sends, added on rank 1
q = z - y  # rank 1, sent while rank 0 sends p
np.save(f"{out}/q.npy", q)
np.save(f"{out}/t.npy", z * z + q)  # p = z * z from rank 0, plus q
# send-recv-variable.mlir: 3 steps from w0 with x = 1.
np.save(f"{out}/ones.npy", np.ones(4, np.float32))
np.save(f"{out}/w3.npy", 2 * (np.array([1, 2, 3, 4], np.float32) + 2))
