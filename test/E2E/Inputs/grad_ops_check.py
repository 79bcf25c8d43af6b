"""grad_ops_check.py OPT RUN WORKDIR [FILTER]: every gradient op against
PyTorch autograd.

Each case is a small `@main` taking the gradient op's operands and returning
its results, compiled with `OPT case.mlir --emit=plan` and run with `RUN`.
The reference is PyTorch's backward of the forward op (in float64, from the
same inputs) with the same output gradient. Prints one line per case with the
largest absolute error and that error relative to the largest reference
magnitude; exits non-zero naming the cases that do not match.
"""
import concurrent.futures
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

OPT, RUN, WORK = sys.argv[1:4]
FILTER = sys.argv[4] if len(sys.argv) > 4 else ""

# Largest error allowed, relative to max(1, largest reference magnitude).
TOLERANCE = {"f32": 2e-5, "f64": 1e-12}
NP_TYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32,
            "i64": np.int64}

rng = np.random.default_rng(0)


def tensor_type(array):
    kind = {np.dtype(v): k for k, v in NP_TYPES.items()}[array.dtype]
    return "tensor<" + "".join(f"{d}x" for d in array.shape) + kind + ">"


def arr(list_):
    return "array<i64: " + ", ".join(str(int(v)) for v in list_) + ">"


def t64(array, grad=False):
    """A float64 (or int64) torch tensor of `array`."""
    if np.issubdtype(array.dtype, np.floating):
        return torch.tensor(array.astype(np.float64), requires_grad=grad)
    return torch.tensor(array.astype(np.int64))


class Case:
    def __init__(self, name, dtype, op, inputs, attrs, results, expected,
                 format_=None):
        self.name, self.dtype = f"{name}.{dtype}", dtype
        self.op, self.inputs, self.attrs = op, inputs, attrs
        self.results, self.expected = results, expected
        self.format = format_

    def mlir(self):
        args = ", ".join(f"%{n}: {tensor_type(a)} {{onnx.name = \"{n}\"}}"
                         for n, a in self.inputs)
        rtypes = [f"tensor<{''.join(f'{d}x' for d in shape)}{self.dtype}>"
                  for shape in self.results]
        outs = ", ".join(f"{t} {{onnx.name = \"r{i}\"}}"
                         for i, t in enumerate(rtypes))
        operands = ", ".join(f"%{n}" for n, _ in self.inputs)
        attrs = (" {" + ", ".join(f"{k} = {v}" for k, v in self.attrs.items())
                 + "}") if self.attrs else ""
        in_types = [tensor_type(a) for _, a in self.inputs]
        if self.format == "dy":  # `$dy attr-dict : type($dy) -> type($dx)`
            sig = f"{in_types[0]} -> {rtypes[0]}"
        elif self.format == "norm":  # `... : type($x), type($scale)`
            sig = f"{in_types[0]}, {in_types[1]}"
        else:
            sig = f"({', '.join(in_types)}) -> {rtypes[0]}"
        names = ", ".join(f"%r{i}" for i in range(len(rtypes)))
        return (f"func.func @main({args}) -> ({outs}) {{\n"
                f"  {names} = oneflow.{self.op} {operands}{attrs} : {sig}\n"
                f"  return {names} : {', '.join(rtypes)}\n}}\n")

    def run(self):
        d = os.path.join(WORK, self.name)
        os.makedirs(d, exist_ok=True)
        with open(f"{d}/case.mlir", "w") as f:
            f.write(self.mlir())
        cmd = [RUN, f"{d}/plan", "--output-dir", f"{d}/out"]
        for n, a in self.inputs:
            np.save(f"{d}/{n}.npy", a)
            cmd += ["--input", f"{n}={d}/{n}.npy"]
        for step in ([OPT, f"{d}/case.mlir", "--emit=plan", "-o", f"{d}/plan"],
                     cmd):
            p = subprocess.run(step, capture_output=True, text=True)
            if p.returncode:
                return f"{self.name} FAILED: {' '.join(step)}\n{p.stderr}", False
        worst_abs, worst_rel, ok = 0.0, 0.0, True
        for i, want in enumerate(self.expected):
            got = np.load(f"{d}/out/r{i}.npy")
            if got.shape != want.shape or got.dtype != NP_TYPES[self.dtype]:
                return (f"{self.name} FAILED: result {i} is {got.dtype} "
                        f"{got.shape}, want {want.shape}"), False
            err = float(np.abs(got.astype(np.float64) - want).max(initial=0))
            scale = max(1.0, float(np.abs(want).max(initial=0)))
            worst_abs = max(worst_abs, err)
            worst_rel = max(worst_rel, err / scale)
            ok = ok and err <= TOLERANCE[self.dtype] * scale
        line = (f"{self.name}: max abs {worst_abs:.2e} rel {worst_rel:.2e} "
                f"{'ok' if ok else 'MISMATCH'}")
        return line, ok


def rand(shape, dtype, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape).astype(NP_TYPES[dtype])


def grads(*tensors):
    return [t.grad.detach().numpy() for t in tensors]


cases = []

# conv2d_grad_filter: (name, x, weight, stride, pads [t, l, b, r], dilation,
# groups). PyTorch pads symmetrically per dimension.
CONVS = [
    ("conv", (2, 3, 7, 7), (4, 3, 3, 3), 1, (0, 0, 0, 0), 1, 1),
    ("conv_stride2_pad1", (2, 3, 8, 8), (5, 3, 3, 3), 2, (1, 1, 1, 1), 1, 1),
    ("conv_pad_hw", (1, 2, 6, 5), (3, 2, 3, 2), 1, (1, 2, 1, 2), 1, 1),
    ("conv_dilation2", (1, 2, 9, 9), (3, 2, 3, 3), 1, (2, 2, 2, 2), 2, 1),
    ("conv_groups2", (2, 4, 6, 6), (6, 2, 3, 3), 1, (0, 0, 0, 0), 1, 2),
    ("conv_depthwise", (2, 3, 6, 6), (3, 1, 3, 3), 2, (1, 1, 1, 1), 1, 3),
    ("conv_1x1_stride3", (3, 4, 7, 7), (2, 4, 1, 1), 3, (0, 0, 0, 0), 1, 1),
]
for dtype in ("f32", "f64"):
    for name, xs, ws, s, p, dil, g in CONVS:
        x, w = rand(xs, dtype), rand(ws, dtype)
        tw = t64(w, True)
        y = F.conv2d(t64(x), tw, stride=s, padding=(p[0], p[1]),
                     dilation=dil, groups=g)
        dy = rand(tuple(y.shape), dtype)
        y.backward(t64(dy))
        attrs = {"strides": arr([s, s]), "pads": arr(p),
                 "dilations": arr([dil, dil])}
        if g != 1:
            attrs["groups"] = f"{g} : i64"
        cases.append(Case(name, dtype, "conv2d_grad_filter",
                          [("x", x), ("dy", dy)], attrs, [ws], grads(tw)))

# max_pool2d_grad: (name, x, kernel, stride, pad, dilation, ceil, ties).
MAXPOOLS = [
    ("max_pool", (2, 3, 6, 6), 2, 2, 0, 1, False, False),
    ("max_pool_k3_s2_pad1", (1, 2, 7, 7), 3, 2, 1, 1, False, False),
    ("max_pool_ceil", (1, 2, 8, 8), 3, 2, 0, 1, True, False),
    ("max_pool_ceil_pad1", (1, 2, 6, 6), 3, 2, 1, 1, True, False),
    ("max_pool_dilation2", (1, 2, 7, 7), 2, 1, 0, 2, False, False),
    ("max_pool_ties", (2, 2, 6, 6), 3, 1, 1, 1, False, True),
]
for dtype in ("f32", "f64"):
    for name, xs, k, s, p, dil, ceil, ties in MAXPOOLS:
        x = (rng.integers(0, 3, xs).astype(NP_TYPES[dtype]) if ties
             else rand(xs, dtype))
        tx = t64(x, True)
        y = F.max_pool2d(tx, k, s, p, dil, ceil_mode=ceil)
        dy = rand(tuple(y.shape), dtype)
        y.backward(t64(dy))
        attrs = {"kernel": arr([k, k]), "strides": arr([s, s]),
                 "pads": arr([p] * 4), "dilations": arr([dil, dil])}
        if ceil:
            attrs["ceil_mode"] = "unit"
        cases.append(Case(name, dtype, "max_pool2d_grad",
                          [("x", x), ("dy", dy)], attrs, [xs], grads(tx)))

# avg_pool2d_grad: (name, x, kernel, stride, pad, ceil, count_include_pad).
AVGPOOLS = [
    ("avg_pool", (2, 3, 6, 6), 2, 2, 0, False, False),
    ("avg_pool_pad1_include", (1, 2, 7, 7), 3, 2, 1, False, True),
    ("avg_pool_pad1_exclude", (1, 2, 7, 7), 3, 2, 1, False, False),
    ("avg_pool_ceil", (1, 2, 8, 8), 3, 2, 0, True, False),
    ("avg_pool_ceil_pad1_include", (1, 2, 8, 8), 3, 2, 1, True, True),
    ("avg_pool_ceil_pad1_exclude", (1, 2, 8, 8), 3, 2, 1, True, False),
    ("avg_pool_overlap", (2, 1, 5, 5), 3, 1, 1, False, True),
]
for dtype in ("f32", "f64"):
    for name, xs, k, s, p, ceil, include in AVGPOOLS:
        x = rand(xs, dtype)
        tx = t64(x, True)
        y = F.avg_pool2d(tx, k, s, p, ceil_mode=ceil,
                         count_include_pad=include)
        dy = rand(tuple(y.shape), dtype)
        y.backward(t64(dy))
        attrs = {"kernel": arr([k, k]), "strides": arr([s, s]),
                 "pads": arr([p] * 4)}
        if ceil:
            attrs["ceil_mode"] = "unit"
        if include:
            attrs["count_include_pad"] = "unit"
        cases.append(Case(name, dtype, "avg_pool2d_grad", [("dy", dy)], attrs,
                          [xs], grads(tx), format_="dy"))

# gather_grad: (name, data shape, indices, axis). Repeated and negative
# indices accumulate into the same rows.
GATHERS = [
    ("gather_embedding", (10, 4),
     np.array([[1, -1, 3, 1, 9], [0, 0, -10, 5, 1], [2, 3, 9, -2, 1]],
              np.int64), 0),
    ("gather_axis1_i32", (3, 7, 2), np.array([6, 0, -1, 2, 2, -7], np.int32),
     1),
    ("gather_axis2_2d", (2, 3, 5), np.array([[4, 0], [-1, 4]], np.int64), 2),
    ("gather_scalar_index", (4, 3), np.array(2, np.int64), 0),
]
for dtype in ("f32", "f64"):
    for name, ds, idx, axis in GATHERS:
        data = rand(ds, dtype)
        td = t64(data, True)
        y = td[(slice(None),) * axis + (t64(idx),)]
        dy = rand(tuple(y.shape), dtype)
        y.backward(t64(dy))
        attrs = {"axis": f"{axis} : i64"} if axis else {}
        cases.append(Case(name, dtype, "gather_grad",
                          [("indices", idx), ("dy", dy)], attrs, [ds],
                          grads(td)))

# gather_elements_grad: (name, data shape, indices, axis). The op counts
# negative indices from the end; torch.gather takes them normalized.
GATHER_ELEMENTS = [
    ("gather_elements_axis1", (3, 4),
     np.array([[0, -1, 3, 3, 1, -4], [2, 2, 2, -3, 0, 1]], np.int64), 1),
    ("gather_elements_axis0", (5, 3), rng.integers(-5, 5, (7, 3)), 0),
    ("gather_elements_3d_i32", (2, 4, 3),
     rng.integers(0, 4, (2, 6, 2)).astype(np.int32), 1),
]
for dtype in ("f32", "f64"):
    for name, ds, idx, axis in GATHER_ELEMENTS:
        data = rand(ds, dtype)
        td = t64(data, True)
        y = torch.gather(td, axis, t64(idx % ds[axis]))
        dy = rand(tuple(y.shape), dtype)
        y.backward(t64(dy))
        cases.append(Case(name, dtype, "gather_elements_grad",
                          [("indices", idx), ("dy", dy)],
                          {"axis": f"{axis} : i64"}, [ds], grads(td)))

# slice_grad: (name, x shape, starts, limits, steps).
SLICES = [
    ("slice_step2", (4, 8), (0, 1), (4, 7), (2, 2)),
    ("slice_step3_3d", (5, 6, 7), (1, 0, 2), (5, 6, 7), (3, 1, 2)),
    ("slice_contiguous", (6, 5), (2, 1), (5, 5), (1, 1)),
    ("slice_reverse", (5,), (4,), (-1,), (-1,)),
    ("slice_negative_step2", (6, 5), (5, 0), (0, 5), (-2, 1)),
]
for dtype in ("f32", "f64"):
    for name, xs, starts, limits, steps in SLICES:
        x = rand(xs, dtype)
        tx = t64(x, True)
        ranges = np.ix_(*[np.arange(a, b, c)
                          for a, b, c in zip(starts, limits, steps)])
        y = tx[tuple(torch.tensor(r) for r in ranges)]
        dy = rand(tuple(y.shape), dtype)
        y.backward(t64(dy))
        cases.append(Case(name, dtype, "slice_grad", [("dy", dy)],
                          {"starts": arr(starts), "limits": arr(limits),
                           "steps": arr(steps)},
                          [xs], grads(tx), format_="dy"))

# softmax_cross_entropy_grad: (name, logits shape, label type, ignore_index).
CROSS_ENTROPY = [
    ("cross_entropy", (6, 5), np.int64, None),
    ("cross_entropy_3d_i32", (2, 3, 7), np.int32, None),
    ("cross_entropy_ignore_-100", (8, 4), np.int64, -100),
    ("cross_entropy_ignore_class2", (3, 4, 5), np.int64, 2),
]
for dtype in ("f32", "f64"):
    for name, ls, ltype, ignore in CROSS_ENTROPY:
        logits = rand(ls, dtype, -3, 3)
        labels = rng.integers(0, ls[-1], ls[:-1]).astype(ltype)
        if ignore is not None:
            labels.flat[::3] = ignore
        dloss = rand(ls[:-1], dtype)
        tl = t64(logits, True)
        loss = F.cross_entropy(tl.reshape(-1, ls[-1]), t64(labels).reshape(-1),
                               reduction="none",
                               ignore_index=-100 if ignore is None else ignore)
        loss.reshape(ls[:-1]).backward(t64(dloss))
        attrs = {"ignore_index": f"{ignore} : i64"} if ignore is not None else {}
        cases.append(Case(name, dtype, "softmax_cross_entropy_grad",
                          [("logits", logits), ("labels", labels),
                           ("dloss", dloss)], attrs, [ls], grads(tl)))

# layer_norm_grad: (name, x shape, axis, epsilon).
LAYER_NORMS = [
    ("layer_norm", (4, 6), 1, 1e-5),
    ("layer_norm_axis2", (2, 3, 4, 5), 2, 1e-3),
    ("layer_norm_axis0", (3, 4), 0, 1e-5),
]
for dtype in ("f32", "f64"):
    for name, xs, axis, eps in LAYER_NORMS:
        x, dy = rand(xs, dtype, -2, 2), rand(xs, dtype)
        scale, bias = rand(xs[axis:], dtype, 0.5, 1.5), rand(xs[axis:], dtype)
        tx, ts, tb = t64(x, True), t64(scale, True), t64(bias, True)
        y = F.layer_norm(tx, xs[axis:], ts, tb, eps)
        y.backward(t64(dy))
        cases.append(Case(name, dtype, "layer_norm_grad",
                          [("x", x), ("scale", scale), ("dy", dy)],
                          {"axis": f"{axis} : i64",
                           "epsilon": f"{eps:.6e} : f64"},
                          [xs, xs[axis:], xs[axis:]], grads(tx, ts, tb),
                          format_="norm"))

# batch_norm_grad: (name, x shape, epsilon). The saved statistics are those
# batch_norm_train returns: the batch mean and 1 / sqrt(biased var + eps).
BATCH_NORMS = [
    ("batch_norm", (4, 3, 5, 5), 1e-5),
    ("batch_norm_2d", (6, 4), 1e-5),
    ("batch_norm_3d", (2, 3, 4), 1e-3),
]
for dtype in ("f32", "f64"):
    for name, xs, eps in BATCH_NORMS:
        x, dy = rand(xs, dtype, -2, 2), rand(xs, dtype)
        c = xs[1]
        scale, bias = rand((c,), dtype, 0.5, 1.5), rand((c,), dtype)
        axes = (0,) + tuple(range(2, len(xs)))
        x64 = x.astype(np.float64)
        mean = x64.mean(axis=axes)
        inv_std = 1.0 / np.sqrt(x64.var(axis=axes) + eps)
        tx, ts, tb = t64(x, True), t64(scale, True), t64(bias, True)
        y = F.batch_norm(tx, None, None, ts, tb, training=True, eps=eps)
        y.backward(t64(dy))
        cases.append(Case(name, dtype, "batch_norm_grad",
                          [("x", x), ("scale", scale),
                           ("saved_mean", mean.astype(NP_TYPES[dtype])),
                           ("saved_inv_std", inv_std.astype(NP_TYPES[dtype])),
                           ("dy", dy)], {},
                          [xs, (c,), (c,)], grads(tx, ts, tb),
                          format_="norm"))

cases = [c for c in cases if FILTER in c.name]
workers = min(4, os.cpu_count() or 1)
with concurrent.futures.ThreadPoolExecutor(workers) as pool:
    outcomes = list(pool.map(Case.run, cases))
failed = []
for case, (line, ok) in zip(cases, outcomes):
    print(line, flush=True)
    if not ok:
        failed.append(case.name)
if failed:
    sys.exit(f"{len(failed)} of {len(cases)} cases failed: "
             + ", ".join(failed))
print(f"all {len(cases)} cases match")
