// RUN: oneflow-opt %s -split-input-file | oneflow-opt | FileCheck %s

// Along an axis, y keeps x's shape (room for every slice).
// CHECK-LABEL: func @slices
// CHECK: oneflow.unique %arg0 {axis = 1 : i64, sorted} : tensor<2x4x2xf32> -> tensor<2x4x2xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<i64>
func.func @slices(%x: tensor<2x4x2xf32>) -> tensor<2x4x2xf32> {
  %y, %indices, %inverse, %counts, %n = oneflow.unique %x {axis = 1 : i64, sorted} : tensor<2x4x2xf32> -> tensor<2x4x2xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<i64>
  return %y : tensor<2x4x2xf32>
}

// -----

// Without an axis, the elements flattened, in order of first occurrence.
// CHECK-LABEL: func @elements
// CHECK: oneflow.unique %arg0 : tensor<2x3xi64> -> tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<i64>
func.func @elements(%x: tensor<2x3xi64>) -> tensor<6xi64> {
  %y, %indices, %inverse, %counts, %n = oneflow.unique %x : tensor<2x3xi64> -> tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<i64>
  return %y : tensor<6xi64>
}
