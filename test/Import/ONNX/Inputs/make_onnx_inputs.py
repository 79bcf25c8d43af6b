#!/usr/bin/env python3
"""Generate the small, deterministic .onnx inputs used by the ONNX importer lit tests.

Usage (needs only the `onnx` and `numpy` packages; on Debian use /usr/bin/python3):

    python3 test/Import/ONNX/Inputs/make_onnx_inputs.py [--out DIR]

Every model is built with onnx.helper / onnx.numpy_helper from fixed seeds, so re-running the script
rewrites byte-identical files.  Each well-formed model is validated with onnx.checker (full check)
and strict shape inference before it is written; the deliberately broken inputs are checked to fail
the way their name says.  See README.md in this folder for the list of files.

The torch-exported models under torch/ are produced by python/models/export_models.py, not here.
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
PRODUCER = "oneflow-mlir make_onnx_inputs.py"
IR_VERSION = 8  # onnx 1.12 default; opsets up to 17
FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min

MODELS = []  # registration order == generation order


def model(fn):
    MODELS.append(fn)
    return fn


class G:
    """Tiny graph builder: nodes, graph inputs, initializers, outputs (types come from shape inference)."""

    def __init__(self, name, seed=0):
        self.name = name
        self.rng = np.random.RandomState(seed)
        self.nodes, self.inputs, self.inits, self.outputs = [], [], [], []
        self.output_types = {}  # name -> (elem_type, shape) for outputs that inference cannot make static

    # -- values ------------------------------------------------------------------------------
    def input(self, name, elem_type, shape):
        self.inputs.append(helper.make_tensor_value_info(name, elem_type, shape))
        return name

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def randn(self, name, shape, scale=1.0):
        return self.init(name, (self.rng.standard_normal(shape) * scale).astype(np.float32))

    def i64(self, name, values):
        return self.init(name, np.asarray(values, dtype=np.int64))

    def f32(self, name, values):
        return self.init(name, np.asarray(values, dtype=np.float32))

    # -- nodes ---------------------------------------------------------------------------------
    def node(self, op, inputs, outputs, name, domain=None, **attrs):
        if isinstance(outputs, str):
            outputs = [outputs]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def output(self, *names, elem_type=None, shape=None):
        for n in names:
            self.outputs.append(n)
            if elem_type is not None:
                self.output_types[n] = (elem_type, shape)

    # -- finishing -----------------------------------------------------------------------------
    def make(self, opset=17, doc=None):
        outs = []
        for n in self.outputs:
            if n in self.output_types:
                outs.append(helper.make_tensor_value_info(n, *self.output_types[n]))
            else:
                vi = onnx.ValueInfoProto()
                vi.name = n
                outs.append(vi)
        graph = helper.make_graph(self.nodes, self.name, self.inputs, outs, initializer=self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name=PRODUCER, producer_version="1", ir_version=IR_VERSION)
        if doc:
            m.doc_string = doc
        return m

    def build(self, opset=17, doc=None, allow_symbolic=False):
        m = self.make(opset, doc)
        inferred = onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True, data_prop=True)
        by_name = {o.name: o for o in inferred.graph.output}
        for o in m.graph.output:
            if o.name in self.output_types:
                continue
            t = by_name[o.name].type
            assert t.tensor_type.elem_type != 0, f"{self.name}: no type inferred for output {o.name}"
            assert t.tensor_type.HasField("shape"), f"{self.name}: no shape inferred for output {o.name}"
            for d in t.tensor_type.shape.dim:
                assert d.HasField("dim_value") or allow_symbolic, f"{self.name}: output {o.name} not static: {t}"
            o.type.CopyFrom(t)
        onnx.checker.check_model(m, full_check=True)
        return m


def save(m, filename, out):
    path = os.path.join(out, filename)
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    return path


# ==================================================================================================
# Op-coverage models (opset 17 unless noted)
# ==================================================================================================

@model
def unary(out):
    g = G("unary", seed=1)
    x = g.input("x", FLOAT, [2, 3, 4])
    b = g.input("b", BOOL, [2, 3, 4])
    ops = [
        ("Relu", {}), ("Sigmoid", {}), ("Tanh", {}), ("Exp", {}), ("Log", {}), ("Sqrt", {}), ("Neg", {}),
        ("Abs", {}), ("Erf", {}), ("Reciprocal", {}), ("Ceil", {}), ("Floor", {}), ("Sin", {}),
        ("Softplus", {}), ("Softsign", {}), ("LeakyRelu", {"alpha": 0.1}), ("Elu", {"alpha": 0.5}),
        ("Selu", {}),  # default alpha/gamma on purpose
        ("HardSigmoid", {"alpha": 0.25, "beta": 0.4}), ("Sign", {}),
    ]
    for op, attrs in ops:
        low = op.lower()
        g.output(g.node(op, [x], f"{low}_out", f"unary_{low}", **attrs))
    g.output(g.node("Not", [b], "not_out", "unary_not"))
    save(g.build(), "unary.onnx", out)


@model
def binary_broadcast(out):
    g = G("binary_broadcast", seed=2)
    a = g.input("a", FLOAT, [2, 3, 4])
    b = g.input("b", FLOAT, [3, 1])
    c = g.input("c", FLOAT, [4])
    p = g.input("p", BOOL, [2, 3, 4])
    q = g.input("q", BOOL, [3, 1])
    i = g.input("i", INT64, [2, 3])
    j = g.input("j", INT64, [3])
    two = g.f32("pow_exponent", np.float32(2.0))  # rank-0 initializer
    g.output(
        g.node("Add", [a, b], "add_out", "bin_add_a_b"),            # [2,3,4] + [3,1]
        g.node("Sub", [a, c], "sub_out", "bin_sub_a_c"),            # [2,3,4] - [4]
        g.node("Mul", [b, c], "mul_out", "bin_mul_b_c"),            # [3,1] * [4] -> [3,4]
        g.node("Div", [a, b], "div_out", "bin_div_a_b"),
        g.node("Pow", [a, two], "pow_out", "bin_pow_a_scalar"),     # scalar exponent
        g.node("Max", [a, b, c], "max_out", "bin_max_variadic3"),   # variadic, 3 inputs
        g.node("Min", [a, c], "min_out", "bin_min_a_c"),
        g.node("And", [p, q], "and_out", "bin_and_p_q"),
        g.node("Or", [p, q], "or_out", "bin_or_p_q"),
        g.node("Xor", [p, q], "xor_out", "bin_xor_p_q"),
        g.node("Equal", [a, b], "equal_out", "cmp_equal_a_b"),
        g.node("Less", [a, c], "less_out", "cmp_less_a_c"),
        g.node("LessOrEqual", [a, b], "less_equal_out", "cmp_less_equal_a_b"),
        g.node("Greater", [b, c], "greater_out", "cmp_greater_b_c"),
        g.node("GreaterOrEqual", [a, c], "greater_equal_out", "cmp_greater_equal_a_c"),
        g.node("Where", [p, a, c], "where_out", "sel_where_p_a_c"),
        g.node("Add", [i, j], "add_i64_out", "bin_add_i64"),
        g.node("Equal", [i, j], "equal_i64_out", "cmp_equal_i64"),
    )
    save(g.build(), "binary_broadcast.onnx", out)


@model
def cast_clip(out):
    g = G("cast_clip", seed=3)
    x = g.input("x", FLOAT, [2, 3])
    i = g.input("i", INT64, [2, 3])
    g.output(
        g.node("Cast", [x], "cast_f32_to_i32", "cast_to_int32", to=TensorProto.INT32),
        g.node("Cast", [x], "cast_f32_to_f16", "cast_to_float16", to=TensorProto.FLOAT16),
        g.node("Cast", [x], "cast_f32_to_bool", "cast_to_bool", to=TensorProto.BOOL),
        g.node("Cast", [x], "cast_f32_to_f64", "cast_to_double", to=TensorProto.DOUBLE),
        g.node("Cast", [i], "cast_i64_to_f32", "cast_int64_to_float", to=TensorProto.FLOAT),
    )
    lo = g.f32("clip_min", np.float32(-0.5))
    hi = g.f32("clip_max", np.float32(0.5))
    g.output(g.node("Clip", [x, lo, hi], "clip_init_out", "clip_min_max_initializers"))
    cmax = g.node("Constant", [], "clip6_max", "clip6_max_const",
                  value=numpy_helper.from_array(np.array(6.0, np.float32)))
    czero = g.node("Constant", [], "clip6_min", "clip6_min_const",
                   value=numpy_helper.from_array(np.array(0.0, np.float32)))
    g.output(g.node("Clip", [x, czero, cmax], "relu6_out", "clip_relu6_constants"))
    g.output(g.node("Clip", [x, lo], "clip_min_only_out", "clip_min_only"))
    g.output(g.node("Clip", [x, "", hi], "clip_max_only_out", "clip_max_only"))
    save(g.build(), "cast_clip.onnx", out)


@model
def matmul(out):
    g = G("matmul", seed=4)
    x = g.input("x", FLOAT, [4, 8])
    a = g.input("a", FLOAT, [2, 3, 4, 8])
    b = g.input("b", FLOAT, [2, 3, 8, 5])
    c = g.input("c", FLOAT, [3, 4, 8])
    d = g.input("d", FLOAT, [2, 1, 8, 5])
    w1 = g.randn("fc1_weight", [8, 16], 0.3)
    w2 = g.randn("proj_weight", [8, 6], 0.3)
    v = g.randn("vec", [8], 0.3)
    g.output(
        g.node("MatMul", [x, w1], "mm2d_out", "fc1_matmul"),                  # [4,8]x[8,16]
        g.node("MatMul", [a, b], "bmm_out", "batched_matmul_4d"),             # [2,3,4,8]x[2,3,8,5]
        g.node("MatMul", [a, w2], "bmm_weight_out", "batched_matmul_weight"),  # [2,3,4,8]x[8,6]
        g.node("MatMul", [c, d], "bmm_bcast_out", "batched_matmul_broadcast"),  # [3,4,8]x[2,1,8,5]
        g.node("MatMul", [x, v], "matvec_out", "matvec_matmul"),              # [4,8]x[8] -> [4]
    )
    save(g.build(), "matmul.onnx", out)


@model
def gemm(out):
    g = G("gemm", seed=5)
    x = g.input("x", FLOAT, [4, 8])
    xt = g.input("xt", FLOAT, [8, 4])
    w = g.randn("fc_weight", [16, 8], 0.3)      # PyTorch Linear layout [out, in]
    bias = g.randn("fc_bias", [16], 0.1)
    b2 = g.randn("gemm2_b", [8, 6], 0.3)
    c2 = g.randn("gemm2_c", [4, 6], 0.1)
    b3 = g.randn("gemm3_b", [8, 3], 0.3)
    c4 = g.f32("gemm4_c", [0.25])
    g.output(
        g.node("Gemm", [x, w, bias], "fc_out", "fc_gemm", transB=1),                      # Linear
        g.node("Gemm", [xt, b2, c2], "gemm_transa_out", "gemm_transA_alpha_beta",
               transA=1, alpha=0.5, beta=2.0),
        g.node("Gemm", [x, b3], "gemm_nobias_out", "gemm_no_bias"),
        g.node("Gemm", [x, w, c4], "gemm_scalar_c_out", "gemm_transB_scalar_bias", transB=1, beta=-1.0),
    )
    save(g.build(), "gemm.onnx", out)


@model
def conv(out):
    g = G("conv", seed=6)
    x = g.input("x", FLOAT, [1, 4, 10, 10])
    g.output(g.node("Conv", [x, g.randn("conv1_weight", [8, 4, 3, 3], 0.2), g.randn("conv1_bias", [8], 0.1)],
                    "conv1_out", "conv1_pad1", kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
    g.output(g.node("Conv", [x, g.randn("conv2_weight", [8, 2, 3, 3], 0.2), g.randn("conv2_bias", [8], 0.1)],
                    "conv2_out", "conv2_group2_stride2_dilation2", kernel_shape=[3, 3], group=2,
                    strides=[2, 2], dilations=[2, 2], pads=[2, 2, 2, 2]))
    g.output(g.node("Conv", [x, g.randn("conv3_weight", [4, 1, 3, 3], 0.2)],
                    "conv3_out", "conv3_depthwise_asym_pads_nobias", group=4,
                    pads=[0, 1, 1, 0]))  # kernel_shape omitted on purpose (inferred from weight)
    g.output(g.node("Conv", [x, g.randn("conv4_weight", [6, 4, 1, 1], 0.2)],
                    "conv4_out", "conv4_pointwise_stride2", kernel_shape=[1, 1], strides=[2, 2]))
    g.output(g.node("Conv", [x, g.randn("conv5_weight", [2, 4, 3, 3], 0.2)],
                    "conv5_out", "conv5_autopad_same_upper", kernel_shape=[3, 3], strides=[2, 2],
                    auto_pad="SAME_UPPER"))
    save(g.build(), "conv.onnx", out)


@model
def pooling(out):
    g = G("pooling", seed=7)
    x = g.input("x", FLOAT, [1, 3, 8, 8])
    g.output(
        g.node("MaxPool", [x], "maxpool_k2s2_out", "maxpool_k2_s2", kernel_shape=[2, 2], strides=[2, 2]),
        g.node("MaxPool", [x], "maxpool_k3s1p1_out", "maxpool_k3_s1_p1", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        g.node("AveragePool", [x], "avgpool_k3s2p1_out", "avgpool_k3_s2_p1_exclude_pad",
               kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=0),
        g.node("AveragePool", [x], "avgpool_k2s2_out", "avgpool_k2_s2", kernel_shape=[2, 2], strides=[2, 2]),
        g.node("GlobalAveragePool", [x], "gap_out", "global_avgpool"),
        g.node("GlobalMaxPool", [x], "gmp_out", "global_maxpool"),
    )
    save(g.build(), "pooling.onnx", out)


@model
def batchnorm(out):
    g = G("batchnorm", seed=8)
    x = g.input("x", FLOAT, [2, 4, 5, 5])
    scale = g.init("bn_scale", (1.0 + 0.1 * g.rng.standard_normal(4)).astype(np.float32))
    bias = g.randn("bn_bias", [4], 0.1)
    mean = g.randn("bn_mean", [4], 0.1)
    var = g.init("bn_var", (0.5 + g.rng.uniform(size=4)).astype(np.float32))
    y = g.node("BatchNormalization", [x, scale, bias, mean, var], "bn_out", "bn_inference", epsilon=1e-3)
    g.output(y, g.node("Relu", [y], "bn_relu_out", "bn_relu"))
    save(g.build(), "batchnorm.onnx", out)


@model
def reductions(out):
    # opset 13: ReduceSum takes `axes` as an input, the other Reduce* ops take an `axes` attribute.
    g = G("reductions", seed=9)
    x = g.input("x", FLOAT, [2, 3, 4])
    g.output(
        g.node("ReduceSum", [x, g.i64("sum_axes_1", [1])], "sum_keep_out", "reducesum_axes_input_keep1", keepdims=1),
        g.node("ReduceSum", [x, g.i64("sum_axes_m1", [-1])], "sum_nokeep_out", "reducesum_axes_input_keep0",
               keepdims=0),
        g.node("ReduceSum", [x], "sum_all_out", "reducesum_no_axes_all", keepdims=0),
        g.node("ReduceMean", [x], "mean_keep_out", "reducemean_axes12_keep1", axes=[1, 2], keepdims=1),
        g.node("ReduceMean", [x], "mean_nokeep_out", "reducemean_axes12_keep0", axes=[1, 2], keepdims=0),
        g.node("ReduceMax", [x], "max_out", "reducemax_axis0_keep1", axes=[0], keepdims=1),
        g.node("ReduceMin", [x], "min_out", "reducemin_axis2_keep0", axes=[2], keepdims=0),
        g.node("ReduceProd", [x], "prod_out", "reduceprod_axis1_keep1", axes=[1], keepdims=1),
        g.node("ReduceL1", [x], "l1_out", "reducel1_axism1_keep0", axes=[-1], keepdims=0),
        g.node("ReduceL2", [x], "l2_out", "reducel2_axis1_keep1", axes=[1], keepdims=1),
        g.node("ReduceLogSumExp", [x], "logsumexp_out", "reducelogsumexp_axis2_keep1", axes=[2], keepdims=1),
        g.node("ReduceSumSquare", [x], "sumsquare_out", "reducesumsquare_axes02_keep0", axes=[0, 2], keepdims=0),
        g.node("ReduceMean", [x], "mean_all_out", "reducemean_all_keep0", keepdims=0),
        g.node("ArgMax", [x], "argmax_out", "argmax_axis1_keep0", axis=1, keepdims=0),
        g.node("ArgMax", [x], "argmax_last_out", "argmax_axism1_keep1_last", axis=-1, keepdims=1,
               select_last_index=1),
        g.node("ArgMin", [x], "argmin_out", "argmin_axis0_keep1", axis=0, keepdims=1),
    )
    save(g.build(opset=13), "reductions.onnx", out)


@model
def softmax(out):
    g = G("softmax", seed=10)
    x = g.input("x", FLOAT, [2, 3, 4])
    g.output(
        g.node("Softmax", [x], "softmax_last_out", "softmax_axis_m1", axis=-1),
        g.node("Softmax", [x], "softmax_axis1_out", "softmax_axis1", axis=1),
        g.node("LogSoftmax", [x], "logsoftmax_out", "logsoftmax_axis_m1", axis=-1),
        g.node("Softmax", [x], "softmax_default_out", "softmax_default_axis"),  # default axis=-1 (opset 13+)
    )
    save(g.build(), "softmax.onnx", out)


@model
def layernorm(out):
    g = G("layernorm", seed=11)
    x = g.input("x", FLOAT, [2, 5, 8])
    s1 = g.init("ln1_weight", (1.0 + 0.1 * g.rng.standard_normal(8)).astype(np.float32))
    b1 = g.randn("ln1_bias", [8], 0.1)
    s2 = g.init("ln2_weight", (1.0 + 0.1 * g.rng.standard_normal([5, 8])).astype(np.float32))
    g.output(
        g.node("LayerNormalization", [x, s1, b1], "ln_last_out", "ln1_axis_m1", axis=-1, epsilon=1e-5),
        g.node("LayerNormalization", [x, s2], "ln_axis1_out", "ln2_axis1_nobias", axis=1, epsilon=1e-6),
    )
    save(g.build(), "layernorm.onnx", out)


@model
def shape_ops(out):
    g = G("shape_ops", seed=12)
    x = g.input("x", FLOAT, [2, 3, 4])
    y = g.input("y", FLOAT, [2, 5, 4])
    z = g.input("z", FLOAT, [2, 1, 4, 1])
    g.output(
        g.node("Reshape", [x, g.i64("shape_0_m1", [0, -1])], "reshape_0_m1_out", "reshape_keep0_infer"),  # [2,12]
        g.node("Reshape", [x, g.i64("shape_m1_4", [-1, 4])], "reshape_m1_4_out", "reshape_infer_4"),       # [6,4]
        g.node("Transpose", [x], "transpose_out", "transpose_201", perm=[2, 0, 1]),                        # [4,2,3]
        g.node("Transpose", [x], "transpose_default_out", "transpose_reverse_default"),                    # [4,3,2]
        g.node("Concat", [x, y], "concat_out", "concat_axis1", axis=1),                                    # [2,8,4]
        g.node("Concat", [x, x, x], "concat3_out", "concat3_axis_m1", axis=-1),                            # [2,3,12]
    )
    g.output(*g.node("Split", [x, g.i64("split_sizes", [1, 2])], ["split_a", "split_b"], "split_axis1_sizes",
                     axis=1))
    g.output(*g.node("Split", [x], ["split_even0", "split_even1"], "split_axis2_even", axis=2))
    g.output(
        g.node("Squeeze", [z, g.i64("squeeze_axes", [1, 3])], "squeeze_axes_out", "squeeze_axes13"),      # [2,4]
        g.node("Squeeze", [z], "squeeze_all_out", "squeeze_all_unit_dims"),                                 # [2,4]
        g.node("Unsqueeze", [x, g.i64("unsqueeze_axes", [0, -1])], "unsqueeze_out", "unsqueeze_axes0_m1"),  # [1,2,3,4,1]
        g.node("Flatten", [x], "flatten1_out", "flatten_axis1", axis=1),                                   # [2,12]
        g.node("Flatten", [x], "flatten0_out", "flatten_axis0", axis=0),                                   # [1,24]
        g.node("Flatten", [x], "flatten2_out", "flatten_axis2", axis=2),                                   # [6,4]
        g.node("Identity", [x], "identity_out", "identity"),
    )
    save(g.build(), "shape_ops.onnx", out)


@model
def expand_pad_tile(out):
    g = G("expand_pad_tile", seed=13)
    x = g.input("x", FLOAT, [2, 3, 4])
    v = g.input("v", FLOAT, [3, 1])
    m = g.input("m", FLOAT, [4, 5])
    ratio = g.f32("dropout_ratio", np.float32(0.1))
    g.output(
        g.node("Expand", [v, g.i64("expand_shape", [2, 3, 4])], "expand_out", "expand_to_2x3x4"),
        g.node("Expand", [v, g.i64("expand_shape_bcast", [1, 5])], "expand_bcast_out", "expand_bcast_3x5"),
        g.node("Pad", [x, g.i64("pads_const", [0, 1, 2, 0, 1, 0]), g.f32("pad_value", np.float32(0.5))],
               "pad_const_out", "pad_constant_value"),                                                     # [2,5,6]
        g.node("Pad", [m, g.i64("pads_reflect", [1, 2, 1, 2])], "pad_reflect_out", "pad_reflect", mode="reflect"),
        g.node("Pad", [m, g.i64("pads_edge", [0, 1, 0, 0])], "pad_edge_out", "pad_edge", mode="edge"),
        g.node("Tile", [x, g.i64("tile_repeats", [1, 2, 3])], "tile_out", "tile_1_2_3"),                   # [2,6,12]
        g.node("Trilu", [m], "triu_out", "trilu_upper", upper=1),
        g.node("Trilu", [m, g.i64("tril_k", np.int64(-1))], "tril_out", "trilu_lower_k_m1", upper=0),
        g.node("Dropout", [x, ratio], "dropout_out", "dropout_inference"),
    )
    save(g.build(), "expand_pad_tile.onnx", out)


@model
def slice_gather(out):
    g = G("slice_gather", seed=14)
    x = g.input("x", FLOAT, [4, 6, 8])
    tokens = g.input("tokens", INT64, [2, 5])
    table = g.randn("embedding_weight", [16, 8], 0.5)
    g.output(
        g.node("Slice", [x, g.i64("s1_starts", [0, 1]), g.i64("s1_ends", [-1, 7]), g.i64("s1_axes", [0, 2]),
                         g.i64("s1_steps", [1, 2])], "slice_step2_out", "slice_neg_end_step2"),          # [3,6,3]
        g.node("Slice", [x, g.i64("s2_starts", [-1]), g.i64("s2_ends", [INT64_MIN]), g.i64("s2_axes", [1]),
                         g.i64("s2_steps", [-1])], "slice_reverse_out", "slice_reverse_axis1"),          # [4,6,8]
        g.node("Slice", [x, g.i64("s3_starts", [1, 2, 3]), g.i64("s3_ends", [3, 5, INT64_MAX])],
               "slice_default_axes_out", "slice_default_axes_steps"),                                    # [2,3,5]
        g.node("Slice", [x, g.i64("s4_starts", [-2]), g.i64("s4_ends", [0]), g.i64("s4_axes", [-1]),
                         g.i64("s4_steps", [-2])], "slice_neg_step2_out", "slice_neg_axis_neg_step2"),   # [4,6,3]
        g.node("Gather", [table, tokens], "embed_out", "embed_gather", axis=0),                          # [2,5,8]
        g.node("Gather", [x, g.i64("gather_scalar_idx", np.int64(2))], "gather_scalar_out",
               "gather_axis1_scalar_index", axis=1),                                                     # [4,8]
        g.node("Gather", [x, g.i64("gather_neg_idx", [-1, 0])], "gather_neg_out", "gather_axis2_negative_indices",
               axis=2),                                                                                  # [4,6,2]
    )
    save(g.build(), "slice_gather.onnx", out)


@model
def constants(out):
    g = G("constants", seed=15)
    x = g.input("x", FLOAT, [2, 3])
    cval = g.rng.standard_normal([2, 3]).astype(np.float32)
    c = g.node("Constant", [], "const_tensor", "const_value_tensor", value=numpy_helper.from_array(cval))
    s = g.node("Constant", [], "const_scalar", "const_value_float", value_float=2.5)
    ints = g.node("Constant", [], "const_shape_3x2", "const_value_ints", value_ints=[3, 2])
    cos_shape = g.node("Constant", [], "cos_shape", "const_cos_shape",
                       value=numpy_helper.from_array(np.array([2, 3], np.int64)))
    g.output(
        g.node("Add", [x, c], "add_const_out", "add_constant_tensor"),
        g.node("Mul", [x, s], "mul_scalar_out", "mul_constant_scalar"),
        g.node("ConstantOfShape", [cos_shape], "cos_f32_out", "constant_of_shape_f32",
               value=numpy_helper.from_array(np.array([1.5], np.float32))),
        g.node("ConstantOfShape", [cos_shape], "cos_i64_out", "constant_of_shape_i64",
               value=numpy_helper.from_array(np.array([7], np.int64))),
        g.node("ConstantOfShape", [cos_shape], "cos_default_out", "constant_of_shape_default"),  # float 0
        g.node("Range", [g.i64("range_start", np.int64(0)), g.i64("range_limit", np.int64(10)),
                         g.i64("range_delta", np.int64(3))], "range_i64_out", "range_int64"),    # [0,3,6,9]
        g.node("Range", [g.f32("rangef_start", np.float32(0.5)), g.f32("rangef_limit", np.float32(2.5)),
                         g.f32("rangef_delta", np.float32(0.5))], "range_f32_out", "range_float"),  # 4 elements
        g.node("Size", [x], "size_out", "size_of_x"),
    )
    # onnx shape inference does not read value_ints Constants: declare this output's type by hand.
    g.output(g.node("Reshape", [x, ints], "reshape_const_out", "reshape_constant_ints"), elem_type=FLOAT,
             shape=[3, 2])
    save(g.build(), "constants.onnx", out)


@model
def shape_arith(out):
    """The Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain PyTorch emits for x.view(B, T, H, C // H)."""
    g = G("shape_arith", seed=16)
    x = g.input("x", FLOAT, [2, 16, 64])

    def const_i64(name, v):
        return g.node("Constant", [], name, name + "_const", value=numpy_helper.from_array(np.array(v, np.int64)))

    shp = g.node("Shape", [x], "x_shape", "shape_of_x")
    b = g.node("Gather", [shp, const_i64("idx0", 0)], "dim_b", "gather_dim0", axis=0)
    t = g.node("Gather", [shp, const_i64("idx1", 1)], "dim_t", "gather_dim1", axis=0)
    c = g.node("Gather", [shp, const_i64("idx2", 2)], "dim_c", "gather_dim2", axis=0)
    hd = g.node("Div", [c, const_i64("n_head", 4)], "dim_hd", "div_c_by_heads")
    axes0 = const_i64("axes0", [0])
    bu = g.node("Unsqueeze", [b, axes0], "dim_b_1d", "unsqueeze_b")
    tu = g.node("Unsqueeze", [t, axes0], "dim_t_1d", "unsqueeze_t")
    hdu = g.node("Unsqueeze", [hd, axes0], "dim_hd_1d", "unsqueeze_hd")
    new_shape = g.node("Concat", [bu, tu, const_i64("heads_1d", [4]), hdu], "split_heads_shape", "concat_shape",
                       axis=0)
    r = g.node("Reshape", [x, new_shape], "x_heads", "reshape_split_heads")
    y = g.node("Transpose", [r], "y", "transpose_heads", perm=[0, 2, 1, 3])
    tail = g.node("Shape", [x], "x_shape_tail", "shape_of_x_start1", start=1)   # opset-15 start attribute
    g.output(shp, tail)
    g.output(y, elem_type=FLOAT, shape=[2, 4, 16, 16])
    save(g.build(), "shape_arith.onnx", out)


@model
def losses(out):
    g = G("losses", seed=17)
    scores = g.input("scores", FLOAT, [4, 10])
    labels = g.input("labels", INT64, [4])
    scores3 = g.input("scores3", FLOAT, [2, 10, 3])
    labels3 = g.input("labels3", INT64, [2, 3])
    w = g.init("class_weight", (0.5 + g.rng.uniform(size=10)).astype(np.float32))
    g.output(g.node("SoftmaxCrossEntropyLoss", [scores, labels], "sce_mean_out", "sce_mean", reduction="mean"))
    g.output(*g.node("SoftmaxCrossEntropyLoss", [scores, labels], ["sce_none_out", "sce_log_prob"],
                     "sce_none_ignore_index_logprob", reduction="none", ignore_index=-1))
    g.output(g.node("SoftmaxCrossEntropyLoss", [scores, labels, w], "sce_weighted_sum_out", "sce_weighted_sum",
                    reduction="sum"))
    logp = g.node("LogSoftmax", [scores], "log_probs", "log_softmax_scores", axis=1)
    logp3 = g.node("LogSoftmax", [scores3], "log_probs3", "log_softmax_scores3", axis=1)
    g.output(
        g.node("NegativeLogLikelihoodLoss", [logp, labels], "nll_mean_out", "nll_mean", reduction="mean"),
        g.node("NegativeLogLikelihoodLoss", [logp, labels, w], "nll_weighted_sum_out", "nll_weighted_sum",
               reduction="sum"),
        g.node("NegativeLogLikelihoodLoss", [logp3, labels3], "nll_nd_none_out", "nll_nd_none", reduction="none"),
    )
    save(g.build(), "losses.onnx", out)


# ==================================================================================================
# Models for importer options / special cases
# ==================================================================================================

@model
def opset11_legacy(out):
    """Opset-11 attribute forms; the importer's version converter should bring it to opset 17."""
    g = G("opset11_legacy", seed=18)
    x = g.input("x", FLOAT, [2, 3, 4])
    u = g.node("Unsqueeze", [x], "unsq_out", "unsqueeze_attr_axes0", axes=[0])           # [1,2,3,4]
    g.output(u)
    g.output(
        g.node("Squeeze", [u], "sq_out", "squeeze_attr_axes0", axes=[0]),                   # [2,3,4]
        g.node("Softmax", [x], "softmax_out", "softmax_axis1_coerced_2d", axis=1),          # old 2-D semantics
        g.node("ReduceSum", [x], "rsum_out", "reducesum_attr_axes1", axes=[1], keepdims=0),  # [2,4]
    )
    g.output(*g.node("Split", [x], ["split0", "split1"], "split_attr_sizes", axis=2, split=[1, 3]))
    m = g.build(opset=11)
    # The version-converter test depends on this conversion working with the onnx in use.
    from onnx import version_converter
    conv = version_converter.convert_version(m, 17)
    onnx.checker.check_model(conv)
    save(m, "opset11_legacy.onnx", out)


@model
def dynamic_batch(out):
    """Input with a symbolic dim "batch"; used with --input-shape=x:2x32."""
    g = G("dynamic_batch", seed=19)
    x = g.input("x", FLOAT, ["batch", 32])
    h = g.node("MatMul", [x, g.randn("fc_weight", [32, 16], 0.2)], "fc_mm", "fc_matmul")
    h = g.node("Add", [h, g.randn("fc_bias", [16], 0.1)], "fc_add", "fc_bias_add")
    g.output(g.node("Relu", [h], "y", "fc_relu"), elem_type=FLOAT, shape=["batch", 16])
    save(g.build(), "dynamic_batch.onnx", out)


@model
def external_data(out):
    """Initializers stored in external_data.bin next to the model (both tensors, at different offsets)."""
    from onnx import external_data_helper
    g = G("external_data", seed=20)
    x = g.input("x", FLOAT, [4, 16])
    h = g.node("MatMul", [x, g.randn("ext_weight", [16, 8], 0.2)], "ext_mm", "ext_fc_matmul")
    g.output(g.node("Add", [h, g.randn("ext_bias", [8], 0.1)], "y", "ext_fc_bias_add"))
    m = g.build()
    data_name = "external_data.bin"
    data_path = os.path.join(out, data_name)
    if os.path.exists(data_path):  # onnx appends to an existing data file: start fresh for idempotence
        os.remove(data_path)
    external_data_helper.convert_model_to_external_data(m, all_tensors_to_one_file=True,
                                                        location=data_name, size_threshold=0,
                                                        convert_attribute=False)
    onnx.save_model(m, os.path.join(out, "external_data.onnx"))
    # The path form is needed for external data.  No full_check=True here: with a path, onnx 1.12 runs
    # infer_shapes_path(path), which rewrites the model file in place.
    onnx.checker.check_model(os.path.join(out, "external_data.onnx"))
    reloaded = onnx.load(os.path.join(out, "external_data.onnx"))
    onnx.shape_inference.infer_shapes(reloaded, check_type=True, strict_mode=True)
    for t in reloaded.graph.initializer:
        assert t.data_location == TensorProto.DEFAULT and len(t.raw_data) > 0


# ==================================================================================================
# Error-class inputs
# ==================================================================================================

@model
def malformed(out):
    """Not a protobuf: the first 40 bytes of a valid model followed by fixed pseudo-random bytes."""
    valid = G("malformed_seed", seed=21)
    valid.output(valid.node("Relu", [valid.input("x", FLOAT, [2, 2])], "y", "relu"))
    head = valid.make().SerializeToString()[:40]
    junk = np.random.RandomState(21).randint(0, 256, size=88).astype(np.uint8).tobytes()
    data = head + junk
    try:
        onnx.load_model_from_string(data)
    except Exception:
        pass
    else:
        raise AssertionError("malformed.onnx unexpectedly parses")
    with open(os.path.join(out, "malformed.onnx"), "wb") as f:
        f.write(data)


@model
def checker_fail(out):
    """Parses fine, but onnx.checker rejects it: node input 'missing_value' is never produced."""
    g = G("checker_fail", seed=22)
    x = g.input("x", FLOAT, [2, 3])
    h = g.node("Relu", [x], "h", "relu_ok")
    y = g.node("Add", [h, "missing_value"], "y", "add_uses_undefined_input")
    out_vi = helper.make_tensor_value_info(y, FLOAT, [2, 3])
    graph = helper.make_graph(g.nodes, g.name, g.inputs, [out_vi])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name=PRODUCER,
                          producer_version="1", ir_version=IR_VERSION)
    try:
        onnx.checker.check_model(m)
    except onnx.checker.ValidationError:
        pass
    else:
        raise AssertionError("checker_fail.onnx unexpectedly passes the checker")
    save(m, "checker_fail.onnx", out)


@model
def bad_dtype(out):
    """Valid ONNX whose graph input is complex64 (no counterpart in the importer's type system)."""
    g = G("bad_dtype", seed=23)
    z = g.input("z", TensorProto.COMPLEX64, [2, 2])
    g.output(g.node("Identity", [z], "z_out", "identity_complex"))
    save(g.build(), "bad_dtype.onnx", out)


@model
def more_ops(out):
    """Ops that map onto newer oneflow ops or compositions: ConvTranspose (explicit pads, output_shape,
    1-D), GatherElements, CumSum, TopK, DepthToSpace (DCR/CRD), SpaceToDepth, LRN,
    MeanVarianceNormalization, Asin/Acos/Atan, Mod, Hardmax, OneHot, InstanceNormalization."""
    g = G("more_ops", seed=25)
    x = g.input("x", FLOAT, [1, 4, 5, 5])
    seq = g.input("seq", FLOAT, [1, 4, 6])
    idx = g.input("idx", INT64, [2, 3])
    data = g.input("data", FLOAT, [3, 3])
    ints = g.input("ints", INT64, [2, 3])
    w = g.randn("deconv_weight", [4, 2, 3, 3], 0.2)
    w1 = g.randn("deconv1d_weight", [4, 3, 3], 0.2)
    g.output(
        g.node("ConvTranspose", [x, w], "deconv_out", "deconv_stride2", strides=[2, 2], pads=[1, 1, 1, 1]),
        g.node("ConvTranspose", [x, w], "deconv_shape_out", "deconv_output_shape", strides=[2, 2],
               output_shape=[10, 10]),
        g.node("ConvTranspose", [seq, w1], "deconv1d_out", "deconv_1d", strides=[2], output_padding=[1]),
        g.node("GatherElements", [data, idx], "gather_elements_out", "gather_elements_rows", axis=0),
        g.node("CumSum", [data, g.i64("cumsum_axis", 1)], "cumsum_out", "cumsum_reverse_exclusive",
               exclusive=1, reverse=1),
    )
    values, indices = g.node("TopK", [data, g.i64("topk_k", [2])], ["topk_values", "topk_indices"], "topk_smallest",
                             axis=-1, largest=0)
    g.output(values, indices)
    x6 = g.node("Pad", [x, g.i64("pad_to_6", [0, 0, 0, 0, 0, 0, 1, 1])], "x6", "pad_x")
    tanh = g.node("Tanh", [data], "data_tanh", "tanh_for_asin")
    g.output(
        g.node("DepthToSpace", [x], "d2s_dcr_out", "depth_to_space_dcr", blocksize=2, mode="DCR"),
        g.node("DepthToSpace", [x], "d2s_crd_out", "depth_to_space_crd", blocksize=2, mode="CRD"),
        g.node("SpaceToDepth", [x6], "s2d_out", "space_to_depth", blocksize=2),
        g.node("LRN", [x], "lrn_out", "lrn_size3", size=3, alpha=1e-3, beta=0.75, bias=2.0),
        g.node("MeanVarianceNormalization", [x], "mvn_out", "mvn_default"),
        g.node("Asin", [tanh], "asin_out", "asin"),
        g.node("Acos", [tanh], "acos_out", "acos"),
        g.node("Atan", [data], "atan_out", "atan"),
        g.node("Mod", [ints, g.i64("mod_by", [3])], "mod_out", "mod_python"),
        g.node("Hardmax", [data], "hardmax_out", "hardmax_last"),
        g.node("InstanceNormalization", [x, g.f32("in_scale", [1, 2, 3, 4]), g.f32("in_bias", [0, 0, 1, 1])],
               "instnorm_out", "instance_norm"),
    )
    # onnx 1.12 cannot infer OneHot's shape from a depth initializer.
    g.output(g.node("OneHot", [ints, g.i64("depth", [5]), g.f32("on_off", [0.0, 1.0])], "onehot_out", "onehot"),
             elem_type=FLOAT, shape=[2, 3, 5])
    save(g.build(), "more_ops.onnx", out)


@model
def unsupported_ops(out):
    """Valid ONNX with ops an importer is unlikely to support: Det x2, Bernoulli x1 (plus a Relu,
    Hardmax and Sigmoid)."""
    g = G("unsupported_ops", seed=24)
    a = g.input("a", FLOAT, [3, 4, 4])
    b = g.input("b", FLOAT, [4, 5])
    r = g.node("Relu", [a], "a_relu", "supported_relu")
    g.output(
        g.node("Det", [a], "det_a", "det_first"),
        g.node("Det", [r], "det_relu", "det_second"),
        g.node("Hardmax", [b], "hardmax_b", "hardmax_rows", axis=-1),
    )
    g.output(g.node("Bernoulli", [g.node("Sigmoid", [a], "a_prob", "supported_sigmoid")], "coin_out",
                    "bernoulli_coins"))
    save(g.build(), "unsupported_ops.onnx", out)


@model
def recurrent_resize(out):
    """LSTM (forward, peepholes, initial states), bidirectional GRU with sequence_lens, reverse RNN
    with layout 1; Resize linear (scales), nearest (sizes, asymmetric floor), cubic downsampling one axis
    (exclude_outside); Einsum (implicit output, diagonal); an LSTM with a wrong W shape (node `lstm_bad_w`) for the error test."""
    g = G("recurrent_resize", seed=26)
    x = g.input("x", FLOAT, [5, 2, 3])
    lens = g.input("lens", TensorProto.INT32, [2])
    img = g.input("img", FLOAT, [1, 2, 4, 4])
    xb = g.input("xb", FLOAT, [2, 5, 3])
    h0 = g.randn("lstm_h0", [1, 2, 4], 0.1)
    c0 = g.randn("lstm_c0", [1, 2, 4], 0.1)
    g.node("LSTM", [x, g.randn("lstm_w", [1, 16, 3], 0.3), g.randn("lstm_r", [1, 16, 4], 0.3),
                    g.randn("lstm_b", [1, 32], 0.1), "", h0, c0, g.randn("lstm_p", [1, 12], 0.1)],
           ["lstm_y", "lstm_yh", "lstm_yc"], "lstm_peephole", hidden_size=4)
    g.node("GRU", [x, g.randn("gru_w", [2, 9, 3], 0.3), g.randn("gru_r", [2, 9, 3], 0.3),
                   g.randn("gru_b", [2, 18], 0.1), lens],
           ["gru_y", "gru_yh"], "gru_bidirectional", hidden_size=3, direction="bidirectional",
           linear_before_reset=1)
    g.node("RNN", [xb, g.randn("rnn_w", [1, 2, 3], 0.3), g.randn("rnn_r", [1, 2, 2], 0.3)],
           ["rnn_y"], "rnn_reverse_batch_first", hidden_size=2, direction="reverse", layout=1,
           activations=["Relu"])
    g.output("lstm_y", "lstm_yh", "lstm_yc", "gru_y", "gru_yh", "rnn_y")
    g.output(
        g.node("Resize", [img, "", g.f32("resize_scales", [1, 1, 2, 2])], "resize_linear_out",
               "resize_linear", mode="linear"),
        g.node("Resize", [img, "", "", g.i64("resize_sizes", [1, 2, 8, 6])], "resize_nearest_out",
               "resize_nearest", mode="nearest", coordinate_transformation_mode="asymmetric",
               nearest_mode="floor"),
        g.node("Resize", [img, "", g.f32("resize_cubic_scales", [1, 1, 1, 0.5])],
               "resize_cubic_out", "resize_cubic", mode="cubic", exclude_outside=1),
    )
    # onnx 1.12 infers only the rank of an Einsum result: declare its type by hand.
    sq = g.input("sq", FLOAT, [3, 3])
    g.output(g.node("Einsum", [xb, sq], "einsum_out", "einsum_implicit", equation="bti,ij"),
             elem_type=FLOAT, shape=[2, 3, 5])
    g.output(g.node("Einsum", [sq], "einsum_diag_out", "einsum_diagonal", equation="ii->i"),
             elem_type=FLOAT, shape=[3])
    g.output(g.node("ReverseSequence", [xb, g.input("rev_lens", INT64, [2])], "reversed_out",
                    "reverse_sequence_batch",
                    batch_axis=0, time_axis=1))
    save(g.build(), "recurrent_resize.onnx", out)
    bad = G("recurrent_bad", seed=27)
    xs = bad.input("x", FLOAT, [5, 2, 3])
    bad.node("LSTM", [xs, bad.randn("w", [1, 16, 2], 0.3), bad.randn("r", [1, 16, 4], 0.3)],
             ["y"], "lstm_bad_w", hidden_size=4)
    bad.output("y", elem_type=FLOAT, shape=[5, 1, 2, 4])
    save(bad.make(), "recurrent_bad.onnx", out)


@model
def detection(out):
    """NonMaxSuppression (output of data-dependent length) and what may follow it: the box column
    gathered, the boxes gathered by it (then a ReduceMax and a Softmax along their other axis), a
    slice of the first 4 and elementwise ops; a second NMS in
    center-point format whose max_output_boxes_per_class is a graph input (so no bound but N);
    Unique of the score slices along the last axis, unsorted, without its indices output; the scores
    above 0.5 by NonZero, Transpose and GatherND.
    `detection_bad.onnx`: the selection read by ops that would see its padding (ReduceSum, Shape,
    Concat along it, Add with a fixed-length value), node names `bad_*`."""
    g = G("detection", seed=28)
    boxes = g.input("boxes", FLOAT, [1, 8, 4])
    scores = g.input("scores", FLOAT, [1, 2, 8])
    limit = g.input("limit", INT64, [1])
    sel = g.node("NonMaxSuppression", [boxes, scores, g.i64("max_boxes", [3]), g.f32("iou", [0.5]),
                                       g.f32("score_min", [0.1])], "selected", "nms_corners")
    box_index = g.node("Gather", [sel, g.i64("box_column", np.int64(2))], "box_index", "box_column",
                       axis=1)
    flat = g.node("Squeeze", [boxes, g.i64("batch_axis", [0])], "flat_boxes", "flat_boxes")
    kept = g.node("Gather", [flat, box_index], "kept_boxes", "kept_boxes", axis=0)
    first = g.node("Slice", [box_index, g.i64("first_start", [0]), g.i64("first_end", [4])], "first4",
                   "first_four")
    scaled = g.node("Mul", [g.node("Cast", [first], "first4_f", "first_float", to=FLOAT),
                            g.f32("two", np.float32(2))], "first4_scaled", "scaled")
    g.output("selected", elem_type=INT64, shape=["n", 3])
    g.output(kept, elem_type=FLOAT, shape=["n", 4])
    # Along the other axis of the kept boxes: a reduction without kept dims and a softmax.
    g.output(g.node("ReduceMax", [kept], "kept_max", "kept_max", axes=[1], keepdims=0),
             elem_type=FLOAT, shape=["n"])
    g.output(g.node("Softmax", [kept], "kept_softmax", "kept_softmax", axis=-1), elem_type=FLOAT,
             shape=["n", 4])
    g.output(scaled, elem_type=FLOAT, shape=["m"])
    g.output(g.node("NonMaxSuppression", [boxes, scores, limit], "selected_center", "nms_center",
                    center_point_box=1), elem_type=INT64, shape=["k", 3])
    g.node("Unique", [scores], ["unique_y", "", "unique_inverse", "unique_counts"], "unique_scores",
           axis=-1, sorted=0)
    g.output("unique_y", elem_type=FLOAT, shape=[1, 2, "u"])
    g.output("unique_inverse", elem_type=INT64, shape=[8])
    g.output("unique_counts", elem_type=INT64, shape=["u"])
    # Boolean indexing as PyTorch exports it: the coordinates of a mask, transposed into index
    # tuples, gathered.
    high = g.node("Greater", [scores, g.f32("half", np.float32(0.5))], "high", "high_mask")
    tuples = g.node("Transpose", [g.node("NonZero", [high], "high_coords", "high_coords")],
                    "high_tuples", "high_tuples", perm=[1, 0])
    g.output(g.node("GatherND", [scores, tuples], "high_scores", "high_scores"), elem_type=FLOAT,
             shape=["h"])
    save(g.make(), "detection.onnx", out)

    bad = G("detection_bad", seed=29)
    boxes = bad.input("boxes", FLOAT, [1, 8, 4])
    scores = bad.input("scores", FLOAT, [1, 2, 8])
    sel = bad.node("NonMaxSuppression", [boxes, scores, bad.i64("max_boxes", [3])], "selected", "nms")
    bad.output(bad.node("ReduceSum", [sel], "total", "bad_sum", keepdims=0), elem_type=INT64, shape=[])
    bad.output(bad.node("Shape", [sel], "count", "bad_shape"), elem_type=INT64, shape=[2])
    bad.output(bad.node("Concat", [sel, sel], "twice", "bad_concat", axis=0), elem_type=INT64,
               shape=["n", 3])
    bad.output(bad.node("Add", [sel, bad.i64("fixed", np.ones([6, 3], np.int64))], "shifted", "bad_add"),
               elem_type=INT64, shape=["n", 3])
    save(bad.make(), "detection_bad.onnx", out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=HERE, help="output directory (default: this script's folder)")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for fn in MODELS:
        fn(args.out)
        print(f"wrote {fn.__name__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
