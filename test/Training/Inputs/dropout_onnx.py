"""Writes an MLP with a training-mode Dropout (ratio 0.25, mask output) as ONNX.

    dropout_onnx.py OUT.onnx
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.RandomState(0)
w1 = numpy_helper.from_array(rng.randn(16, 32).astype(np.float32) * 0.3, "fc1.weight")
b1 = numpy_helper.from_array(np.zeros(32, np.float32), "fc1.bias")
w2 = numpy_helper.from_array(rng.randn(32, 4).astype(np.float32) * 0.3, "fc2.weight")
ratio = numpy_helper.from_array(np.array(0.25, np.float32), "ratio")
training = numpy_helper.from_array(np.array(True), "training_mode")
nodes = [
    helper.make_node("Gemm", ["x", "fc1.weight", "fc1.bias"], ["h"], name="fc1"),
    helper.make_node("Relu", ["h"], ["r"], name="relu"),
    helper.make_node("Dropout", ["r", "ratio", "training_mode"], ["d", "mask"], name="drop",
                     seed=5),
    helper.make_node("MatMul", ["d", "fc2.weight"], ["logits"], name="fc2"),
]
graph = helper.make_graph(
    nodes, "dropout_mlp",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 16])],
    [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [8, 4]),
     helper.make_tensor_value_info("mask", TensorProto.BOOL, [8, 32])],
    [w1, b1, w2, ratio, training])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
