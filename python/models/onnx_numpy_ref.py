"""A deliberately small NumPy interpreter for the ONNX ops that the torch-exported models use.

onnx 1.12 (Debian bookworm) has no `onnx.reference` and there is no onnxruntime here, so
export_models.py uses this to check that each exported .onnx file computes what PyTorch computed.
Only the op/attribute combinations needed by python/models/*.py are implemented; anything else raises.
"""

import math

import numpy as np
from onnx import numpy_helper


def _attrs(node):
    out = {}
    for a in node.attribute:
        if a.type == a.FLOAT:
            out[a.name] = a.f
        elif a.type == a.INT:
            out[a.name] = a.i
        elif a.type == a.STRING:
            out[a.name] = a.s.decode()
        elif a.type == a.INTS:
            out[a.name] = list(a.ints)
        elif a.type == a.FLOATS:
            out[a.name] = list(a.floats)
        elif a.type == a.TENSOR:
            out[a.name] = numpy_helper.to_array(a.t)
        else:
            raise NotImplementedError(f"attribute type {a.type} ({a.name})")
    return out


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _reduce_axes(x, node_attrs, axes_input, opset):
    if opset >= 18 or axes_input is not None:
        axes = None if axes_input is None else tuple(int(a) for a in axes_input)
    else:
        axes = node_attrs.get("axes")
        axes = None if axes is None else tuple(axes)
    return axes


def _conv2d(x, w, b, strides, pads, dilations, group):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    dh, dw = dilations
    sh, sw = strides
    oh = (x.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (x.shape[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, m, oh, ow), dtype=np.float64)
    mg = m // group
    for g in range(group):
        xg = x[:, g * cg:(g + 1) * cg].astype(np.float64)
        wg = w[g * mg:(g + 1) * mg].astype(np.float64)
        for i in range(kh):
            for j in range(kw):
                patch = xg[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
                out[:, g * mg:(g + 1) * mg] += np.einsum("nchw,mc->nmhw", patch, wg[:, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out.astype(x.dtype)


def run(model, feeds):
    """Evaluate `model` (a ModelProto, all tensors inline) on `feeds` (name -> ndarray); return a dict of outputs."""
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    env = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    env.update(feeds)
    for node in model.graph.node:
        a = _attrs(node)
        x = [env[i] if i else None for i in node.input]
        op = node.op_type
        if op == "Constant":
            (key, val), = a.items()
            if key != "value":
                raise NotImplementedError(f"Constant {key}")
            y = [val]
        elif op in ("Add", "Sub", "Mul", "Div", "Pow"):
            fn = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide, "Pow": np.power}[op]
            r = fn(x[0], x[1])
            if op == "Div" and np.issubdtype(x[0].dtype, np.integer):
                r = np.trunc(x[0] / x[1])
            y = [r.astype(x[0].dtype)]
        elif op == "Relu":
            y = [np.maximum(x[0], 0).astype(x[0].dtype)]
        elif op == "Sqrt":
            y = [np.sqrt(x[0])]
        elif op == "Erf":
            y = [_erf(x[0]).astype(x[0].dtype)]
        elif op == "Tanh":
            y = [np.tanh(x[0])]
        elif op == "Where":
            y = [np.where(x[0], x[1], x[2]).astype(np.result_type(x[1], x[2]))]
        elif op == "MatMul":
            y = [np.matmul(x[0].astype(np.float64), x[1].astype(np.float64)).astype(x[0].dtype)]
        elif op == "Gemm":
            A = x[0].T if a.get("transA", 0) else x[0]
            B = x[1].T if a.get("transB", 0) else x[1]
            r = a.get("alpha", 1.0) * (A.astype(np.float64) @ B.astype(np.float64))
            if len(x) > 2 and x[2] is not None:
                r = r + a.get("beta", 1.0) * x[2]
            y = [r.astype(x[0].dtype)]
        elif op == "Gather":
            y = [np.take(x[0], x[1], axis=a.get("axis", 0))]
        elif op == "Reshape":
            shape = [int(s) for s in x[1]]
            shape = [x[0].shape[i] if s == 0 and not a.get("allowzero", 0) else s for i, s in enumerate(shape)]
            y = [x[0].reshape(shape)]
        elif op == "Transpose":
            y = [np.transpose(x[0], a.get("perm"))]
        elif op == "Flatten":
            ax = a.get("axis", 1)
            y = [x[0].reshape(int(np.prod(x[0].shape[:ax])), -1)]
        elif op == "Split":
            axis = a.get("axis", 0)
            sizes = x[1] if len(x) > 1 and x[1] is not None else a.get("split")
            if sizes is None:
                sizes = [x[0].shape[axis] // len(node.output)] * len(node.output)
            y = np.split(x[0], np.cumsum(sizes)[:-1], axis=axis)
        elif op == "ReduceMean":
            axes = _reduce_axes(x[0], a, x[1] if len(x) > 1 else None, opset)
            y = [np.mean(x[0], axis=axes, keepdims=bool(a.get("keepdims", 1))).astype(x[0].dtype)]
        elif op == "Softmax":
            ax = a.get("axis", -1 if opset >= 13 else 1)
            if opset < 13:
                raise NotImplementedError("Softmax before opset 13")
            e = np.exp(x[0] - np.max(x[0], axis=ax, keepdims=True))
            y = [(e / np.sum(e, axis=ax, keepdims=True)).astype(x[0].dtype)]
        elif op == "LayerNormalization":
            ax = a.get("axis", -1)
            ax = ax % x[0].ndim
            axes = tuple(range(ax, x[0].ndim))
            xd = x[0].astype(np.float64)
            mu = xd.mean(axis=axes, keepdims=True)
            var = ((xd - mu) ** 2).mean(axis=axes, keepdims=True)
            r = (xd - mu) / np.sqrt(var + a.get("epsilon", 1e-5)) * x[1]
            if len(x) > 2 and x[2] is not None:
                r = r + x[2]
            y = [r.astype(x[0].dtype)]
        elif op == "BatchNormalization":
            if a.get("training_mode", 0):
                raise NotImplementedError("BatchNormalization training_mode=1")
            s = (-1,) + (1,) * (x[0].ndim - 2)
            scale, bias, mean, var = (t.reshape(s) for t in x[1:5])
            r = (x[0] - mean) / np.sqrt(var + a.get("epsilon", 1e-5)) * scale + bias
            y = [r.astype(x[0].dtype)]
        elif op == "Conv":
            if x[0].ndim != 4 or a.get("auto_pad", "NOTSET") != "NOTSET":
                raise NotImplementedError("only 2-D explicit-pad Conv")
            y = [_conv2d(x[0], x[1], x[2] if len(x) > 2 else None, a.get("strides", [1, 1]),
                         a.get("pads", [0, 0, 0, 0]), a.get("dilations", [1, 1]), a.get("group", 1))]
        elif op == "GlobalAveragePool":
            y = [x[0].mean(axis=tuple(range(2, x[0].ndim)), keepdims=True)]
        else:
            raise NotImplementedError(f"op {op}")
        for name, val in zip(node.output, y):
            if name:
                env[name] = np.asarray(val)
    return {o.name: env[o.name] for o in model.graph.output}
