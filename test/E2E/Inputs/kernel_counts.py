#!/usr/bin/env python3
"""Checks the kernel reports of `oneflow-opt --emit=plan` (its stderr).

  kernel_counts.py FUSED_REPORT UNFUSED_REPORT --min-ratio R

Both files hold the line "kernels: N over K rank(s) ...". Passes (and prints
the counts) when the unfused plan has at least R times the fused plan's
kernels; exits 1 otherwise.
"""
import argparse
import re
import sys


def kernels(path):
    with open(path) as f:
        match = re.search(r"^kernels: (\d+) over (\d+) rank", f.read(), re.M)
    if not match:
        sys.exit(f"{path}: no kernel report")
    return int(match.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fused")
    parser.add_argument("unfused")
    parser.add_argument("--min-ratio", type=float, required=True)
    args = parser.parse_args()
    fused, unfused = kernels(args.fused), kernels(args.unfused)
    ratio = unfused / fused
    verdict = "ok" if ratio >= args.min_ratio else "too few fused"
    print(f"{verdict}: {unfused} kernels unfused, {fused} fused "
          f"(ratio {ratio:.2f}, at least {args.min_ratio:g})")
    return 0 if ratio >= args.min_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
