// RUN: oneflow-opt %s | oneflow-opt | FileCheck %s

// Room for every element's coordinates: [rank, elements].
// CHECK-LABEL: func @coordinates
// CHECK: oneflow.non_zero %arg0 : tensor<3x4xf64> -> tensor<2x12xi64>, tensor<i64>
func.func @coordinates(%x: tensor<3x4xf64>) -> (tensor<2x12xi64>, tensor<i64>) {
  %y, %n = oneflow.non_zero %x : tensor<3x4xf64> -> tensor<2x12xi64>, tensor<i64>
  return %y, %n : tensor<2x12xi64>, tensor<i64>
}
