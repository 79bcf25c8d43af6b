"""Writes the inputs of ops.mlir into the directory given."""
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.RandomState(0)
np.save(f"{out}/x.npy", rng.standard_normal((2, 3, 4, 4)).astype(np.float32))
np.save(f"{out}/idx.npy", np.array([5, 0, -1, 3, 2], dtype=np.int64))
