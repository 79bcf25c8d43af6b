"""Writes the input and the expected outputs of boxing-1d.mlir.in to DIR."""
import sys

import numpy as np

out = sys.argv[1]
x = np.random.default_rng(5).standard_normal((6, 12)).astype(np.float32)
np.save(f"{out}/x.npy", x)
np.save(f"{out}/s0_b.npy", np.exp(x))
np.save(f"{out}/s1_s0.npy", -np.exp(x))
np.save(f"{out}/p_b.npy", -x)
np.save(f"{out}/p_s1.npy", np.exp(x))
np.save(f"{out}/s0_p.npy", x)
np.save(f"{out}/s0_s1.npy", np.exp(x))
