#!/usr/bin/env python3
"""Differential test: every model that runs on one rank runs distributed.

Each model is compiled for one rank and run; its outputs are the reference.
It is then compiled for `--mesh=2 --sbp-strategy=data`, `--mesh=2
--sbp-strategy=tensor` and `--mesh=2x2 --sbp-strategy=data,tensor`, run on
real MPI ranks, and every output is compared with the one-rank output (f32
rtol 1e-4; integers and booleans exactly). Training models are compiled with
`--train` and their per-step losses compared the same way.

A distribution either matches or is refused by the compiler with a
diagnostic; refusals must be listed, with their reason, in
expected_refusals.txt (a reviewed list). Wrong numbers, crashes, hangs, run
failures and unlisted refusals fail the test, and so does a listed refusal
that now compiles (the list stays exact; --update rewrites it).

  differential.py --bin build/bin                # the CI set
  differential.py --bin build/bin --suite full   # every model (see --help)
  differential.py ... --filter mobilenet --keep /tmp/d   # debug a subset

Models: the ONNX backend tests that pass on one rank (E2E/backend's list),
the project's PyTorch models (MLP, GPT, ResNet) and the torchvision-style
classifiers (E2E/Inputs/vision, batch 1 and 4); trained: the MLP, GPT,
ResNet, the shared-parameter models of Training/Inputs/shared and the
vision models. The CI set takes, of the
backend tests, the first passing test of each ONNX op type (every op the
compiler accepts, once), the PyTorch models at opset 17 and the vision
models at batch 4 and, at batch 1 (whose batch does not split over the
data axis), two of them (CI_BATCH1); the full set takes all of them
(the other opset and batch compile the same ops and SBP rules).
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
TEST = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TEST, "E2E", "backend"))
import run_backend_tests as backend  # noqa: E402

TORCH = os.path.join(TEST, "Import", "ONNX", "Inputs", "torch")
VISION = os.path.join(TEST, "E2E", "Inputs", "vision")
SHARED = os.path.join(TEST, "Training", "Inputs", "shared")
CONFIGS = [("data2", ["--mesh=2", "--sbp-strategy=data"]),
           ("tensor2", ["--mesh=2", "--sbp-strategy=tensor"]),
           ("2x2", ["--mesh=2x2", "--sbp-strategy=data,tensor"])]
RTOL, ATOL = 1e-4, 1e-5
TIMEOUT_S = 300
TRAIN_STEPS = 3


class Model:
    """One model to distribute: an ONNX file, its inputs, how to compile."""

    def __init__(self, key, path, inputs, train=None, batch=None, binds=()):
        self.key, self.path, self.inputs = key, path, inputs
        self.train, self.batch = train, batch
        self.binds = list(binds)


def backend_models(suite, bin_dir):
    with open(os.path.join(TEST, "E2E", "backend", "expected_passes.txt")) as f:
        passing = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    models, seen_ops = [], set()
    for key in passing:
        test_dir = os.path.join(backend.DATA, key)
        model = onnx.load(os.path.join(test_dir, "model.onnx"),
                          load_external_data=False)
        ops = {node.op_type for node in model.graph.node}
        if suite == "ci" and ops <= seen_ops:
            continue
        seen_ops |= ops
        inputs = backend.test_inputs(test_dir)
        # Inputs needed at import time are bound, as run_backend_tests does.
        bound, flags = backend.constant_inputs(bin_dir, test_dir)
        for name in bound:
            del inputs[name]
        models.append(Model(key, os.path.join(test_dir, "model.onnx"), inputs,
                            binds=flags))
    return models


# The CI set's vision models at batch 1.
CI_BATCH1 = ["mobilenet_v3_small_b1", "shufflenet_v2_b1"]


def project_models(suite):
    models = []
    for name, input_name in (("mlp", "x"), ("gpt", "tokens"), ("resnet", "x")):
        for opset in (13, 17) if suite == "full" else (17,):
            models.append(Model(
                f"torch/{name}_opset{opset}",
                os.path.join(TORCH, f"{name}_opset{opset}.onnx"),
                {input_name: os.path.join(TORCH, f"{name}.input.{input_name}.npy")}))
    for file in sorted(os.listdir(VISION)):
        if file.endswith(".onnx"):
            stem = file[:-len(".onnx")]
            if suite == "ci" and stem.endswith("_b1") and stem not in CI_BATCH1:
                continue
            models.append(Model(f"vision/{stem}", os.path.join(VISION, file),
                                {"x": os.path.join(VISION, f"{stem}.input.x.npy")}))
    return models


# The models trained under every distribution: one-rank losses are the
# reference. CI trains the project's models and a few vision models; the
# full set trains every vision model.
TRAIN_CI = ["mobilenet_v2", "shufflenet_v2", "convnext", "resnext"]


def training_models(suite, work):
    os.makedirs(work, exist_ok=True)

    def save(name, array):
        path = os.path.join(work, name + ".npy")
        np.save(path, np.ascontiguousarray(array))
        return path

    def flat(file):
        array = np.load(os.path.join(TORCH, file))
        return array.reshape((-1,) + array.shape[2:])

    sgd = ["--train", "--loss=cross-entropy", "--optimizer=sgd", "--lr=0.05",
           "--momentum=0.9"]
    models = [
        Model("train/mlp", os.path.join(TORCH, "mlp_opset17.onnx"),
              {"x": save("mlp.x", flat("mlp.train.x.npy")),
               "labels": save("mlp.labels", flat("mlp.train.targets.npy"))},
              train=sgd + ["--label=labels"], batch=8),
        Model("train/gpt", os.path.join(TORCH, "gpt_opset17.onnx"),
              {"tokens": save("gpt.tokens", flat("gpt.train.tokens.npy")),
               "targets": save("gpt.targets", flat("gpt.train.targets.npy"))},
              train=sgd + ["--label=targets"], batch=2),
        Model("train/resnet", os.path.join(TORCH, "resnet_opset17.onnx"),
              {"x": os.path.join(TORCH, "resnet.train.x.npy"),
               "labels": os.path.join(TORCH, "resnet.train.targets.npy")},
              train=sgd + ["--label=labels"], batch=2),
    ]
    # Models whose parameters are shared by several ops (Training/Inputs/shared).
    for name, input_name in (("densenet", "x"), ("encoder", "x"), ("tied", "tokens")):
        models.append(Model(f"train/shared-{name}", os.path.join(SHARED, f"{name}.onnx"),
                            {input_name: os.path.join(SHARED, f"{name}.x.npy"),
                             "labels": os.path.join(SHARED, f"{name}.labels.npy")},
                            train=sgd + ["--label=labels"], batch=4))
    names = sorted(f[:-len("_b4.onnx")] for f in os.listdir(VISION)
                   if f.endswith("_b4.onnx"))
    if suite == "ci":
        names = [n for n in names if n in TRAIN_CI]
    rng = np.random.RandomState(7)
    for name in names:
        x = rng.standard_normal((4 * TRAIN_STEPS, 3, 64, 64)).astype(np.float32)
        labels = rng.randint(0, 10, size=(4 * TRAIN_STEPS,)).astype(np.int64)
        models.append(Model(f"train/{name}", os.path.join(VISION, f"{name}_b4.onnx"),
                            {"x": save(name + ".x", x), "labels": save(name + ".labels", labels)},
                            train=sgd + ["--label=labels"], batch=4))
    return models


def first_error(stderr):
    """The first diagnostic, without the file prefix, rank notes folded."""
    for line in stderr.splitlines():
        match = re.search(r"error: (.*)", line)
        if match:
            return match.group(1).strip()
    lines = stderr.strip().splitlines()
    return lines[-1] if lines else "(no output)"


def compile_model(bin_dir, model, flags, plan):
    args = [os.path.join(bin_dir, "oneflow-opt"), model.path] + (model.train or []) + \
        model.binds + flags + ["--emit=plan", "-o", plan]
    try:
        done = subprocess.run(args, capture_output=True, text=True, errors="replace",
                              timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "crash", "oneflow-opt hangs"
    except OSError as error:
        return "crash", f"cannot start oneflow-opt: {error}"
    if done.returncode == 0:
        return "ok", ""
    if done.returncode == 1 and "error:" in done.stderr:
        return "refused", first_error(done.stderr)
    return "crash", f"oneflow-opt exit {done.returncode}: {done.stderr.strip()[-300:]}"


def run_plan(bin_dir, model, plan, out):
    args = [os.path.join(bin_dir, "oneflow-run"), plan, "--quiet"]
    if model.train:
        args += ["--steps", str(TRAIN_STEPS), "--batch", str(model.batch), "--metrics",
                 os.path.join(out, "metrics.jsonl")]
        for name, path in model.inputs.items():
            args += ["--data", f"{name}={path}"]
    else:
        args += ["--output-dir", out]
        for name, path in model.inputs.items():
            args += ["--input", f"{name}={path}"]
    # mpirun's session directory goes under TMPDIR: one per launch, so that
    # concurrent launches never meet there (OpenMPI's session_dir errors).
    env = dict(os.environ, TMPDIR=out)
    try:
        done = subprocess.run(args, capture_output=True, text=True, errors="replace",
                              timeout=TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        return "oneflow-run hangs"
    except OSError as error:
        return f"cannot start oneflow-run: {error}"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return f"oneflow-run exit {done.returncode}: {lines[-1] if lines else ''}"
    return None


def read_outputs(model, out):
    if model.train:
        with open(os.path.join(out, "metrics.jsonl")) as f:
            return {"loss": np.array([json.loads(l)["loss"] for l in f], dtype=np.float32)}
    graph = onnx.load(model.path, load_external_data=False).graph
    values = {}
    for output in graph.output:
        path = backend.output_file(out, output.name)
        values[output.name] = np.load(path) if os.path.exists(path) else None
    return values


def compare(got, ref):
    if got is None:
        return "no output"
    if got.shape != ref.shape or got.dtype != ref.dtype:
        return f"{got.dtype}{list(got.shape)}, expected {ref.dtype}{list(ref.shape)}"
    if ref.dtype == np.bool_ or np.issubdtype(ref.dtype, np.integer):
        return None if np.array_equal(got, ref) else "integer values differ"
    g, r = got.astype(np.float64), ref.astype(np.float64)
    if np.allclose(g, r, rtol=RTOL, atol=ATOL, equal_nan=True):
        return None
    return f"max abs error {np.nanmax(np.abs(g - r)):.3g}"


def run_model(bin_dir, model, keep):
    """[(config, status, detail)] for one model: status is matched,
    refused, mismatch or error (run failures, crashes, hangs)."""
    work = tempfile.mkdtemp(prefix="differential-", dir=keep)
    try:
        plan, out = os.path.join(work, "one"), os.path.join(work, "one-out")
        os.makedirs(out)
        status, detail = compile_model(bin_dir, model, [], plan)
        if status != "ok":
            return [("one", "error", f"one rank: {status}: {detail}")]
        problem = run_plan(bin_dir, model, plan, out)
        if problem:
            return [("one", "error", f"one rank: {problem}")]
        reference = read_outputs(model, out)
        results = []
        for name, flags in CONFIGS:
            plan, out = os.path.join(work, name), os.path.join(work, name + "-out")
            os.makedirs(out)
            status, detail = compile_model(bin_dir, model, flags, plan)
            if status == "refused":
                results.append((name, "refused", detail))
                continue
            if status != "ok":
                results.append((name, "error", detail))
                continue
            problem = run_plan(bin_dir, model, plan, out)
            if problem:
                results.append((name, "error", problem))
                continue
            got = read_outputs(model, out)
            bad = [f"{k}: {compare(got[k], v)}" for k, v in reference.items()
                   if v is not None and compare(got[k], v)]
            results.append((name, "mismatch", "; ".join(bad)) if bad else
                           (name, "matched", ""))
        return results
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def read_expected(path):
    expected = {}
    if not os.path.exists(path):
        return expected
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                key, reason = line.split(" | ", 1)
                expected[key] = reason
    return expected


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--suite", choices=["ci", "full"], default="ci")
    parser.add_argument("--expect", default=os.path.join(HERE, "expected_refusals.txt"))
    parser.add_argument("--update", action="store_true",
                        help="rewrite the refusal list from this run")
    parser.add_argument("--filter", default="")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--keep", default=None, help="keep plans and outputs under this folder")
    parser.add_argument("--no-train", action="store_true")
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="differential-data-")
    models = project_models(args.suite) + backend_models(args.suite, args.bin)
    if not args.no_train:
        models += training_models(args.suite, scratch)
    models = [m for m in models if args.filter in m.key]
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)

    start = time.time()
    seconds = {}

    def timed(model):
        begin = time.time()
        rows = run_model(args.bin, model, args.keep)
        seconds[model.key] = time.time() - begin
        return rows

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(timed, models))
    shutil.rmtree(scratch, ignore_errors=True)

    expected = read_expected(args.expect)
    counts = collections.Counter()
    reasons = collections.Counter()
    refusals, failures = {}, []
    for model, rows in zip(models, results):
        for config, status, detail in rows:
            key = f"{model.key} {config}"
            counts[status] += 1
            if status == "refused":
                refusals[key] = detail
                reasons[re.sub(r"[0-9]+", "N", detail)[:100]] += 1
                if key not in expected and not args.update:
                    failures.append(f"UNLISTED REFUSAL {key}: {detail}")
                elif key in expected and expected[key] != detail and not args.update:
                    failures.append(f"REFUSAL CHANGED {key}: {detail} "
                                    f"(listed: {expected[key]})")
            elif status != "matched":
                failures.append(f"{status.upper()} {key}: {detail}")
    ran = {f"{m.key} {c}" for m in models for c, _ in CONFIGS}
    for key in sorted(expected):
        if key in ran and key not in refusals and not args.update:
            failures.append(f"NOW DISTRIBUTES {key}: remove it from the list")

    if args.update:
        kept = {k: v for k, v in expected.items() if k not in ran}
        kept.update(refusals)
        with open(args.expect, "w") as f:
            f.write("# Distributions the compiler refuses, with the reason it gives\n"
                    "# (differential.py --update rewrites this; review every change).\n"
                    "# MODEL CONFIG | first diagnostic\n")
            for key in sorted(kept):
                f.write(f"{key} | {kept[key]}\n")

    print(f"models: {len(models)}; distributions tried: "
          f"{sum(counts[s] for s in ('matched', 'refused', 'mismatch')) + counts['error']}")
    print(f"matched {counts['matched']}, refused {counts['refused']}, "
          f"mismatches {counts['mismatch']}, errors {counts['error']} "
          f"({time.time() - start:.0f} s)")
    for reason, count in reasons.most_common():
        print(f"  refused {count}x: {reason}")
    # Where the time goes (wall seconds of each model's compiles and runs).
    slowest = sorted(seconds.items(), key=lambda kv: -kv[1])[:8]
    print("slowest: " + ", ".join(f"{key} {s:.0f} s" for key, s in slowest))
    for line in failures:
        print(line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
