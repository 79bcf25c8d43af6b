#!/usr/bin/env python3
"""Imports every model of the ONNX backend test data with oneflow-opt.

Each model must either import (exit 0) or be rejected with a diagnostic
(exit 1 and an `error:` line). A crash (a signal, or exit >= 128) or a hang
fails the run, and so does any model of the committed expectation list that
no longer imports. Prints per-folder counts and the unsupported ONNX ops,
ranked by how many models need them.

--covered names the end-to-end expectation list (ctest onnx-backend-e2e):
a model on both lists is not imported again here, since the end-to-end run
compiles it (the import first, without bound inputs, as here) and fails if
it stops passing or crashes; that is 80% of the models and of this test's
time. --update imports every model.

  check_imports.py --oneflow-opt build/bin/oneflow-opt --expect expected.txt
        [--covered ../../../E2E/backend/expected_passes.txt]
  check_imports.py ... --update      # rewrite the expectation list
"""

import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys

DATA = "/usr/lib/python3/dist-packages/onnx/backend/test/data"
FOLDERS = ["node", "pytorch-converted", "pytorch-operator", "simple"]
TIMEOUT_S = 60


def run_one(opt, model):
    try:
        proc = subprocess.run([opt, model, "-o", os.devnull],
                              capture_output=True, text=True,
                              timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "hang", ""
    if proc.returncode == 0:
        return "ok", proc.stderr
    if proc.returncode == 1 and "error:" in proc.stderr:
        return "diagnostic", proc.stderr
    return "crash", proc.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--oneflow-opt", required=True)
    parser.add_argument("--expect", required=True)
    parser.add_argument("--update", action="store_true")
    parser.add_argument("--covered", default="",
                        help="end-to-end expectation list (see above)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()

    with open(args.expect) as f:
        expected = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    covered = set()
    if args.covered and not args.update:
        with open(args.covered) as f:
            covered = {l.strip() for l in f
                       if l.strip() and not l.startswith("#")}
        covered &= set(expected)

    models = []
    for folder in FOLDERS:
        root = os.path.join(DATA, folder)
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name, "model.onnx")
            if os.path.exists(path) and f"{folder}/{name}" not in covered:
                models.append((folder, name, path))

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda m: run_one(args.oneflow_opt, m[2]),
                                models))

    counts = collections.defaultdict(collections.Counter)
    missing_ops = collections.Counter()
    imported, bad = [], []
    for (folder, name, _), (status, stderr) in zip(models, results):
        counts[folder][status] += 1
        key = f"{folder}/{name}"
        if status == "ok":
            imported.append(key)
        elif status in ("crash", "hang"):
            bad.append((key, status, stderr.strip().splitlines()[-3:]))
        for op in set(re.findall(r"^\s+(\S+) x\d+:", stderr, re.M)):
            missing_ops[op] += 1

    print("folder               imported  diagnostic  crash  hang  total")
    for folder in FOLDERS:
        c = counts[folder]
        print(f"{folder:20} {c['ok']:8} {c['diagnostic']:11} "
              f"{c['crash']:6} {c['hang']:5} {sum(c.values()):6}")
    print("\nunsupported ONNX ops, by models needing them:")
    print("  " + ", ".join(f"{op} {n}" for op, n in missing_ops.most_common()))

    if args.update:
        with open(args.expect, "w") as f:
            f.write("# Backend test models that must import (check_imports.py "
                    "--update rewrites this).\n")
            f.write("\n".join(imported) + "\n")
        print(f"\nwrote {len(imported)} entries to {args.expect}")
        expected = imported

    failed = False
    for key, status, tail in bad:
        print(f"FAIL {status}: {key}\n    " + "\n    ".join(tail))
        failed = True
    now = set(imported) | covered
    regressions = [e for e in expected if e not in now]
    for key in regressions:
        print(f"FAIL regression: {key} no longer imports")
        failed = True
    if covered:
        print(f"\n{len(covered)} expected models left to onnx-backend-e2e")
    print(f"\n{len(imported)} imported, {len(expected)} expected, "
          f"{len(regressions)} regressions, {len(bad)} crashes/hangs")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
