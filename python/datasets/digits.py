#!/usr/bin/env python3
"""sklearn's handwritten digits (1797 8x8 images, 10 classes) as .npy files for oneflow-run.

    /usr/bin/python3 python/datasets/digits.py OUT_DIR [--test-size 360] [--seed 0]

Writes into OUT_DIR:

  train_x.npy  [1437, 64] float32   pixels / 16, so in [0, 1]
  train_y.npy  [1437]     int64     class 0..9
  test_x.npy   [360, 64]  float32
  test_y.npy   [360]      int64

The split is exactly sklearn's `train_test_split(X, y, test_size=0.2, random_state=0)` (no
stratification): p = numpy.random.RandomState(0).permutation(1797), test = p[:360],
train = p[360:], in that order.  It is recomputed here with NumPy, so sklearn itself need not be
importable -- only its data file, `sklearn/datasets/data/digits.csv.gz` (Debian: python3-sklearn;
or give --csv).  With sklearn present the split is checked against train_test_split.

1437 is not a multiple of the usual batch sizes (1437 = 44 * 32 + 29): that is fine, because
`oneflow-run --data NAME=FILE --batch B` takes the next B samples in order and wraps around at the
end of the data, so a step may straddle two epochs (as `--shuffle` then also reshuffles).  Give
--train-multiple B to drop the last (1437 mod B) training samples instead, for runs where every
batch should lie in one epoch.

The files are written deterministically (same bytes on every run); the script prints a summary.
"""

import argparse
import csv
import glob
import gzip
import io
import os
import sys

import numpy as np

N_SAMPLES = 1797
N_FEATURES = 64


def find_csv():
    """Path of sklearn's digits.csv.gz without importing sklearn (importing it takes ~1 s)."""
    candidates = []
    for base in sys.path + ["/usr/lib/python3/dist-packages"]:
        if base:
            candidates.append(os.path.join(base, "sklearn", "datasets", "data", "digits.csv.gz"))
    candidates += sorted(glob.glob("/usr/lib/python3*/*-packages/sklearn/datasets/data/digits.csv.gz"))
    candidates += sorted(glob.glob("/usr/local/lib/python3*/*-packages/sklearn/datasets/data/digits.csv.gz"))
    for c in candidates:
        if os.path.isfile(c):
            return c
    try:  # last resort: ask the package where it lives
        import sklearn.datasets  # noqa: F401
        path = os.path.join(os.path.dirname(sklearn.datasets.__file__), "data", "digits.csv.gz")
        if os.path.isfile(path):
            return path
    except ImportError:
        pass
    return None


def load(csv_path=None):
    """(x [1797, 64] float32 in [0, 1], y [1797] int64), in the file's (= load_digits') order."""
    csv_path = csv_path or find_csv()
    if csv_path is None:
        raise SystemExit("digits.py: cannot find sklearn/datasets/data/digits.csv.gz; install "
                         "python3-sklearn (apt-get install -y python3-sklearn) or pass --csv FILE")
    with gzip.open(csv_path, "rt") as f:
        rows = [r for r in csv.reader(f) if r]
    data = np.asarray(rows, dtype=np.float64)
    if data.shape != (N_SAMPLES, N_FEATURES + 1):
        raise SystemExit(f"digits.py: {csv_path}: expected {N_SAMPLES} rows of 65 values, got {data.shape}")
    x = (data[:, :N_FEATURES] / 16.0).astype(np.float32)
    y = data[:, N_FEATURES].astype(np.int64)
    assert x.min() >= 0.0 and x.max() <= 1.0 and set(np.unique(y)) == set(range(10))
    return x, y


def split(n, test_size, seed):
    """(train_idx, test_idx) as sklearn.model_selection.train_test_split(shuffle=True) picks them."""
    perm = np.random.RandomState(seed).permutation(n)
    return perm[test_size:], perm[:test_size]


def check_against_sklearn(x, y, test_size, seed, train_idx, test_idx):
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError:
        return "sklearn not importable, split not cross-checked"
    d = load_digits()
    np.testing.assert_array_equal((d.data / 16.0).astype(np.float32), x)
    np.testing.assert_array_equal(d.target.astype(np.int64), y)
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=test_size, random_state=seed)
    np.testing.assert_array_equal(xtr, x[train_idx])
    np.testing.assert_array_equal(xte, x[test_idx])
    np.testing.assert_array_equal(ytr, y[train_idx])
    np.testing.assert_array_equal(yte, y[test_idx])
    return "identical to sklearn's load_digits + train_test_split"


def save_npy(path, arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(buf.getvalue())
    os.replace(tmp, path)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out_dir")
    p.add_argument("--csv", help="digits.csv.gz (default: the one shipped with sklearn)")
    p.add_argument("--test-size", type=int, default=360, help="held-out samples (default 360 = 20%%)")
    p.add_argument("--seed", type=int, default=0, help="train_test_split random_state (default 0)")
    p.add_argument("--train-multiple", type=int, default=1,
                   help="drop trailing training samples so the count is a multiple of this")
    p.add_argument("--no-check", action="store_true", help="do not cross-check the split with sklearn")
    args = p.parse_args(argv)

    x, y = load(args.csv)
    if not 0 < args.test_size < len(x):
        p.error(f"--test-size must be in 1..{len(x) - 1}")
    train_idx, test_idx = split(len(x), args.test_size, args.seed)
    note = "not cross-checked" if args.no_check else check_against_sklearn(
        x, y, args.test_size, args.seed, train_idx, test_idx)
    if args.train_multiple > 1:
        train_idx = train_idx[:len(train_idx) // args.train_multiple * args.train_multiple]

    os.makedirs(args.out_dir, exist_ok=True)
    files = {
        "train_x.npy": x[train_idx], "train_y.npy": y[train_idx],
        "test_x.npy": x[test_idx], "test_y.npy": y[test_idx],
    }
    for name, arr in files.items():
        save_npy(os.path.join(args.out_dir, name), arr)
    counts = np.bincount(y[test_idx], minlength=10)
    print(f"digits: {len(train_idx)} train / {len(test_idx)} test samples, 64 features in [0, 1] "
          f"-> {args.out_dir}/{{train,test}}_{{x,y}}.npy ({note}); test classes {counts.tolist()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
