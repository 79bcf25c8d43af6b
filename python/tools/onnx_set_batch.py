#!/usr/bin/env python3
"""Rewrite the (fixed) batch dimension of an ONNX model, e.g. to evaluate a model trained with
batch 32 on the whole 360-sample test set in one `oneflow-run` step.

    /usr/bin/python3 python/tools/onnx_set_batch.py IN.onnx OUT.onnx N [--old B] [--check]

What changes:
  * dim 0 of every graph input and output whose dim 0 is the old batch B (default: dim 0 of the
    first graph input; an input/output with another leading dim is left alone);
  * every Reshape whose target shape is a constant (initializer or Constant node) hard-coding the
    batch: when the reshaped tensor depends on a graph input and both its leading dim and the
    target's leading entry are multiples of B (e.g. [B, T, H, D] or a flattened [B*T, C]), the
    entry k*B becomes k*N.  Reshapes of constants (masks, position tables) are left alone;
  * graph.value_info (intermediate shapes, stale now) is dropped.
Other ops whose constant operands may hard-code the batch (Expand, Tile, ConstantOfShape, Slice
ends, ...) are not rewritten: they are reported as warnings when such an operand on a batch path
contains B.  The result must pass ONNX's strict shape inference with outputs of leading dim N.

--check additionally evaluates both models on random inputs with the NumPy interpreter
python/models/onnx_numpy_ref.py (the ops of python/models/*.py only): the new model on N rows
against the old one on chunks of B rows (the last chunk padded), so it holds for models that treat
batch rows independently (no BatchNormalization in training mode, ...).
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPE_OPERAND_OPS = {"Expand": [1], "Tile": [1], "ConstantOfShape": [0], "Slice": [1, 2], "Range": [0, 1],
                     "Resize": [3], "Pad": [1]}


def leading_dim(vi):
    dims = vi.type.tensor_type.shape.dim
    if not dims or not dims[0].HasField("dim_value"):
        return None
    return dims[0].dim_value


def constant_values(graph):
    """name -> (ndarray, 'init' | Constant NodeProto) for initializers and Constant node outputs."""
    out = {t.name: (numpy_helper.to_array(t), "init") for t in graph.initializer}
    for n in graph.node:
        if n.op_type == "Constant" and len(n.attribute) == 1 and n.attribute[0].name == "value":
            out[n.output[0]] = (numpy_helper.to_array(n.attribute[0].t), n)
    return out


def batch_dependent(graph):
    """Names of the values that depend (transitively) on a graph input."""
    inits = {t.name for t in graph.initializer}
    dep = {i.name for i in graph.input if i.name not in inits}
    for n in graph.node:  # nodes are topologically sorted in a valid ONNX graph
        if any(i in dep for i in n.input if i):
            dep.update(o for o in n.output if o)
    return dep


def inferred_shapes(model):
    inf = shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    shapes = {}
    for vi in list(inf.graph.value_info) + list(inf.graph.input) + list(inf.graph.output):
        dims = vi.type.tensor_type.shape.dim
        if vi.type.tensor_type.HasField("shape"):
            shapes[vi.name] = [d.dim_value if d.HasField("dim_value") else None for d in dims]
    return shapes


def unique_name(base, taken):
    name, i = base, 1
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name)
    return name


def set_batch(model, new, old=None, warn=print):
    """Returns (new ModelProto, summary lines). `model` is not modified."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    inits = {t.name for t in g.initializer}
    real_inputs = [i for i in g.input if i.name not in inits]
    if old is None:
        if not real_inputs or leading_dim(real_inputs[0]) is None:
            raise SystemExit("onnx_set_batch.py: the first graph input has no static leading dim; give --old")
        old = leading_dim(real_inputs[0])
    if old <= 0 or new <= 0:
        raise SystemExit("onnx_set_batch.py: batch sizes must be positive")
    shapes = inferred_shapes(model)
    dep = batch_dependent(g)
    consts = constant_values(g)
    summary = []

    for vi in list(real_inputs) + list(g.output):
        if leading_dim(vi) == old:
            vi.type.tensor_type.shape.dim[0].dim_value = new
            summary.append(f"{'input' if vi in real_inputs else 'output'} {vi.name}: leading dim {old} -> {new}")
        else:
            warn(f"onnx_set_batch.py: warning: {vi.name} has leading dim {leading_dim(vi)}, not {old}; left alone")
    del g.value_info[:]

    taken = {t.name for t in g.initializer} | {o for n in g.node for o in n.output} | {i.name for i in g.input}
    for n in g.node:
        if n.op_type == "Reshape" and len(n.input) > 1 and n.input[1] in consts and n.input[0] in dep:
            target, _ = consts[n.input[1]]
            data_shape = shapes.get(n.input[0])
            lead = data_shape[0] if data_shape else None
            t0 = int(target.reshape(-1)[0]) if target.size else 0
            if t0 > 0 and t0 % old == 0 and lead is not None and lead % old == 0 and old != new:
                fixed = target.copy().reshape(-1)
                fixed[0] = t0 // old * new
                name = unique_name(f"{n.input[1]}_batch{new}", taken)
                g.initializer.append(numpy_helper.from_array(fixed.reshape(target.shape).astype(target.dtype), name))
                summary.append(f"Reshape {n.name or n.output[0]}: shape {target.tolist()} -> {fixed.tolist()}")
                n.input[1] = name
            elif t0 > 0 and old == new:
                pass
            elif 0 < t0 and lead is None:
                warn(f"onnx_set_batch.py: warning: Reshape {n.name}: input shape unknown, target "
                     f"{target.tolist()} left alone")
        for idx in SHAPE_OPERAND_OPS.get(n.op_type, []):
            if idx < len(n.input) and n.input[idx] in consts and any(i in dep for i in n.input if i):
                vals = consts[n.input[idx]][0]
                if np.issubdtype(vals.dtype, np.integer) and old in vals.reshape(-1).tolist():
                    warn(f"onnx_set_batch.py: warning: {n.op_type} {n.name}: constant operand "
                         f"{vals.tolist()} contains the old batch {old}; not rewritten")

    # Drop constants nothing uses any more.
    used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    dead = [n for n in g.node if n.op_type == "Constant" and n.output[0] not in used]
    for n in dead:
        g.node.remove(n)

    onnx.checker.check_model(m)
    new_shapes = inferred_shapes(m)
    for o in g.output:
        got = new_shapes.get(o.name)
        if leading_dim(o) == new and got and got[0] not in (new, None):
            raise SystemExit(f"onnx_set_batch.py: after the rewrite, shape inference gives {o.name} leading "
                             f"dim {got[0]}, expected {new}: some op hard-codes the batch")
    return m, summary, old


def np_dtype(elem_type):
    if hasattr(helper, "tensor_dtype_to_np_dtype"):  # onnx >= 1.13
        return helper.tensor_dtype_to_np_dtype(elem_type)
    return onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[elem_type]  # onnx 1.12 (Debian bookworm)


def random_feeds(model, batch_override=None, seed=0):
    rng = np.random.RandomState(seed)
    inits = {t.name for t in model.graph.initializer}
    feeds = {}
    for i in model.graph.input:
        if i.name in inits:
            continue
        dims = [d.dim_value for d in i.type.tensor_type.shape.dim]
        if batch_override is not None:
            dims[0] = batch_override
        dt = np_dtype(i.type.tensor_type.elem_type)
        if np.issubdtype(dt, np.integer):
            feeds[i.name] = rng.randint(0, 2, size=dims).astype(dt)
        else:
            feeds[i.name] = rng.standard_normal(dims).astype(dt)
    return feeds


def check(old_model, new_model, old, new):
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "models"))
    import onnx_numpy_ref
    feeds = random_feeds(new_model)
    got = onnx_numpy_ref.run(new_model, feeds)
    chunks = []
    for start in range(0, new, old):
        idx = np.arange(start, start + old) % new  # pad the last chunk with rows from the front
        out = onnx_numpy_ref.run(old_model, {k: v[idx] for k, v in feeds.items()})
        chunks.append({k: v[:min(old, new - start)] for k, v in out.items()})
    worst = 0.0
    for o in new_model.graph.output:
        exp = np.concatenate([c[o.name] for c in chunks], axis=0)
        np.testing.assert_allclose(got[o.name], exp, rtol=1e-4, atol=1e-5, err_msg=o.name)
        worst = max(worst, float(np.abs(got[o.name] - exp).max()))
    return worst


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("batch", type=int, help="the new batch size")
    p.add_argument("--old", type=int, help="the old batch size (default: leading dim of the first input)")
    p.add_argument("--check", action="store_true", help="compare old and new model numerically (NumPy)")
    p.add_argument("-q", "--quiet", action="store_true")
    args = p.parse_args(argv)
    model = onnx.load(args.input)
    new_model, summary, old = set_batch(model, args.batch, args.old,
                                        warn=lambda s: print(s, file=sys.stderr))
    tmp = args.output + ".tmp"
    onnx.save(new_model, tmp)
    os.replace(tmp, args.output)
    if not args.quiet:
        for line in summary:
            print(f"  {line}")
    msg = f"onnx_set_batch: {args.input} (batch {old}) -> {args.output} (batch {args.batch})"
    if args.check:
        msg += f", outputs match the original's (max |diff| {check(model, new_model, old, args.batch):.1e})"
    print(msg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
