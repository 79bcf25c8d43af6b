#!/usr/bin/env python3
"""Compiles every model the CPU end-to-end suite runs into a CUDA plan.

Each model is compiled with `oneflow-opt MODEL FLAGS --device=cuda
--emit=plan -o DIR` (sm_80 and sm_90 cubins through ptxas, and PTX) and
checked:

- oneflow-opt succeeds and reports its GPU kernels (`cuda: N GPU kernels
  from K kernels; L library calls`) and, per architecture, the most
  registers per thread and how many kernels spill;
- kernels.so leaves undefined only the runtime's CUDA ABI (`oneflow_cuda_*`)
  and the loader's weak symbols: host code never touches device memory
  through libc (no memcpy, malloc, ...);
- the fatbin's PTX calls no `__nv_*` function (libdevice is linked in).

It also counts the one-thread kernels (`.maxntid 1, 1, 1`: host work that
oneflow-move-host-work-to-gpu wrapped in a launch of one thread, or an
elementwise nest over one element).

Models (the CPU suite's, with the flags its tests use): the ONNX backend
tests that pass end to end on the CPU (E2E/backend/expected_passes.txt), the
PyTorch models (MLP, GPT, ResNet; inference, SGD and AdamW training, 2x2
meshes, 2-stage GPipe and 1F1B pipelines), the torchvision-style models
(E2E/Inputs/vision: inference at batch 1 and 4, training at batch 4), the
shared-parameter training models (Training/Inputs/shared) and the
hand-written graphs of E2E/Inputs.

  compile_models.py --bin build/bin               # the CI set
  compile_models.py --bin build/bin --suite full  # everything
  compile_models.py ... --filter gpt --keep /tmp/c --verbose

The CI set takes one backend test per ONNX op type (the first passing test
that brings a new op) and every model but repeats that compile the same
kernels at other sizes or through another import path: of the vision
models, batch 1 of two of them (CI_BATCH1) and training of five (CI_TRAIN;
their forward ops compile at both batches, and the other trained models'
backward ops are those of these five), the PyTorch models at opset 17
only, the shared-parameter models with SGD only; the full set everything.
A failure fails the run unless expected (cuda_expected_failures.txt: `NAME
reason`, reviewed); an expected failure that now compiles fails it too, so
the list stays exact. Exit status 77 (ctest's skip) without the CUDA
toolkit (/usr/local/cuda or ONEFLOW_CUDA_ROOT).
"""

import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TEST = os.path.dirname(os.path.dirname(HERE))
TORCH = os.path.join(TEST, "Import", "ONNX", "Inputs", "torch")
VISION = os.path.join(TEST, "E2E", "Inputs", "vision")
SHARED = os.path.join(TEST, "Training", "Inputs", "shared")
BACKEND = os.path.join(TEST, "E2E", "backend", "expected_passes.txt")
BACKEND_DATA = "/usr/lib/python3/dist-packages/onnx/backend/test/data"
EXPECTED = os.path.join(HERE, "cuda_expected_failures.txt")
TIMEOUT_S = 600
SKIP = 77
# Models whose kernels must not spill registers.
NO_SPILLS = re.compile(r"^(torch|train)/(gpt|resnet)")

SGD = ["--train", "--optimizer=sgd", "--lr=0.1"]
ADAMW = ["--train", "--optimizer=adamw", "--lr=1e-3"]
MESH_2X2 = ["--mesh=2x2", "--sbp-strategy=data,tensor"]
GPIPE = ["--microbatches=2", "--stages=2", "--schedule=gpipe"]
ONEF1B = ["--microbatches=2", "--stages=2", "--schedule=1f1b"]


class Model:
    def __init__(self, name, path, flags):
        self.name, self.path, self.flags = name, path, flags


def backend_models(suite, bin_dir):
    import onnx  # only the CI selection needs the op types

    sys.path.insert(0, os.path.join(TEST, "E2E", "backend"))
    import run_backend_tests  # noqa: E402

    with open(BACKEND) as f:
        passing = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    models, seen = [], set()
    for key in passing:
        path = os.path.join(BACKEND_DATA, key, "model.onnx")
        if suite == "ci":
            graph = onnx.load(path, load_external_data=False).graph
            ops = {node.op_type for node in graph.node}
            if ops <= seen:
                continue
            seen |= ops
        # Inputs needed at import time are bound, as run_backend_tests does.
        _, binds = run_backend_tests.constant_inputs(
            bin_dir, os.path.join(BACKEND_DATA, key))
        models.append(Model(key, path, binds))
    return models


# The CI set's vision models compiled at batch 1, and trained.
CI_BATCH1 = ["mobilenet_v3_small_b1", "shufflenet_v2_b1"]
CI_TRAIN = ["convnext", "densenet", "mobilenet_v3_small", "resnext", "shufflenet_v2"]


def torch_models(suite):
    models = []

    def torch(name, opset=17):
        return os.path.join(TORCH, f"{name}_opset{opset}.onnx")

    for name in ("mlp", "gpt", "resnet"):
        for opset in (13, 17) if suite == "full" else (17,):
            models.append(Model(f"torch/{name}_opset{opset}", torch(name, opset), []))
        models.append(Model(f"torch/{name}-2x2", torch(name), MESH_2X2))
    label = {"mlp": "labels", "gpt": "targets", "resnet": "labels"}
    for name in ("mlp", "gpt", "resnet"):
        lab = [f"--label={label[name]}"]
        models.append(Model(f"train/{name}-sgd", torch(name),
                            SGD + lab + ["--momentum=0.9"]))
        models.append(Model(f"train/{name}-adamw", torch(name), ADAMW + lab))
        models.append(Model(f"train/{name}-sgd-2x2", torch(name), SGD + lab + MESH_2X2))
        models.append(Model(f"train/{name}-gpipe", torch(name), SGD + lab + GPIPE))
        models.append(Model(f"train/{name}-1f1b", torch(name), SGD + lab + ONEF1B))
    # The CPU suite's other distributed training forms.
    models.append(Model("train/gpt-adamw-2x2", torch("gpt"),
                        ADAMW + ["--label=targets"] + MESH_2X2))
    models.append(Model("train/gpt-mb2-tensor2", torch("gpt"),
                        SGD + ["--label=targets", "--microbatches=2", "--mesh=2",
                               "--sbp-strategy=tensor"]))
    models.append(Model("train/mlp-mb4", torch("mlp"), ADAMW + ["--microbatches=4"]))
    return models


def vision_models(suite):
    models = []
    stems = sorted(f[:-len(".onnx")] for f in os.listdir(VISION) if f.endswith(".onnx"))
    for stem in stems:
        if suite == "full" or not stem.endswith("_b1") or stem in CI_BATCH1:
            models.append(Model(f"vision/{stem}", os.path.join(VISION, stem + ".onnx"), []))
    for stem in stems:
        if stem.endswith("_b4") and (suite == "full" or stem[:-3] in CI_TRAIN):
            models.append(Model(f"train/{stem[:-3]}", os.path.join(VISION, stem + ".onnx"),
                                SGD + ["--label=labels", "--loss=cross-entropy"]))
    return models


def shared_models(suite):
    models = []
    for name in ("densenet", "encoder", "tied"):
        path = os.path.join(SHARED, name + ".onnx")
        models.append(Model(f"train/shared-{name}-sgd", path, SGD + ["--label=labels"]))
        if suite == "full":
            models.append(Model(f"train/shared-{name}-adamw", path,
                                ADAMW + ["--label=labels"]))
    models.append(Model("train/shared-tied-mb2-data2", os.path.join(SHARED, "tied.onnx"),
                        ADAMW + ["--label=labels", "--microbatches=2", "--mesh=2",
                                 "--sbp-strategy=data"]))
    return models


# The hand-written graphs the CPU end-to-end tests compile (E2E/Inputs).
E2E_INPUTS = ["ops", "pinned-cast", "send-recv", "send-recv-cycle",
              "send-recv-unmatched", "send-recv-variable", "send-recv-wrong-peer"]


def mlir_models():
    return [Model(f"mlir/{name}", os.path.join(TEST, "E2E", "Inputs", name + ".mlir"), [])
            for name in E2E_INPUTS]


def extract_ptx(fatbin):
    """The PTX images of a fatbin (stored uncompressed, NUL-terminated)."""
    with open(fatbin, "rb") as f:
        data = f.read()
    images, start = [], 0
    while True:
        found = data.find(b"\n.version ", start)
        if found < 0:
            return images
        begin = data.rfind(b"\0", 0, found) + 1
        end = data.find(b"\0", found)
        end = end if end >= 0 else len(data)
        images.append(data[begin:end].decode(errors="replace"))
        start = end


def undefined_symbols(library):
    done = subprocess.run(["nm", "-D", "--undefined-only", library],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"nm failed: {done.stderr.strip()}"
    bad = []
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1]
        # Weak references (w/v: the loader's and libgcc's hooks) resolve to
        # nothing when absent; strong ones must be the runtime's CUDA ABI.
        if kind in ("w", "v") or name.startswith("oneflow_cuda_"):
            continue
        bad.append(name)
    return bad, None


REPORT = re.compile(r"cuda: (\d+) GPU kernels from (\d+) kernels; (\d+) library calls")
ARCH = re.compile(r"cuda (sm_\w+): at most (\d+) registers per thread, (\d+) kernels spill")


def first_error(stderr):
    for line in stderr.splitlines():
        match = re.search(r"error: (.*)", line)
        if match:
            return match.group(1).strip()
    lines = stderr.strip().splitlines()
    return lines[-1] if lines else "(no output)"


def compile_model(opt, model, work, keep):
    """A dict of what compiling `model` gave: ok, error, figures."""
    result = check_plan(opt, model, work)
    if not keep:
        shutil.rmtree(result["plan"], ignore_errors=True)
    return result


def check_plan(opt, model, work):
    plan = os.path.join(work, re.sub(r"[^A-Za-z0-9_.-]", "_", model.name))
    args = [opt, model.path] + model.flags + ["--device=cuda", "--emit=plan", "-o", plan]
    result = {"ok": False, "error": "", "launches": 0, "kernels": 0, "calls": 0,
              "archs": {}, "single": 0, "seconds": 0.0, "plan": plan}
    start = time.time()
    try:
        done = subprocess.run(args, capture_output=True, text=True, errors="replace",
                              timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        result["error"] = "oneflow-opt hangs"
        return result
    except OSError as error:
        result["error"] = f"cannot start oneflow-opt: {error}"
        return result
    result["seconds"] = time.time() - start
    if done.returncode != 0:
        kind = "" if done.returncode == 1 else f"oneflow-opt exit {done.returncode}: "
        result["error"] = kind + first_error(done.stderr)
        return result
    match = REPORT.search(done.stderr)
    if not match:
        result["error"] = "no cuda report line"
        return result
    result["launches"], result["kernels"], result["calls"] = map(int, match.groups())
    for arch, registers, spills in ARCH.findall(done.stderr):
        result["archs"][arch] = (int(registers), int(spills))
    if result["launches"] == 0:
        # Library calls only: host code, no fatbin.
        bad, problem = undefined_symbols(os.path.join(plan, "kernels.so"))
        if problem or bad:
            result["error"] = problem or "kernels.so needs " + ", ".join(sorted(bad)[:5])
        elif os.path.exists(os.path.join(plan, "kernels.fatbin")):
            result["error"] = "a fatbin without GPU kernels"
        else:
            result["ok"] = True
        return result
    if sorted(result["archs"]) != ["sm_80", "sm_90"]:
        result["error"] = f"architectures {sorted(result['archs'])}, expected sm_80, sm_90"
        return result
    bad, problem = undefined_symbols(os.path.join(plan, "kernels.so"))
    if problem:
        result["error"] = problem
        return result
    if bad:
        result["error"] = "kernels.so needs " + ", ".join(sorted(bad)[:5])
        return result
    images = extract_ptx(os.path.join(plan, "kernels.fatbin"))
    if not images:
        result["error"] = "no PTX in kernels.fatbin"
        return result
    ptx = images[-1]
    externs = sorted(set(re.findall(r"\b(__nv_\w+)", ptx)))
    if externs:
        result["error"] = "PTX calls " + ", ".join(externs[:5])
        return result
    entries = len(re.findall(r"^\.(?:visible )?\.entry ", ptx, re.M))
    if entries != result["launches"]:
        # Launches of one GPU function share its entry; fewer is fine.
        if entries > result["launches"]:
            result["error"] = f"{entries} PTX entries for {result['launches']} launches"
            return result
    result["single"] = len(re.findall(r"^\.maxntid 1, 1, 1$", ptx, re.M))
    spilling = [a for a, (_, s) in result["archs"].items() if s]
    if spilling and NO_SPILLS.search(model.name):
        result["error"] = "kernels spill on " + ", ".join(spilling)
        return result
    result["ok"] = True
    return result


def read_expected(path):
    expected = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    name, _, reason = line.partition(" ")
                    expected[name] = reason.strip()
    return expected


def toolkit():
    root = os.environ.get("ONEFLOW_CUDA_ROOT", "/usr/local/cuda")
    tools = [os.path.join(root, "bin", t) for t in ("ptxas", "fatbinary")]
    return root if all(os.access(t, os.X_OK) for t in tools) else None


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="folder holding oneflow-opt")
    parser.add_argument("--suite", choices=["ci", "full"], default="ci")
    parser.add_argument("--expect", default=EXPECTED)
    parser.add_argument("--filter", default="", help="only models whose name contains this")
    parser.add_argument("--groups", default="backend,torch,vision,shared,mlir",
                        help="comma-separated model groups to compile")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", default=None, help="keep the plans under this folder")
    parser.add_argument("--verbose", action="store_true", help="a row per model")
    args = parser.parse_args()

    root = toolkit()
    if not root:
        print("SKIP: no CUDA toolkit (ptxas, fatbinary) at /usr/local/cuda or "
              "ONEFLOW_CUDA_ROOT")
        return SKIP
    opt = os.path.join(args.bin, "oneflow-opt")
    groups = [("backend", backend_models(args.suite, args.bin) if "backend" in args.groups else []),
              ("torch", torch_models(args.suite)),
              ("vision", vision_models(args.suite)), ("shared", shared_models(args.suite)),
              ("mlir", mlir_models())]
    wanted = args.groups.split(",")
    groups = [(group, ms) for group, ms in groups if group in wanted]
    models = [(group, m) for group, ms in groups for m in ms if args.filter in m.name]

    work = args.keep or tempfile.mkdtemp(prefix="cuda-compile-")
    os.makedirs(work, exist_ok=True)
    start = time.time()
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(
                lambda gm: compile_model(opt, gm[1], work, args.keep), models))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    expected = read_expected(args.expect)
    failures = []
    counts = collections.defaultdict(collections.Counter)
    single = collections.Counter()
    width = max([len(m.name) for _, m in models] + [5])
    rows = []
    for (group, model), result in zip(models, results):
        if result["ok"]:
            status = "ok"
            if model.name in expected:
                status = "UNEXPECTED PASS"
                failures.append(f"NOW COMPILES {model.name}: remove it from "
                                f"{os.path.basename(args.expect)}")
            regs = " ".join(f"{a}:{r}r/{s}s" for a, (r, s) in sorted(result["archs"].items()))
            detail = (f"{result['launches']:4d} gpu {result['single']:3d} 1-thread "
                      f"{result['calls']:3d} calls  {regs}")
            single[group] += result["single"]
        elif model.name in expected:
            status, detail = "expected", result["error"]
        else:
            status, detail = "FAIL", result["error"]
            failures.append(f"FAIL {model.name}: {result['error']}")
        counts[group][status] += 1
        row = f"{model.name:{width}}  {status:8}  {detail}  {result['seconds']:5.1f}s"
        rows.append((group, row, result))
        if args.verbose or group != "backend" or status not in ("ok", "expected"):
            print(row)

    print()
    print(f"{'suite':10} {'ok':>5} {'expected':>9} {'failed':>7} {'1-thread':>9}")
    for group, _ in groups:
        c = counts[group]
        if sum(c.values()):
            print(f"{group:10} {c['ok']:5d} {c['expected']:9d} "
                  f"{c['FAIL'] + c['UNEXPECTED PASS']:7d} {single[group]:9d}")
    spills = [f"{m.name} ({a})" for (_, m), r in zip(models, results) if r["ok"]
              for a, (_, s) in r["archs"].items() if s]
    print(f"kernels that spill: {', '.join(spills) if spills else 'none'}")
    print(f"{len(models)} models, {time.time() - start:.0f} s")
    for line in failures:
        print(line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
