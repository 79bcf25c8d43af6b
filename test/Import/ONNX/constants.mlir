// RUN: oneflow-opt %S/Inputs/constants.onnx --mlir-elide-resource-strings-if-larger=1000 | FileCheck %s

// Constant, ConstantOfShape, Range and Size are all known at import time.
// CHECK-DAG: %[[SCALAR:.*]] = oneflow.constant dense<2.500000e+00> : tensor<f32>
// CHECK-DAG: %[[OFSHAPE_F:.*]] = oneflow.constant dense<1.500000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[OFSHAPE_I:.*]] = oneflow.constant dense<7> : tensor<2x3xi64>
// CHECK-DAG: %[[OFSHAPE_D:.*]] = oneflow.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[RANGE_I:.*]] = oneflow.constant dense<[0, 3, 6, 9]> : tensor<4xi64>
// CHECK-DAG: %[[RANGE_F:.*]] = oneflow.constant dense<[5.000000e-01, 1.000000e+00, 1.500000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[SIZE:.*]] = oneflow.constant dense<6> : tensor<i64>
// CHECK: oneflow.mul %arg0, %[[SCALAR]]
// CHECK: %[[R:.*]] = oneflow.reshape %arg0 : tensor<2x3xf32> to tensor<3x2xf32>
// CHECK: return {{.*}}, %[[OFSHAPE_F]], %[[OFSHAPE_I]], %[[OFSHAPE_D]], %[[RANGE_I]], %[[RANGE_F]], %[[SIZE]], %[[R]]
