"""compare.py GOT.npy EXPECTED.npy: prints "match" when they agree to float32
rounding (rtol 1e-4, atol 1e-5), otherwise fails with the largest error."""
import sys

import numpy as np

got, expected = np.load(sys.argv[1]), np.load(sys.argv[2])
assert got.shape == expected.shape, (got.shape, expected.shape)
assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
error = float(np.abs(got.astype(np.float64) - expected).max())
if not np.allclose(got, expected, rtol=1e-4, atol=1e-5):
    sys.exit(f"mismatch: max abs error {error}")
print(f"match {got.dtype} {list(got.shape)}")
