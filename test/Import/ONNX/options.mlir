// Opset 11 attribute forms; a pinned dynamic dimension; external data.
// RUN: oneflow-opt %S/Inputs/opset11_legacy.onnx | FileCheck %s --check-prefix=OPSET11
// RUN: oneflow-opt %S/Inputs/dynamic_batch.onnx --input-shape=x:2x32 | FileCheck %s --check-prefix=PINNED
// RUN: oneflow-opt %S/Inputs/external_data.onnx --mlir-elide-resource-strings-if-larger=100000 | FileCheck %s --check-prefix=EXTERNAL

// Axes attributes (Unsqueeze, Squeeze, ReduceSum, Split) and the opset < 13
// Softmax, which works on the input flattened to 2-D at its axis.
// OPSET11: oneflow.unsqueeze %arg0 {axes = array<i64: 0>}
// OPSET11: oneflow.squeeze
// OPSET11: %[[FLAT:.*]] = oneflow.reshape %arg0 : tensor<2x3x4xf32> to tensor<2x12xf32>
// OPSET11: %[[SM:.*]] = oneflow.softmax %[[FLAT]] {axis = 1 : i64} : tensor<2x12xf32>
// OPSET11: oneflow.reshape %[[SM]] : tensor<2x12xf32> to tensor<2x3x4xf32>
// OPSET11: oneflow.reduce_sum %arg0 {axes = array<i64: 1>}
// OPSET11: oneflow.split %arg0 {axis = 2 : i64, sizes = array<i64: 1, 3>}

// PINNED: func.func @main(%arg0: tensor<2x32xf32> {onnx.name = "x"}) -> (tensor<2x16xf32> {onnx.name = "y"})

// The data of both initializers is read from external_data.bin.
// EXTERNAL: oneflow.variable @ext_weight {initial_value = dense_resource<ext_weight> : tensor<16x8xf32>}
// EXTERNAL: oneflow.variable @ext_bias {initial_value = dense<[-0.0105813053, 0.200990155
// EXTERNAL: ext_weight: "0x08000000
