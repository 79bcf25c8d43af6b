"""gradcheck.py WORKDIR [--only REGEX] [--jobs N] [--selftest] [--list]
                      [--opt OPT] [--run RUN]

Checks every gradient rule of lib/Dialect/OneFlow/OneFlowGradients.cpp
against central finite differences, end to end through the tools.

Each case is a small @main over float (and integer) arguments whose loss is
sum(op(args) * W), W a fixed random constant, so every output element
matters. `OPT --oneflow-autodiff=wrt=arguments` appends the gradient of the
loss w.r.t. every float argument (results grad_<arg>); `OPT --emit=plan`
compiles it, and ONE `RUN` feeds, through --data, 2 * D steps per float
argument (x + h v and x - h v along D = 2 random directions v, the other
arguments at their base values) and a final step at the base point. Every
argument is declared as [1, *shape] and reshaped in the body, so that
arguments of any shapes (and rank 0) share --data's batch size of 1. The
losses of the perturbed steps come from --metrics, the analytic gradient of
the final step from --output-dir. Per pair:

    fd = (L(x + h v) - L(x - h v)) / 2h   vs   an = sum(grad * dx) / 2h

with dx the difference of the values actually fed (exactly 2 h v in f64).
A pair passes when |fd - an| <= rtol * max(|fd|, |an|) + atol * max(1, |L|).
The loss must also move with every float argument.

f64 cases: h = 1e-6, rtol = 1e-6, atol = 1e-9. Cases that compute anything
in f32 (marked "(f32)"; their op result is cast to f64 before the weighted
sum, so the loss itself is f64): h = 1e-2, rtol = 2e-3, atol = 1e-4.
Zero-gradient ops (ceil, floor, round, sign) also assert an exactly zero
analytic gradient.

Prints `ok <case> (<f64|f32>): max error <abs> (relative <rel>, <r> of the
tolerance)` per case and `gradient checks: N cases passed[, K known
failures]` at the end; exits 1 naming every failed case with its numbers.
Cases in KNOWN_FAILURES run and are reported as `known failure` without
failing the run (an unexpected pass fails it, so the list gets updated).
--selftest runs only the tanh case with its analytic gradient deliberately
perturbed (one element off by 1e-4 relative) and must fail. Cases run on
--jobs (2) threads. Tools: --opt/--run, else oneflow-opt/oneflow-run on
PATH.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

# Cases that fail for a reason only a C++ change can fix. They still run;
# their failure is reported as "known failure" and does not fail the run.
KNOWN_FAILURES = {
    # None: the statistics batch_norm_train outputs are not differentiated
    # (as in PyTorch); autodiff rejects a loss that depends on them
    # (test/Transforms/Training/autodiff-invalid.mlir).
}

DIRECTIONS = 2
SETTINGS = {  # h, rtol, atol
    "f64": (1e-6, 1e-6, 1e-9),
    "f32": (1e-2, 2e-3, 1e-4),
}
NP = {"f64": np.float64, "f32": np.float32, "i64": np.int64, "i32": np.int32,
      "i1": np.bool_}


def ttype(shape, et):
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


def etype(array):
    for name, kind in NP.items():
        if array.dtype == kind:
            return name
    raise ValueError(array.dtype)


def dense(array):
    """An MLIR dense literal of `array` (nested lists, exact floats)."""
    def fmt(v):
        if array.dtype == np.bool_:
            return "true" if v else "false"
        if np.issubdtype(array.dtype, np.integer):
            return str(int(v))
        return repr(float(v))

    def rec(a):
        if a.ndim == 0:
            return fmt(a.item())
        return "[" + ", ".join(rec(x) for x in a) + "]"
    return f"dense<{rec(array)}>"


def i64s(values):
    return "array<i64: " + ", ".join(str(int(v)) for v in values) + ">" \
        if len(values) else "array<i64>"


class Case:
    """`body` is MLIR text defining %out (shape `out`); `{name}` in it is the
    type of argument or constant `name`, `{out}` the type of %out and `{f}`
    the case's float element type. `consts` are constants the body uses
    (defined before it as %name)."""

    def __init__(self, name, args, body, out, dtype="f64", consts=None,
                 zero=False, out_dtype=None):
        self.name, self.args, self.body, self.out = name, args, body, out
        self.dtype, self.consts = dtype, consts or {}
        self.zero = zero  # the analytic gradient must be exactly zero
        self.out_dtype = out_dtype or dtype
        # The finite-difference settings: f32 when anything is computed in
        # f32.
        self.precision = "f32" if "f32" in (dtype, self.out_dtype) else "f64"

    def floats(self):
        return [n for n, a in self.args.items()
                if np.issubdtype(a.dtype, np.floating)]

    def mlir(self, weight):
        types = {n: ttype(a.shape, etype(a)) for n, a in self.args.items()}
        types.update({n: ttype(a.shape, etype(a))
                      for n, a in self.consts.items()})
        out_t = ttype(self.out, self.out_dtype)
        types.update(out=out_t, f=self.dtype)
        # Every argument is fed as [1, *shape] (one sample per step, so
        # arguments of any shapes share --data's batch size) and reshaped.
        fed = {n: ttype((1,) + a.shape, etype(a)) for n, a in self.args.items()}
        lines = [f"%{n} = oneflow.reshape %gc.fed.{n} : {fed[n]} to {types[n]}"
                 for n in self.args]
        lines += [f"%{n} = oneflow.constant {dense(a)} : {types[n]}"
                  for n, a in self.consts.items()]
        body = re.sub(r"\{(\w+)\}",
                      lambda m: types.get(m.group(1), m.group(0)),
                      self.body.strip())
        lines += body.splitlines()
        result = "%out"
        if self.out_dtype == "f32":
            # An f64 loss: the weighted sum adds no rounding of its own and
            # --metrics prints it exactly.
            out64 = ttype(self.out, "f64")
            lines.append(f"%gc.out = oneflow.cast %out : {out_t} to {out64}")
            out_t, result = out64, "%gc.out"
        scalar_t = ttype((), "f64")
        lines.append(f"%gc.weight = oneflow.constant {dense(weight)} : {out_t}")
        if self.out:
            lines.append(f"%gc.prod = oneflow.mul {result}, %gc.weight : "
                         f"({out_t}, {out_t}) -> {out_t}")
            lines.append(f"%gc.loss = oneflow.reduce_sum %gc.prod "
                         f"{{axes = {i64s(range(len(self.out)))}}} : "
                         f"{out_t} -> {scalar_t}")
        else:
            lines.append(f"%gc.loss = oneflow.mul {result}, %gc.weight : "
                         f"({out_t}, {out_t}) -> {out_t}")
        lines.append(f"return %gc.loss : {scalar_t}")
        params = ", ".join(f'%gc.fed.{n}: {fed[n]} {{onnx.name = "{n}"}}'
                           for n in self.args)
        text = ['module attributes {oneflow.loss_output = "loss"} {',
                f'  func.func @main({params}) -> ({scalar_t} {{onnx.name = "loss"}}) {{']
        text += ["    " + line.strip() for line in lines]
        text += ["  }", "}"]
        return "\n".join(text) + "\n"


#===----------------------------------------------------------------------===#
# Inputs
#===----------------------------------------------------------------------===#

rng = np.random.default_rng(20240601)


def normal(*shape, scale=1.0):
    return rng.standard_normal(shape) * scale


def uniform(lo, hi, *shape):
    return rng.uniform(lo, hi, shape)


def away(shape, kinks=(0.0,), gap=0.15, lo=-2.0, hi=2.0):
    """Uniform values in [lo, hi] at least `gap` from every kink."""
    out = np.empty(int(np.prod(shape)))
    for i in range(out.size):
        while True:
            v = rng.uniform(lo, hi)
            if all(abs(v - k) >= gap for k in kinks):
                out[i] = v
                break
    return out.reshape(shape)


def distinct(*shape, spacing=0.1):
    """A random permutation of well-separated values (no ties anywhere)."""
    n = int(np.prod(shape))
    values = (np.arange(n) - n / 2) * spacing + rng.uniform(0, spacing / 4, n)
    return rng.permutation(values).reshape(shape)


def signed(lo, hi, *shape):
    """|v| in [lo, hi] with random signs."""
    return uniform(lo, hi, *shape) * rng.choice([-1.0, 1.0], shape)


def fractional(*shape, avoid_half=False):
    """Values whose fractional part stays away from 0 (and from 0.5)."""
    ints = rng.integers(-3, 3, shape).astype(np.float64)
    if avoid_half:
        frac = np.where(rng.random(shape) < 0.5, uniform(0.1, 0.4, *shape),
                        uniform(0.6, 0.9, *shape))
    else:
        frac = uniform(0.1, 0.9, *shape)
    return ints + frac


#===----------------------------------------------------------------------===#
# Cases
#===----------------------------------------------------------------------===#


def unary(name, op, x, attrs="", dtype="f64", zero=False):
    attr = f" {{{attrs}}}" if attrs else ""
    return Case(name, {"x": x.astype(NP[dtype])},
                f"%out = oneflow.{op} %x{attr} : {{x}}", x.shape, dtype,
                zero=zero)


def binary(name, op, a, b, out):
    return Case(name, {"a": a, "b": b},
                f"%out = oneflow.{op} %a, %b : ({{a}}, {{b}}) -> {{out}}", out)


def cases():
    S = (3, 4)
    c = []
    # Elementwise unary ops.
    c.append(unary("relu", "relu", away(S)))
    c.append(unary("tanh", "tanh", normal(*S)))
    c.append(unary("sigmoid", "sigmoid", normal(*S, scale=2)))
    c.append(unary("exp", "exp", normal(*S)))
    c.append(unary("log", "log", uniform(0.2, 3, *S)))
    c.append(unary("sqrt", "sqrt", uniform(0.2, 3, *S)))
    c.append(unary("rsqrt", "rsqrt", uniform(0.2, 3, *S)))
    c.append(unary("erf", "erf", normal(*S)))
    c.append(unary("reciprocal", "reciprocal", signed(0.3, 2, *S)))
    c.append(unary("sin", "sin", normal(*S, scale=2)))
    c.append(unary("cos", "cos", normal(*S, scale=2)))
    c.append(unary("softplus", "softplus", normal(*S, scale=2)))
    c.append(unary("softsign", "softsign", away(S)))
    c.append(unary("silu", "silu", normal(*S, scale=2)))
    c.append(unary("asin", "asin", uniform(-0.9, 0.9, *S)))
    c.append(unary("acos", "acos", uniform(-0.9, 0.9, *S)))
    c.append(unary("atan", "atan", normal(*S, scale=2)))
    c.append(unary("gelu_none", "gelu", normal(*S, scale=2)))
    c.append(unary("gelu_none_attr", "gelu", normal(*S, scale=2),
                   "approximate = #oneflow.gelu_approximation<none>"))
    c.append(unary("gelu_tanh", "gelu", normal(*S, scale=2),
                   "approximate = #oneflow.gelu_approximation<tanh>"))
    c.append(unary("leaky_relu", "leaky_relu", away(S)))
    c.append(unary("leaky_relu_alpha", "leaky_relu", away(S), "alpha = 0.3"))
    c.append(unary("elu", "elu", away(S)))
    c.append(unary("elu_alpha", "elu", away(S), "alpha = 0.7"))
    c.append(unary("selu", "selu", away(S)))
    c.append(unary("selu_attrs", "selu", away(S), "alpha = 1.5, gamma = 0.8"))
    # z = 0.2 x + 0.5 has kinks at x = -2.5 and 2.5.
    c.append(unary("hard_sigmoid", "hard_sigmoid",
                   away(S, (-2.5, 2.5), lo=-4, hi=4)))
    # z = 0.3 x + 0.4: kinks at x = -4/3 and 2.
    c.append(unary("hard_sigmoid_attrs", "hard_sigmoid",
                   away(S, (-4 / 3, 2.0), lo=-3, hi=3.5),
                   "alpha = 0.3, beta = 0.4"))
    c.append(unary("abs", "abs", away(S)))
    c.append(unary("clip_min_max", "clip", away(S, (-0.5, 0.8)),
                   "min = -0.5, max = 0.8"))
    c.append(unary("clip_min", "clip", away(S, (-0.5,)), "min = -0.5"))
    c.append(unary("clip_max", "clip", away(S, (0.8,)), "max = 0.8"))
    c.append(unary("neg", "neg", normal(*S)))
    # Zero-gradient ops, away from their jumps.
    c.append(unary("ceil", "ceil", fractional(*S), zero=True))
    c.append(unary("floor", "floor", fractional(*S), zero=True))
    c.append(unary("round", "round", fractional(*S, avoid_half=True),
                   zero=True))
    c.append(unary("sign", "sign", away(S), zero=True))

    # Binary ops with numpy broadcasting: [2,3] op [3], [2,1] op [2,3],
    # [2,1] op [3].
    shapes = {"row": ((2, 3), (3,)), "col": ((2, 1), (2, 3)),
              "outer": ((2, 1), (3,))}
    for op in ["add", "sub", "mul", "div", "pow", "max", "min"]:
        for tag, (sa, sb) in shapes.items():
            a, b = normal(*sa), normal(*sb)
            if op == "div":
                b = signed(0.5, 2, *sb)
            if op == "pow":
                a, b = uniform(0.5, 2, *sa), uniform(-1.5, 1.5, *sb)
            if op in ("max", "min"):
                # No ties: |a - b| >= 0.2 for every broadcast pair.
                while True:
                    a, b = normal(*sa), normal(*sb)
                    if np.abs(a - b).min() >= 0.2:
                        break
            c.append(binary(f"{op}_{tag}", op, a, b, (2, 3)))

    cond = np.array([[True, False, True], [False, False, True]])
    c.append(Case("where", {"a": normal(2, 3), "b": normal(3)},
                  "%out = oneflow.where %cond, %a, %b : ({cond}, {a}, {b}) -> {out}",
                  (2, 3), consts={"cond": cond}))
    c.append(Case("where_bcast_both", {"a": normal(2, 1), "b": normal(3)},
                  "%out = oneflow.where %cond, %a, %b : ({cond}, {a}, {b}) -> {out}",
                  (2, 3), consts={"cond": cond}))
    c.append(Case("cast_f64_to_f32", {"x": normal(2, 3)},
                  "%out = oneflow.cast %x : {x} to {out}", (2, 3),
                  out_dtype="f32"))
    c.append(Case("cast_f32_to_f64", {"x": normal(2, 3).astype(np.float32)},
                  "%out = oneflow.cast %x : {x} to {out}", (2, 3), "f32",
                  out_dtype="f64"))

    # Matmul, all four transpose combinations.
    for ta in (False, True):
        for tb in (False, True):
            a = normal(3, 2) if ta else normal(2, 3)
            b = normal(4, 3) if tb else normal(3, 4)
            attrs = ", ".join(n for n, on in (("transpose_a", ta),
                                               ("transpose_b", tb)) if on)
            attr = f" {{{attrs}}}" if attrs else ""
            c.append(Case(f"matmul{'_ta' if ta else ''}{'_tb' if tb else ''}"
                          if ta or tb else "matmul",
                          {"a": a, "b": b},
                          f"%out = oneflow.matmul %a, %b{attr} : ({{a}}, {{b}}) -> {{out}}",
                          (2, 4)))
    c.append(Case("matmul_f32", {"a": normal(2, 3).astype(np.float32),
                                 "b": normal(3, 4).astype(np.float32)},
                  "%out = oneflow.matmul %a, %b : ({a}, {b}) -> {out}",
                  (2, 4), "f32"))
    # Batch matmul with broadcast batch dimensions.
    c.append(Case("batch_matmul_rank_bcast", {"a": normal(2, 3, 4),
                                               "b": normal(4, 5)},
                  "%out = oneflow.batch_matmul %a, %b : ({a}, {b}) -> {out}",
                  (2, 3, 5)))
    c.append(Case("batch_matmul_one_bcast", {"a": normal(1, 3, 4),
                                              "b": normal(2, 4, 5)},
                  "%out = oneflow.batch_matmul %a, %b : ({a}, {b}) -> {out}",
                  (2, 3, 5)))
    c.append(Case("batch_matmul_ta_tb", {"a": normal(2, 1, 4, 3),
                                          "b": normal(3, 5, 4)},
                  "%out = oneflow.batch_matmul %a, %b {transpose_a, transpose_b}"
                  " : ({a}, {b}) -> {out}", (2, 3, 3, 5)))

    # Convolution.
    def conv(name, x, w, bias, strides, pads, dilations, groups, out,
             dtype="f64"):
        args = {"x": x, "w": w}
        operands = "%x, %w"
        types = "{x}, {w}"
        if bias is not None:
            args["b"] = bias
            operands += ", %b"
            types += ", {b}"
        args = {k: v.astype(NP[dtype]) for k, v in args.items()}
        return Case(name, args,
                    f"%out = oneflow.conv2d {operands} {{strides = {i64s(strides)}, "
                    f"pads = {i64s(pads)}, dilations = {i64s(dilations)}, "
                    f"groups = {groups}}} : ({types}) -> {{out}}", out, dtype)
    c.append(conv("conv2d_s1_p1_bias", normal(2, 3, 5, 5), normal(4, 3, 3, 3),
                  normal(4), (1, 1), (1, 1, 1, 1), (1, 1), 1, (2, 4, 5, 5)))
    c.append(conv("conv2d_s2_d2_g2", normal(1, 4, 9, 9), normal(6, 2, 3, 3),
                  None, (2, 2), (1, 1, 1, 1), (2, 2), 2, (1, 6, 4, 4)))
    # H: (6 - 3) / 2 + 1 = 2 rows, the stride skips row 5; W: padded
    # left by 1 to 8, (8 - 3) / 2 + 1 = 3 columns, the last one unused.
    c.append(conv("conv2d_s2_skip", normal(1, 2, 6, 7), normal(3, 2, 3, 3),
                  normal(3), (2, 2), (0, 1, 0, 0), (1, 1), 1, (1, 3, 2, 3)))
    c.append(conv("conv2d_s1_p1_bias_f32", normal(1, 2, 4, 4),
                  normal(3, 2, 3, 3), normal(3), (1, 1), (1, 1, 1, 1), (1, 1),
                  1, (1, 3, 4, 4), "f32"))

    # Transposed convolution: weight [C_in, C_out / groups, kh, kw]; output
    # (in - 1) * s - pads + d * (k - 1) + output_padding + 1.
    def conv_t(name, x, w, bias, strides, pads, dilations, out_pad, groups,
               out):
        args = {"x": x, "w": w}
        operands, types = "%x, %w", "{x}, {w}"
        if bias is not None:
            args["b"] = bias
            operands += ", %b"
            types += ", {b}"
        return Case(name, args,
                    f"%out = oneflow.conv_transpose2d {operands} {{strides = "
                    f"{i64s(strides)}, pads = {i64s(pads)}, dilations = "
                    f"{i64s(dilations)}, output_padding = {i64s(out_pad)}, "
                    f"groups = {groups}}} : ({types}) -> {{out}}", out)
    c.append(conv_t("conv_transpose2d_s1_bias", normal(2, 3, 4, 4),
                    normal(3, 2, 3, 3), normal(2), (1, 1), (1, 1, 1, 1),
                    (1, 1), (0, 0), 1, (2, 2, 4, 4)))
    c.append(conv_t("conv_transpose2d_s2_op1_g2", normal(1, 4, 3, 3),
                    normal(4, 1, 3, 3), None, (2, 2), (1, 1, 1, 1), (1, 1),
                    (1, 1), 2, (1, 2, 6, 6)))

    # Pooling.
    def pool(name, op, x, attrs, out):
        return Case(name, {"x": x},
                    f"%out = oneflow.{op} %x {{{attrs}}} : {{x}} -> {{out}}", out)
    c.append(pool("max_pool2d_k2_s2", "max_pool2d", distinct(1, 2, 4, 4),
                  "kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, "
                  "pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>",
                  (1, 2, 2, 2)))
    c.append(pool("max_pool2d_k3_s1_p1", "max_pool2d", distinct(1, 2, 4, 5),
                  "kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, "
                  "pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>",
                  (1, 2, 4, 5)))
    c.append(pool("max_pool2d_ceil", "max_pool2d", distinct(1, 2, 5, 5),
                  "kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, "
                  "pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, "
                  "ceil_mode", (1, 2, 3, 3)))
    c.append(pool("max_pool2d_dilation2", "max_pool2d", distinct(1, 2, 5, 6),
                  "kernel = array<i64: 2, 2>, strides = array<i64: 1, 2>, "
                  "pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>",
                  (1, 2, 3, 2)))
    c.append(pool("avg_pool2d_k2_s2", "avg_pool2d", normal(1, 2, 4, 4),
                  "kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, "
                  "pads = array<i64: 0, 0, 0, 0>", (1, 2, 2, 2)))
    c.append(pool("avg_pool2d_k3_s1_p1_include", "avg_pool2d",
                  normal(1, 2, 4, 5),
                  "kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, "
                  "pads = array<i64: 1, 1, 1, 1>, count_include_pad",
                  (1, 2, 4, 5)))
    c.append(pool("avg_pool2d_k3_s1_p1_exclude", "avg_pool2d",
                  normal(1, 2, 4, 5),
                  "kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, "
                  "pads = array<i64: 1, 1, 1, 1>", (1, 2, 4, 5)))
    c.append(pool("avg_pool2d_ceil", "avg_pool2d", normal(1, 2, 5, 5),
                  "kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, "
                  "pads = array<i64: 0, 0, 0, 0>, ceil_mode", (1, 2, 3, 3)))
    c.append(pool("avg_pool2d_ceil_p1_exclude", "avg_pool2d",
                  normal(1, 2, 6, 6),
                  "kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, "
                  "pads = array<i64: 1, 1, 1, 1>, ceil_mode", (1, 2, 4, 4)))
    c.append(Case("global_avg_pool2d", {"x": normal(2, 3, 3, 4)},
                  "%out = oneflow.global_avg_pool2d %x : {x} -> {out}",
                  (2, 3, 1, 1)))
    c.append(Case("global_max_pool2d", {"x": distinct(2, 3, 3, 4)},
                  "%out = oneflow.global_max_pool2d %x : {x} -> {out}",
                  (2, 3, 1, 1)))

    # Normalization.
    c.append(Case("batch_norm_train",
                  {"x": normal(4, 3, 2, 2, scale=2) + 0.5,
                   "scale": normal(3), "bias": normal(3)},
                  "%out, %nm, %nv, %sm, %si = oneflow.batch_norm_train %x, "
                  "%scale, %bias, %rm, %rv {epsilon = 1.0e-3, momentum = 0.2}"
                  " : {x}, {scale}",
                  (4, 3, 2, 2),
                  consts={"rm": normal(3), "rv": uniform(0.5, 2, 3)}))
    c.append(Case("batch_norm_train_2d",
                  {"x": normal(6, 3), "scale": normal(3), "bias": normal(3)},
                  "%out, %nm, %nv, %sm, %si = oneflow.batch_norm_train %x, "
                  "%scale, %bias, %rm, %rv : {x}, {scale}",
                  (6, 3),
                  consts={"rm": normal(3), "rv": uniform(0.5, 2, 3)}))
    c.append(Case("batch_norm",
                  {"x": normal(2, 3, 2, 2), "scale": normal(3),
                   "bias": normal(3)},
                  "%out = oneflow.batch_norm %x, %scale, %bias, %mean, %var "
                  "{epsilon = 1.0e-3} : {x}, {scale}", (2, 3, 2, 2),
                  consts={"mean": normal(3), "var": uniform(0.5, 2, 3)}))
    # The statistics as arguments: y depends on them too.
    c.append(Case("batch_norm_stats_args",
                  {"x": normal(2, 3, 2, 2), "scale": normal(3),
                   "bias": normal(3), "mean": normal(3),
                   "var": uniform(0.5, 2, 3)},
                  "%out = oneflow.batch_norm %x, %scale, %bias, %mean, %var "
                  "{epsilon = 1.0e-3} : {x}, {scale}", (2, 3, 2, 2)))
    c.append(Case("layer_norm_last_bias",
                  {"x": normal(3, 5), "scale": normal(5), "bias": normal(5)},
                  "%out = oneflow.layer_norm %x, %scale, %bias {axis = 1} : "
                  "({x}, {scale}, {bias}) -> {out}", (3, 5)))
    c.append(Case("layer_norm_axis1_rank3",
                  {"x": normal(2, 3, 4), "scale": normal(3, 4)},
                  "%out = oneflow.layer_norm %x, %scale {axis = 1, epsilon = 1.0e-3} : "
                  "({x}, {scale}) -> {out}", (2, 3, 4)))

    # Reductions.
    for op in ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
               "reduce_prod"]:
        for keep in (False, True):
            if op in ("reduce_max", "reduce_min"):
                x = distinct(2, 3, 4)
            elif op == "reduce_prod":
                x = signed(0.5, 1.5, 2, 3, 4)
            else:
                x = normal(2, 3, 4)
            out = (2, 1, 4) if keep else (2, 4)
            attrs = "axes = array<i64: 1>"
            if op in ("reduce_sum", "reduce_max"):
                attrs = "axes = array<i64: 0, 2>"
                out = (1, 3, 1) if keep else (3,)
            if keep:
                attrs += ", keepdims"
            c.append(Case(f"{op}{'_keepdims' if keep else ''}", {"x": x},
                          f"%out = oneflow.{op} %x {{{attrs}}} : {{x}} -> {{out}}",
                          out))
    c.append(Case("reduce_mean_all", {"x": normal(2, 3)},
                  "%out = oneflow.reduce_mean %x {axes = array<i64: 0, 1>} : "
                  "{x} -> {out}", ()))
    c.append(Case("softmax_axis1", {"x": normal(2, 3, 4, scale=2)},
                  "%out = oneflow.softmax %x {axis = 1} : {x}", (2, 3, 4)))
    c.append(Case("log_softmax_axis1", {"x": normal(2, 3, 4, scale=2)},
                  "%out = oneflow.log_softmax %x {axis = 1} : {x}", (2, 3, 4)))

    # Shape and data movement.
    c.append(Case("reshape", {"x": normal(2, 3, 4)},
                  "%out = oneflow.reshape %x : {x} to {out}", (6, 4)))
    c.append(Case("flatten", {"x": normal(2, 3, 4)},
                  "%out = oneflow.flatten %x {axis = 2} : {x} -> {out}", (6, 4)))
    c.append(Case("squeeze", {"x": normal(2, 1, 3)},
                  "%out = oneflow.squeeze %x {axes = array<i64: 1>} : {x} -> {out}",
                  (2, 3)))
    c.append(Case("unsqueeze", {"x": normal(2, 3)},
                  "%out = oneflow.unsqueeze %x {axes = array<i64: 1, 3>} : {x} -> {out}",
                  (2, 1, 3, 1)))
    c.append(Case("transpose", {"x": normal(2, 3, 4)},
                  "%out = oneflow.transpose %x {perm = array<i64: 1, 2, 0>} : {x} -> {out}",
                  (3, 4, 2)))
    c.append(Case("concat3", {"a": normal(2, 1), "b": normal(2, 3),
                              "c": normal(2, 2)},
                  "%out = oneflow.concat %a, %b, %c {axis = 1} : ({a}, {b}, {c}) -> {out}",
                  (2, 6)))
    c.append(Case("split", {"x": normal(3, 4)},
                  "%s:2 = oneflow.split %x {axis = 1, sizes = array<i64: 2, 2>} : "
                  "{x} -> {out}, {out}\n"
                  "%out = oneflow.mul %s#0, %s#1 : ({out}, {out}) -> {out}",
                  (3, 2)))
    c.append(Case("slice_step2", {"x": normal(5, 6)},
                  "%out = oneflow.slice %x {starts = array<i64: 0, 1>, "
                  "limits = array<i64: 5, 6>, steps = array<i64: 2, 2>} : {x} -> {out}",
                  (3, 3)))
    c.append(Case("slice_negative_step", {"x": normal(5, 6)},
                  "%out = oneflow.slice %x {starts = array<i64: 4, 5>, "
                  "limits = array<i64: -1, 0>, steps = array<i64: -1, -2>} : {x} -> {out}",
                  (5, 3)))
    c.append(Case("gather_axis0_repeat_negative", {"x": normal(4, 3)},
                  "%out = oneflow.gather %x, %idx : ({x}, {idx}) -> {out}",
                  (3, 2, 3),
                  consts={"idx": np.array([[0, -1], [2, 0], [-1, 3]])}))
    c.append(Case("gather_axis1", {"x": normal(2, 5)},
                  "%out = oneflow.gather %x, %idx {axis = 1} : ({x}, {idx}) -> {out}",
                  (2, 4), consts={"idx": np.array([4, -2, 4, 0], np.int32)}))
    c.append(Case("gather_indices_arg", {"x": normal(5, 3),
                                         "idx": np.array([[1, 1], [-1, 0]])},
                  "%out = oneflow.gather %x, %idx : ({x}, {idx}) -> {out}",
                  (2, 2, 3)))
    c.append(Case("gather_elements_axis0", {"x": normal(3, 4)},
                  "%out = oneflow.gather_elements %x, %idx : ({x}, {idx}) -> {out}",
                  (2, 4),
                  consts={"idx": np.array([[0, -1, 2, 0], [0, 1, -1, 0]])}))
    c.append(Case("gather_elements_axis1", {"x": normal(3, 4)},
                  "%out = oneflow.gather_elements %x, %idx {axis = 1} : ({x}, {idx}) -> {out}",
                  (2, 5),
                  consts={"idx": np.array([[3, 3, -4, 1, 0],
                                           [2, -1, 0, 2, 2]], np.int32)}))
    for tag, attrs in [("", ""), ("_exclusive", ", exclusive"),
                       ("_reverse", ", reverse"),
                       ("_exclusive_reverse", ", exclusive, reverse")]:
        c.append(Case(f"cumsum{tag}", {"x": normal(3, 4)},
                      f"%out = oneflow.cumsum %x {{axis = 1{attrs}}} : {{x}}",
                      (3, 4)))
    c.append(Case("cumsum_axis0_reverse", {"x": normal(4, 2)},
                  "%out = oneflow.cumsum %x {axis = 0, reverse} : {x}", (4, 2)))
    c.append(Case("expand", {"x": normal(3, 1)},
                  "%out = oneflow.expand %x : {x} to {out}", (2, 3, 4)))
    c.append(Case("tile", {"x": normal(2, 3)},
                  "%out = oneflow.tile %x {repeats = array<i64: 2, 3>} : {x} -> {out}",
                  (4, 9)))
    c.append(Case("pad_constant", {"x": normal(2, 3)},
                  "%out = oneflow.pad %x {pads = array<i64: 1, 0, 2, 1>, value = 0.5} :"
                  " {x} -> {out}", (5, 4)))

    # Losses; labels are an int64 argument.
    labels = np.array([1, 4, 0, 2, 4, 3])
    for red in ("mean", "sum", "none"):
        c.append(Case(f"softmax_cross_entropy_{red}",
                      {"logits": normal(6, 5, scale=2), "labels": labels},
                      "%out = oneflow.softmax_cross_entropy %logits, %labels "
                      f"{{reduction = #oneflow.reduction<{red}>}} : "
                      "({logits}, {labels}) -> {out}",
                      (6,) if red == "none" else ()))
    c.append(Case("softmax_cross_entropy_mean_ignore",
                  {"logits": normal(6, 5, scale=2),
                   "labels": np.array([1, -100, 0, 2, -100, 3])},
                  "%out = oneflow.softmax_cross_entropy %logits, %labels "
                  "{ignore_index = -100} : ({logits}, {labels}) -> {out}", ()))
    c.append(Case("softmax_cross_entropy_rank3",
                  {"logits": normal(2, 3, 4, scale=2),
                   "labels": np.array([[0, 3, 1], [2, 2, 0]])},
                  "%out = oneflow.softmax_cross_entropy %logits, %labels : "
                  "({logits}, {labels}) -> {out}", ()))
    for red in ("mean", "sum", "none"):
        c.append(Case(f"mse_loss_{red}",
                      {"input": normal(3, 4), "target": normal(3, 4)},
                      "%out = oneflow.mse_loss %input, %target "
                      f"{{reduction = #oneflow.reduction<{red}>}} : "
                      "({input}, {target}) -> {out}",
                      (3, 4) if red == "none" else ()))
    c.append(Case("topk_values", {"x": distinct(2, 5)},
                  "%v, %i = oneflow.topk %x {axis = 1, k = 3, sorted} : "
                  "{x} -> {out}, tensor<2x3xi64>\n%out = oneflow.neg %v : {out}",
                  (2, 3)))
    return c


#===----------------------------------------------------------------------===#
# Running a case
#===----------------------------------------------------------------------===#

class Failure(Exception):
    pass


def run(cmd, what):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        tail = [l.strip() for l in lines if "error:" in l][:3] or lines[-6:]
        raise Failure(f"{what} failed (exit {proc.returncode}): " +
                      " | ".join(tail))
    return proc


def check(case, work, tools, selftest=False):
    opt, runner = tools
    os.makedirs(work, exist_ok=True)
    h, rtol, atol = SETTINGS[case.precision]
    # W and the directions from a per-case RNG: the same whatever else runs.
    crng = np.random.default_rng([ord(ch) for ch in case.name])
    weight = crng.standard_normal(case.out)
    with open(os.path.join(work, "case.mlir"), "w") as f:
        f.write(case.mlir(weight))
    run([opt, os.path.join(work, "case.mlir"), "--oneflow-autodiff=wrt=arguments",
         "-o", os.path.join(work, "grad.mlir")], "oneflow-opt --oneflow-autodiff")
    run([opt, os.path.join(work, "grad.mlir"), "--emit=plan",
         "-o", os.path.join(work, "plan")], "oneflow-opt --emit=plan")

    floats = case.floats()
    steps = []  # (arg, direction, sign) per perturbed step
    values = {n: [] for n in case.args}
    for name in floats:
        base = case.args[name]
        for d in range(DIRECTIONS):
            v = crng.standard_normal(base.shape)
            for sign in (1, -1):
                steps.append((name, d))
                for other, a in case.args.items():
                    values[other].append(
                        (a.astype(np.float64) + sign * h * v).astype(a.dtype)
                        if other == name else a)
    for name, a in case.args.items():
        values[name].append(a)
    data = []
    for name, vs in values.items():
        path = os.path.join(work, f"data_{name}.npy")
        np.save(path, np.stack(vs))
        data += ["--data", f"{name}={path}"]
    nsteps = len(steps) + 1
    metrics = os.path.join(work, "metrics.jsonl")
    out_dir = os.path.join(work, "out")
    run([runner, os.path.join(work, "plan"), *data, "--steps", str(nsteps),
         "--quiet", "--metrics", metrics, "--output-dir", out_dir],
        "oneflow-run")
    with open(metrics) as f:
        records = [json.loads(line) for line in f]
    if [r["step"] for r in records] != list(range(nsteps)):
        raise Failure(f"metrics has steps {[r['step'] for r in records]}, "
                      f"expected 0..{nsteps - 1}")
    losses = np.array([r["loss"] for r in records], np.float64)
    if not np.all(np.isfinite(losses)):
        raise Failure(f"non-finite losses {losses}")
    base_loss = float(np.load(os.path.join(out_dir, "loss.npy")))
    if base_loss != losses[-1]:
        raise Failure(f"loss.npy {base_loss!r} != last metrics loss "
                      f"{losses[-1]!r}")

    grads = {}
    for name in floats:
        path = os.path.join(out_dir, f"grad_{name}.npy")
        if not os.path.exists(path):
            raise Failure(f"no grad_{name} output")
        g = np.load(path).astype(np.float64)
        if g.shape != (1,) + case.args[name].shape:
            raise Failure(f"grad_{name} has shape {g.shape}, expected "
                          f"{(1,) + case.args[name].shape}")
        g = g[0]
        if selftest and name == floats[0]:
            g = g.copy()
            g.flat[0] += 1e-4 * (1 + abs(g.flat[0]))
        grads[name] = g
        if case.zero and np.any(g != 0):
            raise Failure(f"grad_{name} is not zero: max |g| = "
                          f"{np.abs(g).max():.3g}")

    worst_abs, worst_rel, worst_ratio, problems = 0.0, 0.0, 0.0, []
    scale = max(1.0, float(np.abs(losses).max()))
    for i, (name, d) in enumerate(steps[::2]):
        plus, minus = values[name][2 * i], values[name][2 * i + 1]
        delta = plus.astype(np.float64) - minus.astype(np.float64)
        an = float(np.sum(grads[name] * delta)) / (2 * h)
        fd = (losses[2 * i] - losses[2 * i + 1]) / (2 * h)
        err = abs(fd - an)
        rel = err / max(abs(fd), abs(an), 1e-300)
        tol = rtol * max(abs(fd), abs(an)) + atol * scale
        worst_abs = max(worst_abs, err)
        worst_rel = max(worst_rel, rel if err > 0 else 0.0)
        worst_ratio = max(worst_ratio, err / tol)
        if not err <= tol:
            problems.append(f"grad_{name} direction {d}: finite difference "
                            f"{fd:.12g}, analytic {an:.12g} (error {err:.3g}, "
                            f"relative {rel:.3g})")
    # The loss must depend on every float argument (else the check is empty).
    for name in floats:
        moved = [abs(losses[2 * i] - losses[2 * i + 1])
                 for i, (arg, _) in enumerate(steps[::2]) if arg == name]
        if not case.zero and max(moved) <= atol * scale:
            problems.append(f"the loss does not depend on {name}")
    if problems:
        raise Failure("; ".join(problems))
    return worst_abs, worst_rel, worst_ratio


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir")
    parser.add_argument("--only", default="", help="regex on case names")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--selftest", action="store_true")
    parser.add_argument("--opt", default=shutil.which("oneflow-opt"))
    parser.add_argument("--run", default=shutil.which("oneflow-run"))
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    if not args.opt or not args.run:
        sys.exit("error: oneflow-opt and oneflow-run must be on PATH "
                 "(or given with --opt/--run)")
    all_cases = cases()
    names = [c.name for c in all_cases]
    assert len(set(names)) == len(names), "duplicate case names"
    for known in KNOWN_FAILURES:
        assert known in names, known
    if args.list:
        print("\n".join(names))
        return
    if args.selftest:
        selected = [c for c in all_cases if c.name == "tanh"]
    else:
        selected = [c for c in all_cases if re.search(args.only, c.name)]
    if not selected:
        sys.exit("error: no case selected")

    def one(case):
        try:
            e = check(case, os.path.join(args.workdir, case.name),
                      (args.opt, args.run), args.selftest)
            return case, e, None
        except Failure as failure:
            return case, None, str(failure)
        except Exception as error:  # a bug in the case itself
            return case, None, f"{type(error).__name__}: {error}"

    passed, failed, known, unexpected = 0, [], 0, []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for case, errors, failure in pool.map(one, selected):
            tag = f"{case.name} ({case.precision})"
            if case.name in KNOWN_FAILURES:
                if failure:
                    known += 1
                    print(f"known failure {tag}: {KNOWN_FAILURES[case.name]}: "
                          f"{failure}")
                else:
                    unexpected.append(tag)
                    print(f"UNEXPECTED PASS {tag}: max error {errors[0]:.3g} "
                          f"(remove it from KNOWN_FAILURES)")
            elif failure:
                failed.append(tag)
                print(f"FAIL {tag}: {failure}")
            else:
                passed += 1
                print(f"ok {tag}: max error {errors[0]:.2g} "
                      f"(relative {errors[1]:.2g}, {errors[2]:.2g} of the "
                      f"tolerance)")
            sys.stdout.flush()
    summary = f"gradient checks: {passed} cases passed"
    if known:
        summary += f", {known} known failures"
    print(summary)
    if failed or unexpected:
        print("FAILED: " + ", ".join(failed + unexpected))
        sys.exit(1)


if __name__ == "__main__":
    main()
