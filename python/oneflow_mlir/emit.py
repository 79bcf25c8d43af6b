"""From an aten trace to `oneflow` dialect MLIR.

Every parameter and buffer the forward reads becomes a `oneflow.variable`
named by its state_dict key (its data goes to a side directory the compiler
reads with --weights); every input a function argument. Nodes that depend on
no input or parameter (arange, masks from buffers) are evaluated here and
become constants. In-place aten ops (relu_, add_) are emitted out of place:
the mutated tensor takes the new value. Each op's location is the path of
the module that created it.

Ops are written in MLIR's generic form, with result types from the trace.
"""

import math
import operator
import struct

import torch

from . import errors

DTYPES = {
    torch.float32: "f32",
    torch.float64: "f64",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.bool: "i1",
}


def tensor_type(shape, dtype):
    if dtype not in DTYPES:
        raise errors.CompileError(f"unsupported dtype {dtype}")
    return "tensor<" + "".join(f"{d}x" for d in shape) + DTYPES[dtype] + ">"


def f64(value):
    value = float(value)
    if math.isfinite(value):
        return "%.17e : f64" % value
    return "0x%016X : f64" % struct.unpack("<Q", struct.pack("<d", value))[0]


def i64(value):
    return f"{int(value)} : i64"


def array(values):
    return "array<i64" + (": " + ", ".join(str(int(v)) for v in values) if len(values) else "") + ">"


def dense(tensor):
    """A dense elements literal for a constant tensor (hex for numbers)."""
    t = tensor.detach().contiguous()
    ty = tensor_type(t.shape, t.dtype)
    if t.dtype == torch.bool:
        if t.numel() == 0:
            return f"dense<> : {ty}"
        flat = t.reshape(-1)
        if bool((flat == flat[0]).all()):
            return f"dense<{'true' if bool(flat[0]) else 'false'}> : {ty}"
        nested = _nested(t.tolist())
        return f"dense<{nested}> : {ty}"
    data = t.numpy().tobytes()
    if t.numel() == 1:
        # A splat: hex of the one element.
        return f'dense<0x{data[::-1].hex().upper()}> : {ty}' if t.dtype.is_floating_point \
            else f"dense<{int(t.reshape(-1)[0])}> : {ty}"
    return f'dense<"0x{data.hex().upper()}"> : {ty}'


def _nested(values):
    if isinstance(values, list):
        return "[" + ", ".join(_nested(v) for v in values) + "]"
    return "true" if values else "false"


class Noise:
    """A dropout draw not emitted yet: torch 1.13 traces F.dropout (training,
    inputs requiring grad) as empty_like -> bernoulli_(q) -> div_(q) -> mul;
    the chain becomes one oneflow.dropout of the multiplied tensor."""

    def __init__(self, shape, dtype, keep=None, scaled=False):
        self.shape, self.dtype, self.keep, self.scaled = tuple(shape), dtype, keep, scaled


class LazyVariable:
    """A parameter not read yet."""

    def __init__(self, name, tensor):
        self.name, self.tensor = name, tensor


class Value:
    """An SSA value: its name, shape and dtype."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)


def _packet(node):
    """(op name without overload, overload, in place) of an aten node."""
    target = node.target
    if not hasattr(target, "overloadpacket"):
        return getattr(target, "__name__", str(target)), "", False
    name = target.overloadpacket.__name__
    overload = target._overloadname
    inplace = name.endswith("_") and not name.endswith("__")
    return (name[:-1] if inplace else name), overload, inplace


def _meta(node):
    tm = node.meta.get("tensor_meta")
    return tm


def _norm_dim(d, rank):
    return d + rank if d < 0 else d


class Emitter:
    def __init__(self, trace, gm, root_name):
        self.trace = trace
        self.gm = gm
        self.root_name = root_name
        self.lines = []
        self.counter = 0
        self.env = {}
        self.variables = {}  # name -> Value of its read
        self.used_params = []
        self.loc = root_name
        self.stage = None  # the pipeline stage of the ops being emitted
        self.split_before = []
        self.pins = {}  # parameter name -> #sbp.nd<...> text
        self.training = False  # a training-mode trace (dropout, batch norm)
        self.seed = 0
        self.dropouts = 0  # dropout ops so far: the next one's stream
        self.step = None  # the read of dropout.step (the dropouts' counter)

    # -- Emission helpers ---------------------------------------------------

    def fresh(self):
        self.counter += 1
        return f"%v{self.counter}"

    def op(self, name, operands, attrs, results, loc=None):
        """Emits `oneflow.<name>`; results: [(shape, dtype)]; returns Values."""
        names = self.fresh()
        outs = [Value(names if len(results) == 1 else f"{names}#{i}", s, d)
                for i, (s, d) in enumerate(results)]
        if self.stage is not None:
            attrs = dict(attrs or {})
            attrs["oneflow.stage"] = i64(self.stage)
        attr_text = ""
        if attrs:
            attr_text = " {" + ", ".join(f"{k} = {v}" if v is not None else k
                                         for k, v in attrs.items()) + "}"
        lhs = names if len(results) == 1 else f"{names}:{len(results)}"
        operand_types = ", ".join(v.type for v in operands)
        result_types = ", ".join(v.type for v in outs)
        if len(outs) != 1:
            result_types = f"({result_types})"
        where = (loc if loc is not None else self.loc) or self.root_name
        self.lines.append(
            f"    {lhs} = \"oneflow.{name}\"({', '.join(v.name for v in operands)}){attr_text}"
            f" : ({operand_types}) -> {result_types} loc(\"{where}\")")
        return outs

    def op1(self, name, operands, attrs, shape, dtype):
        return self.op(name, operands, attrs, [(shape, dtype)])[0]

    def constant(self, tensor):
        t = tensor.detach()
        if t.dtype not in DTYPES:
            t = t.to(torch.float32)
        return self.op1("constant", [], {"value": dense(t)}, t.shape, t.dtype)

    def scalar(self, value, dtype):
        return self.constant(torch.tensor(value, dtype=dtype))

    def value(self, arg, dtype=None):
        """The Value of an operand: a node, a constant tensor or a number."""
        if isinstance(arg, torch.fx.Node):
            v = self.env[arg]
            if isinstance(v, Noise):
                raise errors.CompileError(
                    f"{self.loc}: a random tensor (bernoulli) used other than as dropout")
            if isinstance(v, LazyVariable):
                # Read where first used (so that it lives on that stage).
                lazy = v
                loc, self.loc = self.loc, lazy.name
                attrs = {"var_name": f'"{lazy.name}"', "initializer": "#oneflow.init<zeros>"}
                if lazy.name in self.pins:
                    attrs["oneflow.pinned_sbp"] = self.pins[lazy.name]
                v = self.op1("variable", [], attrs, lazy.tensor.shape, lazy.tensor.dtype)
                self.loc = loc
                self.env[arg] = v
                self.used_params.append(lazy.name)
            if isinstance(v, torch.Tensor):
                return self.constant(v)
            return v
        if isinstance(arg, torch.Tensor):
            return self.constant(arg)
        return self.scalar(arg, dtype or torch.float32)

    def cast(self, v, dtype):
        if v.dtype == dtype:
            return v
        return self.op1("cast", [v], {}, v.shape, dtype)

    def reshape(self, v, shape):
        shape = tuple(shape)
        if v.shape == shape:
            return v
        return self.op1("reshape", [v], {}, shape, v.dtype)

    # -- The graph ----------------------------------------------------------

    def live_nodes(self):
        nodes = list(self.trace.graph.nodes)
        live = set()
        for node in reversed(nodes):
            if node.op == "output" or node in live:
                live.add(node)
                for a in node.all_input_nodes:
                    live.add(a)
        return [n for n in nodes if n in live]

    def check_supported(self, nodes):
        missing = {}
        for node in nodes:
            if node.op != "call_function":
                continue
            if node.target is operator.getitem:
                continue
            name, _, _ = _packet(node)
            if name not in HANDLERS and node not in self._consts:
                missing.setdefault(str(node.target), set()).add(
                    node.meta.get("module_path") or self.root_name)
        if missing:
            raise errors.UnsupportedOpsError(missing)

    def emit(self, input_names):
        nodes = self.live_nodes()
        placeholders = [n for n in nodes if n.op == "placeholder"]
        all_placeholders = [n for n in self.trace.graph.nodes if n.op == "placeholder"]
        nparams = len(self.trace.state_names)
        # Which nodes are computable here (no input, no parameter).
        self._consts = set()
        for node in nodes:
            if node.op == "get_attr":
                self._consts.add(node)
            elif node.op == "call_function" and node.all_input_nodes and all(
                    a in self._consts for a in node.all_input_nodes):
                self._consts.add(node)
            elif node.op == "call_function" and not node.all_input_nodes:
                self._consts.add(node)
        self.check_supported(nodes)

        args = []
        for i, node in enumerate(all_placeholders):
            if i < nparams:
                name = self.trace.state_names[i]
                tensor = self.trace.params[name]
                if node not in placeholders:
                    continue
                if tensor.dtype not in (torch.float32, torch.float64):
                    # Integer buffers (num_batches_tracked): constants.
                    self.env[node] = tensor.clone()
                    continue
                self.env[node] = LazyVariable(name, tensor)
            else:
                k = i - nparams
                x = self.trace.inputs[k]
                v = Value(f"%{_ssa(input_names[k])}", x.shape, x.dtype)
                args.append((v, input_names[k]))
                self.env[node] = v

        outputs = None
        for node in nodes:
            if node.op in ("placeholder",):
                continue
            if node.op == "output":
                outputs = node.args[0]
                continue
            self.loc = node.meta.get("module_path") or self.root_name
            if self.split_before:
                self.stage = self.stage or 0
                for i, prefix in enumerate(self.split_before):
                    if self.loc == prefix or self.loc.startswith(prefix + "."):
                        self.stage = max(self.stage, i + 1)
            if node in self._consts:
                self.env[node] = self.evaluate(node)
                continue
            if node.target is operator.getitem:
                self.env[node] = self.env[node.args[0]][node.args[1]]
                continue
            name, overload, inplace = _packet(node)
            try:
                result = HANDLERS[name](self, node, overload)
            except errors.CompileError:
                raise
            except Exception as e:  # a bug or an unsupported form: say where
                raise errors.CompileError(
                    f"{self.loc}: cannot emit {node.target}: {type(e).__name__}: {e}") from e
            self.env[node] = result
            if inplace:
                self.env[node.args[0]] = result

        flat = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
        results = [self.value(o) for o in flat]
        return args, results

    def evaluate(self, node):
        if node.op == "get_attr":
            return getattr(self.gm, node.target).detach()

        def conv(a):
            if isinstance(a, torch.fx.Node):
                return self.env[a]
            if isinstance(a, (list, tuple)):
                return type(a)(conv(x) for x in a)
            return a
        return node.target(*conv(node.args), **{k: conv(v) for k, v in node.kwargs.items()})


def _ssa(name):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def emit_module(trace, gm, input_names, output_names=None, root_name="model",
                split_before=(), pins=None, training=False, seed=0):
    """The MLIR text of the trace and the names of the variables it reads.

    split_before: module paths that start pipeline stages 1, 2, ... (ops get
    `oneflow.stage` annotations)."""
    e = Emitter(trace, gm, root_name)
    e.split_before = list(split_before)
    e.pins = dict(pins or {})
    e.training = training
    e.seed = seed
    args, results = e.emit(input_names)
    if output_names is None:
        output_names = ["output"] if len(results) == 1 else [f"output_{i}" for i in range(len(results))]
    sig = ", ".join(f"{v.name}: {v.type} {{onnx.name = \"{n}\"}}" for v, n in args)
    res = ", ".join(f"{v.type} {{onnx.name = \"{n}\"}}" for v, n in zip(results, output_names))
    text = ["module {", f"  func.func @main({sig}) -> ({res}) {{"]
    text += e.lines
    text.append(f"    return {', '.join(v.name for v in results)} : {', '.join(v.type for v in results)}")
    text += ["  }", "}", ""]
    return "\n".join(text), e.used_params, output_names, results


# ---------------------------------------------------------------------------
# Handlers: one per aten op (without overload); each returns the node's value
# (a Value, or a list for multi-result ops).
# ---------------------------------------------------------------------------

HANDLERS = {}


def handler(*names):
    def register(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return register


def out_meta(node):
    tm = _meta(node)
    return tuple(tm.shape), tm.dtype


def arg(node, i, name, default=None):
    if len(node.args) > i:
        return node.args[i]
    return node.kwargs.get(name, default)


@handler("view", "_unsafe_view", "_reshape_alias", "reshape", "unsqueeze", "squeeze",
         "flatten", "expand_dims")
def _reshape(e, node, _):
    shape, _ = out_meta(node)
    return e.reshape(e.value(node.args[0]), shape)


@handler("clone", "detach", "alias", "contiguous", "lift_fresh_copy", "lift_fresh",
         "dropout", "feature_dropout")
def _identity(e, node, _):
    return e.value(node.args[0])


@handler("_to_copy", "to")
def _to_copy(e, node, _):
    shape, dtype = out_meta(node)
    return e.cast(e.value(node.args[0]), dtype)


def transpose(e, v, perm):
    if list(perm) == list(range(len(perm))):
        return v
    shape = tuple(v.shape[p] for p in perm)
    return e.op1("transpose", [v], {"perm": array(perm)}, shape, v.dtype)


@handler("t")
def _t(e, node, _):
    v = e.value(node.args[0])
    return transpose(e, v, [1, 0]) if len(v.shape) == 2 else v


@handler("permute")
def _permute(e, node, _):
    v = e.value(node.args[0])
    return transpose(e, v, [_norm_dim(d, len(v.shape)) for d in node.args[1]])


@handler("transpose")
def _transpose(e, node, _):
    v = e.value(node.args[0])
    r = len(v.shape)
    a, b = _norm_dim(node.args[1], r), _norm_dim(node.args[2], r)
    perm = list(range(r))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(e, v, perm)


@handler("expand")
def _expand(e, node, _):
    shape, _ = out_meta(node)
    v = e.value(node.args[0])
    if v.shape == shape:
        return v
    return e.op1("expand", [v], {}, shape, v.dtype)


def slice_(e, v, dim, start, end, step):
    size = v.shape[dim]
    start = 0 if start is None else start
    end = size if end is None else end
    if start < 0:
        start += size
    if end < 0:
        end += size
    start, end = max(0, min(start, size)), max(0, min(end, size))
    if start == 0 and end == size and step == 1:
        return v
    rank = len(v.shape)
    starts, limits, steps = [0] * rank, list(v.shape), [1] * rank
    starts[dim], limits[dim], steps[dim] = start, end, step
    shape = list(v.shape)
    shape[dim] = max(0, (end - start + step - 1) // step)
    return e.op1("slice", [v], {"starts": array(starts), "limits": array(limits),
                               "steps": array(steps)}, shape, v.dtype)


@handler("slice")
def _slice(e, node, _):
    v = e.value(node.args[0])
    dim = _norm_dim(arg(node, 1, "dim", 0), len(v.shape))
    return slice_(e, v, dim, arg(node, 2, "start"), arg(node, 3, "end"), arg(node, 4, "step", 1))


@handler("select")
def _select(e, node, _):
    v = e.value(node.args[0])
    dim = _norm_dim(node.args[1], len(v.shape))
    index = node.args[2] % v.shape[dim]
    s = slice_(e, v, dim, index, index + 1, 1)
    shape, _ = out_meta(node)
    return e.reshape(s, shape)


@handler("split", "split_with_sizes")
def _split(e, node, overload):
    v = e.value(node.args[0])
    dim = _norm_dim(arg(node, 2, "dim", 0), len(v.shape))
    size = node.args[1]
    if isinstance(size, int):
        total = v.shape[dim]
        sizes = [min(size, total - i) for i in range(0, total, size)]
    else:
        sizes = list(size)
    if len(sizes) == 1:
        return [v]
    results = []
    for s in sizes:
        shape = list(v.shape)
        shape[dim] = s
        results.append((shape, v.dtype))
    return e.op("split", [v], {"axis": i64(dim), "sizes": array(sizes)}, results)


def matmul(e, a, b_node):
    """a @ b, with b = t(w) read as w transposed (a linear layer's weight)."""
    transpose_b = False
    if isinstance(b_node, torch.fx.Node) and b_node.op == "call_function" and \
            _packet(b_node)[0] == "t" and b_node not in e._consts:
        b = e.value(b_node.args[0])
        transpose_b = True
        n = b.shape[0]
    else:
        b = e.value(b_node)
        n = b.shape[1]
    attrs = {"transpose_b": None} if transpose_b else {}
    return e.op1("matmul", [a, b], attrs, (a.shape[0], n), a.dtype)


@handler("mm")
def _mm(e, node, _):
    return matmul(e, e.value(node.args[0]), node.args[1])


@handler("addmm")
def _addmm(e, node, _):
    beta, alpha = node.kwargs.get("beta", 1), node.kwargs.get("alpha", 1)
    product = matmul(e, e.value(node.args[1]), node.args[2])
    shape, dtype = out_meta(node)
    if alpha != 1:
        product = e.op1("mul", [product, e.scalar(alpha, dtype)], {}, shape, dtype)
    bias = e.value(node.args[0])
    if beta != 1:
        bias = e.op1("mul", [bias, e.scalar(beta, dtype)], {}, bias.shape, dtype)
    return e.op1("add", [product, bias], {}, shape, dtype)


@handler("bmm")
def _bmm(e, node, _):
    shape, dtype = out_meta(node)
    return e.op1("batch_matmul", [e.value(node.args[0]), e.value(node.args[1])], {}, shape, dtype)


@handler("convolution")
def _convolution(e, node, _):
    x, w = e.value(node.args[0]), e.value(node.args[1])
    bias = node.args[2]
    stride, padding, dilation, transposed, output_padding, groups = node.args[3:9]
    if len(x.shape) != 4:
        raise errors.CompileError(f"{e.loc}: only 2-D convolutions are supported")
    shape, dtype = out_meta(node)
    operands = [x, w] + ([e.value(bias)] if bias is not None else [])
    attrs = {"strides": array(stride), "pads": array(list(padding) * 2),
             "dilations": array(dilation), "groups": i64(groups)}
    if transposed:
        attrs["output_padding"] = array(output_padding)
        return e.op1("conv_transpose2d", operands, attrs, shape, dtype)
    return e.op1("conv2d", operands, attrs, shape, dtype)


@handler("native_batch_norm", "_native_batch_norm_legit_no_training")
def _batch_norm(e, node, overload):
    x = e.value(node.args[0])
    weight, bias, mean, var = node.args[1:5]
    if node.target.overloadpacket.__name__ == "native_batch_norm":
        training, eps = node.args[5], node.args[7]
    else:
        training, eps = False, node.args[6]
    if training and node.args[6] not in (0.1, None) and e.training:
        raise errors.CompileError(
            f"{e.loc}: batch norm momentum {node.args[6]}: training uses PyTorch's default 0.1")
    if mean is None:
        raise errors.CompileError(
            f"{e.loc}: a batch norm without running statistics is not supported")
    if training and not e.training:
        raise errors.TrainModeError(
            f"{e.loc}: batch norm in training mode (batch statistics) in an inference "
            "graph: g(x) follows model.training; call model.eval() before g(x) "
            "(g.fit trains with batch statistics)")
    c = x.shape[1]
    ones = torch.ones(c, dtype=x.dtype)
    w = e.value(weight) if weight is not None else e.constant(ones)
    b = e.value(bias) if bias is not None else e.constant(torch.zeros(c, dtype=x.dtype))
    y = e.op1("batch_norm", [x, w, b, e.value(mean), e.value(var)],
              {"epsilon": f64(eps)}, x.shape, x.dtype)
    return [y, None, None]


@handler("native_layer_norm")
def _layer_norm(e, node, _):
    x = e.value(node.args[0])
    normalized, weight, bias, eps = node.args[1:5]
    n = len(normalized)
    if weight is None:
        weight = torch.ones(tuple(normalized), dtype=x.dtype)
    operands = [x, e.value(weight)] + ([e.value(bias)] if bias is not None else [])
    y = e.op1("layer_norm", operands, {"axis": i64(len(x.shape) - n), "epsilon": f64(eps)},
              x.shape, x.dtype)
    return [y, None, None]


def unary(name, attrs=None):
    def fn(e, node, _):
        x = e.value(node.args[0])
        return e.op1(name, [x], dict(attrs or {}), x.shape, x.dtype)
    return fn


for _aten, _ours in [("relu", "relu"), ("sigmoid", "sigmoid"), ("tanh", "tanh"), ("silu", "silu"),
                     ("exp", "exp"), ("log", "log"), ("sqrt", "sqrt"), ("rsqrt", "rsqrt"),
                     ("neg", "neg"), ("abs", "abs"), ("erf", "erf"), ("reciprocal", "reciprocal"),
                     ("sin", "sin"), ("cos", "cos"), ("softplus", "softplus"), ("elu", "elu")]:
    HANDLERS[_aten] = unary(_ours)


@handler("gelu")
def _gelu(e, node, _):
    x = e.value(node.args[0])
    approximate = node.kwargs.get("approximate", node.args[1] if len(node.args) > 1 else "none")
    attrs = {"approximate": "#oneflow.gelu_approximation<tanh>"} if approximate == "tanh" else {}
    return e.op1("gelu", [x], attrs, x.shape, x.dtype)


@handler("hardtanh", "clamp", "clamp_min", "clamp_max")
def _clip(e, node, _):
    x = e.value(node.args[0])
    name = _packet(node)[0]
    if name == "hardtanh":
        lo, hi = arg(node, 1, "min_val", -1.0), arg(node, 2, "max_val", 1.0)
    elif name == "clamp_min":
        lo, hi = node.args[1], None
    elif name == "clamp_max":
        lo, hi = None, node.args[1]
    else:
        lo, hi = arg(node, 1, "min"), arg(node, 2, "max")
    attrs = {}
    if lo is not None:
        attrs["min"] = f64(lo)
    if hi is not None:
        attrs["max"] = f64(hi)
    return e.op1("clip", [x], attrs, x.shape, x.dtype)


@handler("leaky_relu")
def _leaky_relu(e, node, _):
    x = e.value(node.args[0])
    return e.op1("leaky_relu", [x], {"alpha": f64(arg(node, 1, "negative_slope", 0.01))},
                 x.shape, x.dtype)


def hard_sigmoid(e, x):
    return e.op1("hard_sigmoid", [x], {"alpha": f64(1.0 / 6.0), "beta": f64(0.5)}, x.shape, x.dtype)


@handler("hardsigmoid")
def _hardsigmoid(e, node, _):
    return hard_sigmoid(e, e.value(node.args[0]))


@handler("hardswish")
def _hardswish(e, node, _):
    x = e.value(node.args[0])
    return e.op1("mul", [x, hard_sigmoid(e, x)], {}, x.shape, x.dtype)


def window(values, n=2):
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    return values * n if len(values) == 1 else values


@handler("max_pool2d_with_indices", "max_pool2d")
def _max_pool(e, node, _):
    x = e.value(node.args[0])
    kernel = window(node.args[1])
    stride = window(arg(node, 2, "stride", []) or kernel)
    padding = window(arg(node, 3, "padding", 0))
    dilation = window(arg(node, 4, "dilation", 1))
    ceil = arg(node, 5, "ceil_mode", False)
    # The result's shape: from the trace of its first result.
    shape = None
    for user in node.users:
        if user.target is operator.getitem and user.args[1] == 0:
            shape = out_meta(user)[0]
    if shape is None:
        shape = out_meta(node)[0]
    attrs = {"kernel": array(kernel), "strides": array(stride), "pads": array(padding * 2),
             "dilations": array(dilation)}
    if ceil:
        attrs["ceil_mode"] = None
    y = e.op1("max_pool2d", [x], attrs, shape, x.dtype)
    return [y, None] if _packet(node)[0] == "max_pool2d_with_indices" else y


@handler("avg_pool2d")
def _avg_pool(e, node, _):
    x = e.value(node.args[0])
    kernel = window(node.args[1])
    stride = window(arg(node, 2, "stride", []) or kernel)
    padding = window(arg(node, 3, "padding", 0))
    ceil = arg(node, 4, "ceil_mode", False)
    include = arg(node, 5, "count_include_pad", True)
    if arg(node, 6, "divisor_override") is not None:
        raise errors.CompileError(f"{e.loc}: avg_pool2d with divisor_override is not supported")
    shape, dtype = out_meta(node)
    attrs = {"kernel": array(kernel), "strides": array(stride), "pads": array(padding * 2)}
    if ceil:
        attrs["ceil_mode"] = None
    if include:
        attrs["count_include_pad"] = None
    return e.op1("avg_pool2d", [x], attrs, shape, x.dtype)


@handler("_adaptive_avg_pool2d", "adaptive_avg_pool2d")
def _adaptive_avg_pool(e, node, _):
    x = e.value(node.args[0])
    shape, dtype = out_meta(node)
    h, w = x.shape[2], x.shape[3]
    oh, ow = shape[2], shape[3]
    if (oh, ow) == (1, 1):
        return e.op1("global_avg_pool2d", [x], {}, shape, x.dtype)
    if h % oh or w % ow:
        return adaptive_avg_pool_matmul(e, x, shape)
    k = [h // oh, w // ow]
    return e.op1("avg_pool2d", [x], {"kernel": array(k), "strides": array(k),
                                     "pads": array([0, 0, 0, 0])}, shape, x.dtype)


def adaptive_pool_matrix(size, out, dtype):
    """[size, out]: column j averages PyTorch's bin j, rows
    floor(j * size / out) to ceil((j + 1) * size / out) (bins may overlap)."""
    m = torch.zeros(size, out, dtype=dtype)
    for j in range(out):
        start, end = (j * size) // out, -((-(j + 1) * size) // out)
        m[start:end, j] = 1.0 / (end - start)
    return m


def adaptive_avg_pool_matmul(e, x, shape):
    """Adaptive average pooling whose bins are not a regular window
    (AlexNet's and VGG's 7x7 pool of a smaller map): two products with
    constant averaging matrices, over the width then the height."""
    n, c, h, w = x.shape
    oh, ow = shape[2], shape[3]
    rows = e.reshape(x, (n * c * h, w))
    y = e.op1("matmul", [rows, e.constant(adaptive_pool_matrix(w, ow, x.dtype))], {},
              (n * c * h, ow), x.dtype)
    y = transpose(e, e.reshape(y, (n * c, h, ow)), [0, 2, 1])
    y = e.reshape(y, (n * c * ow, h))
    y = e.op1("matmul", [y, e.constant(adaptive_pool_matrix(h, oh, x.dtype))], {},
              (n * c * ow, oh), x.dtype)
    return transpose(e, e.reshape(y, (n, c, ow, oh)), [0, 1, 3, 2])


def reduce_axes(v, dims):
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(len(v.shape)))
    dims = [dims] if isinstance(dims, int) else dims
    return sorted(_norm_dim(d, len(v.shape)) for d in dims)


def reduction(name):
    def fn(e, node, overload):
        v = e.value(node.args[0])
        shape, dtype = out_meta(node)
        if overload == "default":
            axes, keep = list(range(len(v.shape))), False
        else:
            axes, keep = reduce_axes(v, arg(node, 1, "dim")), arg(node, 2, "keepdim", False)
        v = e.cast(v, dtype)
        attrs = {"axes": array(axes)}
        if keep:
            attrs["keepdims"] = None
        return e.op1(name, [v], attrs, shape, dtype)
    return fn


HANDLERS["mean"] = reduction("reduce_mean")
HANDLERS["sum"] = reduction("reduce_sum")
HANDLERS["amax"] = reduction("reduce_max")


def _noise(e, a):
    return e.env.get(a) if isinstance(a, torch.fx.Node) and isinstance(e.env.get(a), Noise) else None


def binary(name, reverse=False):
    def fn(e, node, overload):
        shape, dtype = out_meta(node)
        a, b = node.args[0], node.args[1]
        na, nb = _noise(e, a), _noise(e, b)
        if name == "div" and na is not None and na.keep is not None and not na.scaled \
                and not isinstance(b, torch.fx.Node) and float(b) == na.keep:
            return Noise(na.shape, na.dtype, na.keep, scaled=True)
        if name == "mul" and (na is not None) != (nb is not None):
            noise, x = (na, b) if na is not None else (nb, a)
            if noise.scaled and tuple(shape) == noise.shape:
                return dropout(e, e.value(x), 1.0 - noise.keep)
        if na is not None or nb is not None:
            raise errors.CompileError(
                f"{e.loc}: a random tensor (bernoulli) used other than as dropout")
        operand_dtype = dtype if name not in COMPARISONS else None
        if operand_dtype is None:
            # Comparisons: operands in their promoted type.
            ta = e.value(a) if isinstance(a, torch.fx.Node) else None
            operand_dtype = ta.dtype if ta is not None else torch.float32
        va = e.cast(e.value(a, operand_dtype), operand_dtype)
        vb = e.cast(e.value(b, operand_dtype), operand_dtype)
        alpha = node.kwargs.get("alpha", 1)
        if alpha != 1:
            vb = e.op1("mul", [vb, e.scalar(alpha, operand_dtype)], {}, vb.shape, operand_dtype)
        if reverse:
            va, vb = vb, va
        rounding = node.kwargs.get("rounding_mode")
        if rounding is not None:
            raise errors.CompileError(f"{e.loc}: division with rounding_mode={rounding}")
        return e.op1(name, [va, vb], {}, shape, dtype)
    return fn


COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}
for _aten, _ours in [("add", "add"), ("sub", "sub"), ("mul", "mul"), ("div", "div"),
                     ("pow", "pow"), ("maximum", "max"), ("minimum", "min"),
                     ("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                     ("gt", "greater"), ("ge", "greater_equal")]:
    HANDLERS[_aten] = binary(_ours)
HANDLERS["rsub"] = binary("sub", reverse=True)


@handler("cat", "concat")
def _cat(e, node, _):
    values = [e.value(v) for v in node.args[0]]
    values = [v for v in values if 0 not in v.shape] or values[:1]
    shape, dtype = out_meta(node)
    dim = _norm_dim(arg(node, 1, "dim", 0), len(shape))
    if len(values) == 1:
        return values[0]
    return e.op1("concat", values, {"axis": i64(dim)}, shape, dtype)


@handler("_softmax", "softmax", "_log_softmax", "log_softmax")
def _softmax(e, node, _):
    x = e.value(node.args[0])
    name = "log_softmax" if "log" in _packet(node)[0] else "softmax"
    return e.op1(name, [x], {"axis": i64(_norm_dim(node.args[1], len(x.shape)))}, x.shape, x.dtype)


@handler("embedding")
def _embedding(e, node, _):
    w, idx = e.value(node.args[0]), e.value(node.args[1])
    shape, dtype = out_meta(node)
    return e.op1("gather", [w, idx], {"axis": i64(0)}, shape, dtype)


@handler("masked_fill")
def _masked_fill(e, node, _):
    x, mask = e.value(node.args[0]), e.value(node.args[1])
    fill = e.cast(e.value(node.args[2], x.dtype), x.dtype)
    return e.op1("where", [mask, fill, x], {}, x.shape, x.dtype)


@handler("where")
def _where(e, node, _):
    shape, dtype = out_meta(node)
    c = e.value(node.args[0])
    a = e.cast(e.value(node.args[1], dtype), dtype)
    b = e.cast(e.value(node.args[2], dtype), dtype)
    return e.op1("where", [c, a, b], {}, shape, dtype)


@handler("constant_pad_nd")
def _pad(e, node, _):
    x = e.value(node.args[0])
    pad = list(node.args[1])
    value = arg(node, 2, "value", 0.0)
    rank = len(x.shape)
    low, high = [0] * rank, [0] * rank
    for i in range(len(pad) // 2):
        d = rank - 1 - i
        low[d], high[d] = pad[2 * i], pad[2 * i + 1]
    shape, dtype = out_meta(node)
    return e.op1("pad", [x], {"pads": array(low + high), "value": f64(value)}, shape, dtype)


@handler("as_strided")
def _as_strided(e, node, _):
    """A restride that keeps every element where it is (a channels-last
    pooled tensor made contiguous): the identity on values."""
    v = e.value(node.args[0])
    size, stride = list(node.args[1]), list(node.args[2])
    offset = arg(node, 3, "storage_offset", 0) or 0
    contiguous, s = [0] * len(size), 1
    for d in reversed(range(len(size))):
        contiguous[d] = s
        s *= size[d]
    same = tuple(size) == v.shape and offset == 0 and all(
        size[d] == 1 or stride[d] == contiguous[d] for d in range(len(size)))
    if not same:
        raise errors.CompileError(f"{e.loc}: as_strided that moves elements is not supported")
    return v


def positions(e, shape):
    """Each element's row-major index in a tensor of `shape` (int64), as a
    sum of per-dimension index constants: SBP splits them with the tensor."""
    total = None
    stride = 1
    for d in reversed(range(len(shape))):
        if shape[d] > 1:
            index_shape = [1] * len(shape)
            index_shape[d] = shape[d]
            index = (torch.arange(shape[d], dtype=torch.int64) * stride).reshape(index_shape)
            term = e.constant(index)
            if total is None:
                total = term
            else:
                out = tuple(max(a, b) for a, b in zip(total.shape, term.shape))
                total = e.op1("add", [total, term], {}, out, torch.int64)
        stride *= shape[d]
    if total is None:
        total = e.constant(torch.zeros(tuple(shape), dtype=torch.int64))
    return total


@handler("empty_like")
def _empty_like(e, node, _):
    shape, dtype = out_meta(node)
    return Noise(shape, dtype)


@handler("bernoulli")
def _bernoulli(e, node, overload):
    target = _noise(e, node.args[0])
    p = arg(node, 1, "p", 0.5)
    if target is None or isinstance(p, torch.fx.Node) or arg(node, 2, "generator") is not None:
        raise errors.CompileError(f"{e.loc}: bernoulli other than dropout's is not supported")
    return Noise(target.shape, target.dtype, keep=float(p))


@handler("native_dropout")
def _native_dropout(e, node, _):
    x = e.value(node.args[0])
    p, train = node.args[1], arg(node, 2, "train", True)
    if not train or p == 0:
        return [x, None]
    return [dropout(e, x, p), None]


def dropout(e, x, p):
    """oneflow.dropout of x with ratio p: the graph's next stream."""
    if not e.training:
        raise errors.TrainModeError(
            f"{e.loc}: dropout (p={p}) in training mode in an inference graph: g(x) "
            "follows model.training; call model.eval() before g(x) (g.fit trains "
            "with dropout)")
    if p >= 1:
        raise errors.CompileError(f"{e.loc}: dropout ratio {p} >= 1")
    if e.step is None:
        # The graph's step counter (read only: the compiler's training
        # passes advance it once per step, as for ONNX models). No stage:
        # every pipeline stage keeps and advances its own copy.
        loc, e.loc = e.loc, "dropout.step"
        stage, e.stage = e.stage, None
        e.step = e.op1("variable", [], {"var_name": '"dropout.step"',
                                        "initializer": "#oneflow.init<zeros>"}, (), torch.int64)
        e.loc, e.stage = loc, stage
    pos = positions(e, x.shape)
    y = e.op1("dropout", [x, pos, e.step],
              {"ratio": f64(p), "seed": i64(e.seed), "stream": i64(e.dropouts)}, x.shape, x.dtype)
    e.dropouts += 1
    return y
