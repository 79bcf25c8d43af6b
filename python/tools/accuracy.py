#!/usr/bin/env python3
"""Classification accuracy of saved logits.

    /usr/bin/python3 python/tools/accuracy.py LOGITS.npy LABELS.npy [--min PERCENT] [--name test]

LOGITS.npy holds [..., C] scores (e.g. oneflow-run's --output-dir DIR/logits.npy), LABELS.npy the
int class of each row, [...] (the same leading shape, or flat with the same number of rows).
Prints e.g. "test accuracy: 97.22% (350/360)"; exits 1 if the accuracy is below --min (a percentage,
e.g. --min 95), 2 on bad input.
"""

import argparse
import sys

import numpy as np


def accuracy(logits, labels):
    logits = np.asarray(logits)
    labels = np.asarray(labels)
    if logits.ndim < 1 or logits.shape[-1] < 1:
        raise ValueError(f"logits must be [..., C], got shape {list(logits.shape)}")
    pred = logits.reshape(-1, logits.shape[-1]).argmax(axis=-1)
    if not np.issubdtype(labels.dtype, np.integer):
        if not np.all(labels == np.round(labels)):
            raise ValueError(f"labels must be integers, got dtype {labels.dtype}")
        labels = labels.astype(np.int64)
    labels = labels.reshape(-1)
    if labels.shape[0] != pred.shape[0]:
        raise ValueError(f"{pred.shape[0]} rows of logits {list(logits.shape)} but {labels.shape[0]} labels")
    if labels.size and (labels.min() < 0 or labels.max() >= logits.shape[-1]):
        raise ValueError(f"labels must be in [0, {logits.shape[-1]}), got [{labels.min()}, {labels.max()}]")
    if not np.all(np.isfinite(logits)):
        raise ValueError("logits contain NaN or Inf")
    correct = int((pred == labels).sum())
    return correct, int(labels.size)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logits")
    p.add_argument("labels")
    p.add_argument("--min", type=float, default=None, metavar="PERCENT",
                   help="exit 1 if the accuracy is below this percentage")
    p.add_argument("--name", default="test", help="word printed before 'accuracy' (default: test)")
    args = p.parse_args(argv)
    try:
        correct, total = accuracy(np.load(args.logits), np.load(args.labels))
    except (OSError, ValueError) as e:
        print(f"accuracy.py: error: {e}", file=sys.stderr)
        return 2
    if total == 0:
        print("accuracy.py: error: no labels", file=sys.stderr)
        return 2
    pct = 100.0 * correct / total
    print(f"{args.name} accuracy: {pct:.2f}% ({correct}/{total})")
    if args.min is not None and pct < args.min:
        print(f"accuracy.py: {pct:.2f}% is below the required {args.min:g}%", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
