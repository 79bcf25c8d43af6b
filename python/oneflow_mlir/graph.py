"""Compiled graphs: oneflow-opt and oneflow-run as subprocesses."""

import fnmatch
import inspect
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

from . import emit as emit_mod
from . import trace as trace_mod
from .crc32c import crc32c, format_crc32c
from .errors import CompileError, RunError


def _find_tool(name):
    env = os.environ.get("ONEFLOW_MLIR_BIN")
    candidates = [os.path.join(env, name)] if env else []
    here = os.path.dirname(os.path.abspath(__file__))
    candidates.append(os.path.join(here, "..", "..", "build", "bin", name))
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    found = shutil.which(name)
    if found:
        return found
    raise CompileError(f"cannot find {name}: build the project (ninja -C build) "
                       "or set ONEFLOW_MLIR_BIN to the directory holding it")


# --- Options -----------------------------------------------------------------

class Placement:
    """An SBP of a tensor on one mesh axis."""


class Split(Placement):
    def __init__(self, axis):
        self.axis = axis

    def __repr__(self):
        return f"Split({self.axis})"

    def mlir(self):
        return f"S<{self.axis}>"


class Broadcast(Placement):
    def __repr__(self):
        return "Broadcast()"

    def mlir(self):
        return "B"


class Partial(Placement):
    def __repr__(self):
        return "Partial()"

    def mlir(self):
        return "P"


# DTensor's names.
Shard = Split
Replicate = Broadcast


class Stages:
    """Pipeline stages: a new stage starts at each module path in
    split_before; microbatches in flight; schedule 1f1b or gpipe."""

    def __init__(self, split_before, microbatches=1, schedule="1f1b"):
        self.split_before = list(split_before)
        self.microbatches = microbatches
        self.schedule = schedule


class SGD:
    def __init__(self, lr, momentum=0.0, weight_decay=0.0, nesterov=False):
        self.lr, self.momentum, self.weight_decay, self.nesterov = lr, momentum, weight_decay, nesterov

    def flags(self):
        flags = ["--optimizer=sgd", f"--lr={self.lr!r}", f"--momentum={self.momentum!r}",
                 f"--weight-decay={self.weight_decay!r}"]
        return flags + (["--nesterov"] if self.nesterov else [])


class AdamW:
    """AdamW with PyTorch's betas (0.9, 0.999) and eps 1e-8."""

    def __init__(self, lr=1e-3, weight_decay=0.01):
        self.lr, self.weight_decay = lr, weight_decay

    def flags(self):
        return ["--optimizer=adamw", f"--lr={self.lr!r}", f"--weight-decay={self.weight_decay!r}"]


class Train:
    """A training step: the loss of the model's (first) output against labels
    (F.cross_entropy or F.mse_loss, mean reduction) and an optimizer."""

    def __init__(self, loss=torch.nn.functional.cross_entropy, optimizer=None, microbatches=1):
        if loss in (torch.nn.functional.cross_entropy, "cross-entropy") or \
                isinstance(loss, torch.nn.CrossEntropyLoss):
            self.loss = "cross-entropy"
        elif loss in (torch.nn.functional.mse_loss, "mse") or isinstance(loss, torch.nn.MSELoss):
            self.loss = "mse"
        else:
            raise CompileError(f"unsupported loss {loss!r}: F.cross_entropy or F.mse_loss")
        self.optimizer = optimizer if optimizer is not None else SGD(lr=0.01)
        self.microbatches = microbatches


# --- Helpers -----------------------------------------------------------------

def _run(cmd, what, error=CompileError):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        diagnostics = [l for l in proc.stderr.splitlines() if "error" in l or "note" in l]
        message = f"{what} failed (exit {proc.returncode}):\n{proc.stderr.strip()}"
        if error is CompileError:
            raise CompileError(message, diagnostics)
        raise error(message)
    return proc


def _input_names(model, n):
    try:
        params = list(inspect.signature(model.forward).parameters)
    except (TypeError, ValueError):
        params = []
    names = [p for p in params if p not in ("self",)][:n]
    names += [f"input_{i}" for i in range(len(names), n)]
    return names


def write_weights(directory, tensors):
    """A checkpoint directory (manifest.json + .npy) of {name: tensor}, in
    the runtime's format version 2: each file's CRC-32C in the manifest. It
    is written beside and renamed into place: no half-written directory."""
    temp = f"{directory}.tmp-{os.getpid()}"
    shutil.rmtree(temp, ignore_errors=True)
    os.makedirs(temp)
    entries = []
    for i, (name, t) in enumerate(tensors.items()):
        a = t.detach().cpu().contiguous().numpy()
        dtype = {np.float32: "f32", np.float64: "f64", np.int64: "i64", np.int32: "i32"}[a.dtype.type]
        fname = f"w{i}.npy"
        buffer = io.BytesIO()
        np.save(buffer, a)
        data = buffer.getvalue()
        with open(os.path.join(temp, fname), "wb") as f:
            f.write(data)
        entries.append({"name": name, "file": fname, "dtype": dtype, "shape": list(a.shape),
                        "trainable": True, "crc32c": format_crc32c(crc32c(data))})
    with open(os.path.join(temp, "manifest.json"), "w") as f:
        json.dump({"format": "oneflow-checkpoint", "version": 2, "step": 0,
                   "variables": entries}, f)
    shutil.rmtree(directory, ignore_errors=True)
    os.rename(temp, directory)


def read_checkpoint(directory):
    """{name: tensor} and the step count of a checkpoint directory; the
    files' CRC-32C are checked where the manifest records them (version 2)."""
    with open(os.path.join(directory, "manifest.json")) as f:
        manifest = json.load(f)
    out = {}
    for v in manifest["variables"]:
        path = os.path.join(directory, v["file"])
        with open(path, "rb") as f:
            data = f.read()
        if "crc32c" in v:
            actual = format_crc32c(crc32c(data))
            if actual != v["crc32c"]:
                raise RunError(f"checkpoint file '{path}' of '{v['name']}' is damaged: its "
                               f"CRC-32C is {actual}, the manifest recorded {v['crc32c']}")
        out[v["name"]] = torch.from_numpy(np.load(io.BytesIO(data)))
    return out, manifest.get("step", 0)


# --- The compiled graph --------------------------------------------------------

class Graph:
    def __init__(self, model, example_inputs, mesh=None, strategy=None, sbp=None, stages=None,
                 train=None, device="cpu", workdir=None, seed=None, verbose=False):
        self.model = model
        self.example_inputs = tuple(example_inputs)
        self.mesh = tuple(mesh) if mesh is not None else None
        if strategy is None and self.mesh is not None:
            strategy = ("data",) * len(self.mesh)
        if isinstance(strategy, str):
            strategy = (strategy,)
        self.strategy = strategy
        self.sbp = dict(sbp or {})
        self.stages = stages
        self.train = train
        self.device = device
        self.seed = seed
        self.verbose = verbose
        self.workdir = workdir or tempfile.mkdtemp(prefix="ofm-")
        os.makedirs(self.workdir, exist_ok=True)
        self.opt = _find_tool("oneflow-opt")
        self.run_tool = _find_tool("oneflow-run")
        self.input_names = _input_names(model, len(self.example_inputs))
        self.losses = []
        self.steps_done = 0
        self._plans = {}
        self._texts = {}  # inference plan key -> its MLIR text
        self._trained = None  # {canonical name: tensor} after fit
        self.pins = {}
        self.pins = self._resolve_pins()
        # Trace and check now: unsupported ops and compile errors surface at
        # compile time.
        path, _ = self._emit(self.example_inputs, "model", training=self.train is not None)
        plan = self._compile("model", train=self.train is not None)
        if self.train is None:
            key = ("infer", self._shapes(self.example_inputs), 0, False)
            self._plans[key] = plan
            with open(path) as f:
                self._texts[key] = f.read()
        else:
            self._plans[("train", self.example_inputs[0].shape[0])] = plan

    # -- Tracing and compiling ------------------------------------------------

    def _emit(self, inputs, tag, training=False, mode=None):
        """Traces and writes TAG.mlir and TAG.weights. The graph compiled by
        ofm.compile is traced in eval mode, g(x)'s in the model's mode at
        the call (`mode`); training graphs in train mode (dropout draws
        masks; batch norms are written as inference ops, which --train turns
        into training-mode norms updating their statistics)."""
        was_training = self.model.training
        self.model.train(training if mode is None else mode)
        try:
            tr, gm = trace_mod.trace(self.model, inputs)
        finally:
            self.model.train(was_training)
        self.trace = tr
        text, used, outputs, results = emit_mod.emit_module(
            tr, gm, self.input_names, root_name=type(self.model).__name__,
            split_before=self.stages.split_before if self.stages else (),
            pins={n: p for n, p in self.pins.items()}, training=training,
            seed=self.seed or 0)
        self.output_names = outputs
        self.used_params = used
        path = os.path.join(self.workdir, f"{tag}.mlir")
        with open(path, "w") as f:
            f.write(text)
        weights = os.path.join(self.workdir, f"{tag}.weights")
        shutil.rmtree(weights, ignore_errors=True)
        current = self._current_params()
        write_weights(weights, {n: current[n] for n in used})
        return path, weights

    def _resolve_pins(self):
        """{parameter name: #sbp.nd<...>} from the sbp= patterns (fnmatch on
        state_dict names; `*` crosses dots). A single placement applies to
        the tensor-strategy mesh axes (B on data axes); a tuple gives one
        placement per mesh axis."""
        if not self.sbp:
            return {}
        if self.mesh is None:
            raise CompileError("sbp= pins need a mesh")
        if "auto" in self.strategy:
            # The cost-based solve lays out every tensor itself.
            raise CompileError("sbp= pins apply to the hand strategies "
                               "(data, tensor), not strategy='auto'")
        names = list(trace_mod.state_names(self.model))
        pins = {}
        for pattern, placement in self.sbp.items():
            matched = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
            if not matched:
                raise CompileError(f"sbp pattern {pattern!r} matches no parameter or buffer")
            if isinstance(placement, Placement):
                per_axis = [placement if kind == "tensor" or len(self.mesh) == 1 else Broadcast()
                            for kind in self.strategy]
            else:
                per_axis = list(placement)
            if len(per_axis) != len(self.mesh) or not all(isinstance(p, Placement) for p in per_axis):
                raise CompileError(f"sbp pin {pattern!r}: {placement!r} is not one placement "
                                   f"per mesh axis ({len(self.mesh)})")
            text = "#sbp.nd<[" + ", ".join(p.mlir() for p in per_axis) + "]>"
            for n in matched:
                pins[n] = text
        return pins

    def _current_params(self):
        params = dict(self.trace.params)
        if self._trained:
            params.update(self._trained)
        return params

    def _dist_flags(self):
        flags = []
        if self.mesh is not None:
            flags += ["--mesh=" + "x".join(str(d) for d in self.mesh),
                      "--sbp-strategy=" + ",".join(self.strategy)]
        if self.device != "cpu":
            flags.append(f"--device={self.device}")
        return flags

    def _train_flags(self, batch):
        t = self.train
        flags = ["--train", f"--loss={t.loss}", "--label=labels"] + t.optimizer.flags()
        micro = t.microbatches
        if self.stages:
            if micro > 1 and micro != self.stages.microbatches:
                raise CompileError(
                    f"Train(microbatches={micro}) and Stages(microbatches="
                    f"{self.stages.microbatches}) disagree: give them once")
            micro = self.stages.microbatches
            flags += [f"--stages={len(self.stages.split_before) + 1}",
                      f"--schedule={self.stages.schedule}"]
        if micro > 1:
            flags.append(f"--microbatches={micro}")
        return flags

    def _compile(self, tag, train=False, batch=None):
        path = os.path.join(self.workdir, f"{tag}.mlir")
        weights = os.path.join(self.workdir, f"{tag}.weights")
        plan = os.path.join(self.workdir, f"{tag}.{'train' if train else 'infer'}.plan")
        cmd = [self.opt, path, f"--weights={weights}", "--emit=plan", "-o", plan]
        cmd += self._dist_flags()
        if train:
            cmd += self._train_flags(batch)
        if self.verbose:
            print(" ".join(cmd), file=sys.stderr)
        _run(cmd, "oneflow-opt")
        return plan

    def _shapes(self, inputs):
        return tuple((tuple(x.shape), x.dtype) for x in inputs)

    def _inference_plan(self, inputs):
        """The plan of g(inputs) in the model's current mode. A train-mode
        trace that emits the same MLIR as the eval-mode one (no dropout,
        batch norm or `self.training` branch) reuses its plan."""
        mode = self.model.training
        key = ("infer", self._shapes(inputs), self.steps_done, mode)
        if key not in self._plans:
            tag = f"infer{len(self._plans)}"
            path, _ = self._emit(inputs, tag, mode=mode)
            with open(path) as f:
                text = f.read()
            same = [k for k, t in self._texts.items() if t == text and k[:3] == key[:3]]
            self._plans[key] = self._plans[same[0]] if same else self._compile(tag)
            self._texts[key] = text
        return self._plans[key]

    # -- Inference --------------------------------------------------------------

    def __call__(self, *inputs):
        """Runs the compiled graph like model(*inputs): in the model's mode
        at the call (model.training). Train mode gives the eval outputs for
        modules without training behavior; dropout or batch norm in train
        mode raise TrainModeError (an inference graph draws no masks and
        keeps no batch statistics)."""
        inputs = tuple(torch.as_tensor(x) for x in inputs)
        plan = self._inference_plan(inputs)
        io = tempfile.mkdtemp(dir=self.workdir, prefix="io-")
        cmd = [self.run_tool, plan, "--output-dir", os.path.join(io, "out"), "--quiet"]
        for name, x in zip(self.input_names, inputs):
            f = os.path.join(io, f"{name}.npy")
            np.save(f, x.detach().cpu().contiguous().numpy())
            cmd += ["--input", f"{name}={f}"]
        _run(cmd, "oneflow-run", RunError)
        outs = [torch.from_numpy(np.load(os.path.join(io, "out", f"{n}.npy")))
                for n in self.output_names]
        shutil.rmtree(io, ignore_errors=True)
        return outs[0] if len(outs) == 1 else tuple(outs)

    # -- Training -----------------------------------------------------------------

    def fit(self, data, batch=None, steps=1, shuffle=False, log_every=None, quiet=True,
            checkpoint=None):
        """Trains `steps` steps on data = (inputs..., labels), each step on the
        next `batch` samples (wrapping; shuffled each epoch with shuffle=True).
        Returns the losses of these steps."""
        if self.train is None:
            raise CompileError("fit needs compile(..., train=ofm.Train(...))")
        *xs, labels = [torch.as_tensor(d) for d in data]
        if batch is None:
            batch = self.example_inputs[0].shape[0]
        key = ("train", batch)
        if key not in self._plans:
            example = tuple(x[:batch] for x in xs)
            tag = f"train{batch}"
            self._emit(example, tag, training=True)
            self._plans[key] = self._compile(tag, train=True, batch=batch)
        plan = self._plans[key]
        io = os.path.join(self.workdir, "data")
        os.makedirs(io, exist_ok=True)
        ckpt = checkpoint or os.path.join(self.workdir, "checkpoint")
        metrics = os.path.join(self.workdir, "metrics.jsonl")
        cmd = [self.run_tool, plan, "--steps", str(steps), "--batch", str(batch),
               "--metrics", metrics, "--save", ckpt]
        if quiet:
            cmd.append("--quiet")
        elif log_every:
            cmd += ["--log-every", str(log_every)]
        if shuffle:
            cmd.append("--shuffle")
        if self.seed is not None:
            cmd += ["--seed", str(self.seed)]
        if self.steps_done and os.path.isdir(ckpt) and self._ckpt_plan == plan:
            cmd += ["--load", ckpt]
        elif self.steps_done:
            raise CompileError("continuing training with another batch size is not supported")
        for name, x in list(zip(self.input_names, xs)) + [("labels", labels)]:
            f = os.path.join(io, f"{name}.npy")
            np.save(f, x.detach().cpu().contiguous().numpy())
            cmd += ["--data", f"{name}={f}"]
        if self.verbose:
            print(" ".join(cmd), file=sys.stderr)
        proc = subprocess.run(cmd, stderr=None if not quiet else subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise RunError(f"oneflow-run failed (exit {proc.returncode}):\n{proc.stderr or ''}")
        losses = []
        with open(metrics) as f:
            for line in f:
                losses.append(json.loads(line)["loss"])
        self.losses += losses
        self._ckpt_plan = plan
        values, self.steps_done = read_checkpoint(ckpt)
        self._trained = {n: v for n, v in values.items() if n in self.trace.params}
        return losses

    def state_dict(self):
        """The model's state_dict with the compiled graph's values (trained
        weights and batch-norm statistics), loadable with strict=True."""
        current = self._current_params()
        sd = self.model.state_dict()
        out = {}
        for name, value in sd.items():
            canon = self.trace.aliases.get(name, name)
            if name.endswith("num_batches_tracked") and self.train is not None and self._trained:
                out[name] = value + self.steps_done
            elif canon in current:
                out[name] = current[canon].clone().to(value.dtype)
            else:
                out[name] = value.clone()
        return out

    # -- Reports --------------------------------------------------------------

    def report(self, file=None):
        """The compiler's SBP report: each op's signature by module path, and
        every boxing with its collective and bytes. Returns it as a string."""
        path = os.path.join(self.workdir, "model.mlir")
        weights = os.path.join(self.workdir, "model.weights")
        cmd = [self.opt, path, f"--weights={weights}", "--sbp-report", "-o", os.devnull]
        cmd += self._dist_flags() or ["--mesh=1"]
        if self.train is not None:
            cmd += self._train_flags(None)
        proc = _run(cmd, "oneflow-opt --sbp-report")
        text = proc.stderr + proc.stdout
        if file is not None:
            file.write(text)
        return text


def compile(model, example_inputs, **options):
    """Traces `model` on `example_inputs` and compiles it (see Graph)."""
    return Graph(model, example_inputs, **options)
