"""same_outputs.py GOT_DIR REF_DIR [--rtol R] [--atol A]

Every REF_DIR/*.npy (the outputs oneflow-run wrote) has a GOT_DIR twin of
the same shape and dtype within atol + rtol * |ref|; prints the largest
absolute and relative differences."""
import os
import sys

import numpy as np


def option(args, name, default):
    if name in args:
        i = args.index(name)
        value = float(args[i + 1])
        del args[i:i + 2]
        return value
    return default


args = sys.argv[1:]
rtol = option(args, "--rtol", 1e-4)
atol = option(args, "--atol", 1e-5)
got_dir, ref_dir = args
names = sorted(f for f in os.listdir(ref_dir) if f.endswith(".npy"))
if not names:
    sys.exit(f"error: no outputs in {ref_dir}")
worst_abs = worst_rel = 0.0
for name in names:
    got = np.load(os.path.join(got_dir, name))
    ref = np.load(os.path.join(ref_dir, name))
    if got.shape != ref.shape or got.dtype != ref.dtype:
        sys.exit(f"error: {name}: {got.dtype}{list(got.shape)} vs "
                 f"{ref.dtype}{list(ref.shape)}")
    g, r = got.astype(np.float64), ref.astype(np.float64)
    if not np.all(np.isfinite(g) == np.isfinite(r)):
        sys.exit(f"error: {name}: non-finite values differ")
    diff = np.abs(g - r)
    diff[~np.isfinite(r)] = 0.0
    worst_abs = max(worst_abs, float(diff.max(initial=0.0)))
    rel = diff / np.maximum(np.abs(r), atol)
    worst_rel = max(worst_rel, float(rel.max(initial=0.0)))
    if np.any(diff > atol + rtol * np.abs(r)):
        sys.exit(f"error: {name} differs: max abs {diff.max():.3g}")
print(f"same outputs: {len(names)}, max abs difference {worst_abs:.2g}, "
      f"max relative difference {worst_rel:.2g}")
