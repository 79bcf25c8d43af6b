#!/usr/bin/env python3
"""Runs the ONNX backend tests end to end: oneflow-opt compiles each model of
Debian's libonnx-testdata into a plan, oneflow-run executes it on the test's
inputs, and every output is compared with the reference (rtol 1e-3, atol
1e-5; integers and booleans exactly).

An input that the compiler needs at import time (a Reshape's shape, a
Resize's scales: initializers in exported models, graph inputs in many
backend tests) is bound to the test's value with oneflow-opt
--constant-input once the compiler names it; the summary counts those
tests apart.

Each model is counted as passed, failed (wrong numbers, a run error) or
unsupported (rejected by the compiler with a diagnostic). A crash or hang of
either tool fails the run, and so does any test of the committed list that
no longer passes.

  run_backend_tests.py --bin build/bin --expect expected_passes.txt
  run_backend_tests.py ... --update     # rewrite the list
  run_backend_tests.py ... --filter test_add   # a subset, for debugging
  run_backend_tests.py ... --one-per-op --opt-flag=--gpu-kernels-on-cpu
      # the first listed test of each op type, compiled with a flag
"""

import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

DATA = "/usr/lib/python3/dist-packages/onnx/backend/test/data"
FOLDERS = ["node", "pytorch-converted"]
TIMEOUT_S = 300
RTOL, ATOL = 1e-3, 1e-5


def output_file(out_dir, name):
    """Where oneflow-run writes graph output `name` (docs/runtime.md):
    bytes outside [A-Za-z0-9_.-] and a leading '.' become %XX."""
    safe = ""
    for index, byte in enumerate(name.encode()):
        char = chr(byte)
        if (char.isascii() and (char.isalnum() or char in "_-.")) and not (
                index == 0 and char == "."):
            safe += char
        else:
            safe += "%%%02X" % byte
    if not safe:
        safe = "%"
    return os.path.join(out_dir, safe + ".npy")


def load_pb(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def compare(got, ref):
    if got.shape != ref.shape:
        return f"shape {got.shape}, expected {ref.shape}"
    if ref.dtype == np.bool_ or np.issubdtype(ref.dtype, np.integer):
        if not np.array_equal(got, ref):
            return "integer values differ"
        return None
    g, r = got.astype(np.float64), ref.astype(np.float64)
    if not np.allclose(g, r, rtol=RTOL, atol=ATOL, equal_nan=True):
        return f"max abs error {np.nanmax(np.abs(g - r))}"
    return None


BIND_RE = re.compile(r"graph input '([^']+)': --constant-input binds it")


def test_inputs(test_dir):
    """The graph inputs of a backend test (initializers aside), each with
    its data file."""
    model = onnx.load(os.path.join(test_dir, "model.onnx"),
                      load_external_data=False)
    initializers = {i.name for i in model.graph.initializer}
    data_set = os.path.join(test_dir, "test_data_set_0")
    names = [i.name for i in model.graph.input if i.name not in initializers]
    return {name: f"{data_set}/input_{index}.pb"
            for index, name in enumerate(names)}


def constant_inputs(bin_dir, test_dir):
    """The inputs the compiler needs at import time, found by importing
    alone (fast) until it names no more: --constant-input flags for them."""
    files, bound = test_inputs(test_dir), []
    while True:
        flags = [f"--constant-input={n}={files[n]}" for n in bound]
        try:
            done = subprocess.run(
                [os.path.join(bin_dir, "oneflow-opt"),
                 os.path.join(test_dir, "model.onnx"), "-o", os.devnull,
                 *flags], capture_output=True, text=True, errors="replace",
                timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return bound, flags
        wanted = [n for n in BIND_RE.findall(done.stderr)
                  if n in files and n not in bound]
        if done.returncode == 0 or not wanted:
            return bound, flags
        bound += wanted


def run_test(bin_dir, test_dir, opt_flags=()):
    """Returns (status, detail, bound inputs). An input an op needs at import
    time (a shape, axes, scales: initializers in real models, graph inputs in
    many backend tests) is bound to the test's value with --constant-input
    when the compiler asks for it, and then not fed at run time."""
    model_path = os.path.join(test_dir, "model.onnx")
    model = onnx.load(model_path, load_external_data=False)
    initializers = {i.name for i in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in initializers]
    data_set = os.path.join(test_dir, "test_data_set_0")
    input_file = {name: f"{data_set}/input_{index}.pb"
                  for index, name in enumerate(inputs)}
    bound = []
    with tempfile.TemporaryDirectory() as work:
        plan_dir = os.path.join(work, "plan")
        while True:
            binds = [f"--constant-input={n}={input_file[n]}" for n in bound]
            try:
                compile_ = subprocess.run(
                    [os.path.join(bin_dir, "oneflow-opt"), model_path,
                     "--emit=plan", "-o", plan_dir, *binds, *opt_flags],
                    capture_output=True, text=True, errors="replace",
                    timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                return "crash", "oneflow-opt hangs", bound
            if compile_.returncode == 0:
                break
            if compile_.returncode != 1 or "error:" not in compile_.stderr:
                return "crash", f"oneflow-opt exit {compile_.returncode}", bound
            wanted = [n for n in BIND_RE.findall(compile_.stderr)
                      if n in input_file and n not in bound]
            if not wanted:
                return ("unsupported", compile_.stderr.strip().splitlines()[0],
                        bound)
            bound += wanted
        args = [os.path.join(bin_dir, "oneflow-run"), plan_dir,
                "--output-dir", os.path.join(work, "out")]
        for name in inputs:
            if name not in bound:
                args += ["--input", f"{name}={input_file[name]}"]
        try:
            run = subprocess.run(args, capture_output=True, text=True,
                                 errors="replace", timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return "crash", "oneflow-run hangs", bound
        if run.returncode != 0:
            if run.returncode == 1:
                return "failed", run.stderr.strip().splitlines()[-1], bound
            return "crash", f"oneflow-run exit {run.returncode}", bound
        for index, output in enumerate(model.graph.output):
            ref = load_pb(f"{data_set}/output_{index}.pb")
            path = output_file(os.path.join(work, "out"), output.name)
            if not os.path.exists(path):
                return "failed", f"no output {output.name}", bound
            problem = compare(np.load(path), ref)
            if problem:
                return "failed", f"output {output.name}: {problem}", bound
    return "passed", "", bound


def read_expected(path):
    with open(path) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def one_per_op(tests, expect_path):
    """Of the listed tests, the first one using an op type no earlier one
    used."""
    listed = set(read_expected(expect_path))
    chosen, seen_ops = [], set()
    for folder, name, path in tests:
        if f"{folder}/{name}" not in listed:
            continue
        model = onnx.load(os.path.join(path, "model.onnx"),
                          load_external_data=False)
        ops = {node.op_type for node in model.graph.node}
        if ops <= seen_ops:
            continue
        seen_ops |= ops
        chosen.append((folder, name, path))
    return chosen


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--expect", required=True)
    parser.add_argument("--update", action="store_true")
    parser.add_argument("--filter", default="")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--opt-flag", action="append", default=[],
                        help="an extra oneflow-opt flag (repeatable)")
    parser.add_argument("--one-per-op", action="store_true",
                        help="only the first listed test of each op type "
                             "(every op the compiler accepts, once)")
    args = parser.parse_args()

    tests = []
    for folder in FOLDERS:
        for name in sorted(os.listdir(os.path.join(DATA, folder))):
            if args.filter in name:
                tests.append((folder, name, os.path.join(DATA, folder, name)))
    if args.one_per_op:
        tests = one_per_op(tests, args.expect)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(
            lambda t: run_test(args.bin, t[2], args.opt_flag), tests))

    counts = collections.defaultdict(collections.Counter)
    passed, bad = [], []
    for (folder, name, _), (status, detail, bound) in zip(tests, results):
        counts[folder][status] += 1
        key = f"{folder}/{name}"
        if status == "passed":
            passed.append(key)
            if bound:
                counts[folder]["bound"] += 1
        elif status == "crash":
            bad.append(f"CRASH {key}: {detail}")
        elif status == "failed":
            print(f"failed {key}: {detail}")
    for folder in FOLDERS:
        c = counts[folder]
        print(f"{folder}: {c['passed']} passed ({c['bound']} with inputs "
              f"bound at compile time), {c['failed']} failed, "
              f"{c['unsupported']} unsupported, {c['crash']} crashed")

    if args.update:
        with open(args.expect, "w") as f:
            f.write("# Backend tests that must pass end to end "
                    "(run_backend_tests.py --update rewrites this).\n")
            f.write("\n".join(passed) + "\n")
    expected = read_expected(args.expect)
    if args.filter or args.one_per_op:
        selected = {f"{folder}/{name}" for folder, name, _ in tests}
        expected = [e for e in expected if e in selected]
    now = set(passed)
    regressions = [e for e in expected if e not in now]
    for line in bad:
        print(line)
    for key in regressions:
        print(f"REGRESSION {key} no longer passes")
    total = collections.Counter()
    for c in counts.values():
        total.update(c)
    print(f"{total['passed']} passed, {total['failed']} failed, "
          f"{total['unsupported']} unsupported, {total['crash']} crashed; "
          f"{len(regressions)} regressions")
    return 1 if bad or regressions else 0


if __name__ == "__main__":
    sys.exit(main())
