// RUN: oneflow-opt %s -split-input-file --oneflow-split-fused-projections | FileCheck %s

// A fused QKV projection with bias becomes three projections whose weights
// and biases are the column slices of the fused ones.

// CHECK-LABEL: func.func @qkv
func.func @qkv(%x: tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %w = oneflow.variable @qkv.weight {initial_value = dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0], [18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<4x6xf32>} : tensor<4x6xf32>
  %b = oneflow.variable @qkv.bias {initial_value = dense<[0.5, 1.5, 2.5, 3.5, 4.5, 5.5]> : tensor<6xf32>} : tensor<6xf32>
  %m = oneflow.matmul %x, %w : (tensor<2x4xf32>, tensor<4x6xf32>) -> tensor<2x6xf32>
  %a = oneflow.add %b, %m : (tensor<6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
  %q, %k, %v = oneflow.split %a {axis = 1 : i64, sizes = array<i64: 2, 2, 2>} : tensor<2x6xf32> -> tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  return %q, %k, %v : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
// CHECK-DAG: %[[W0:.*]] = oneflow.variable @qkv.weight.part0 {initial_value = dense<{{\[}}[0.000000e+00, 1.000000e+00], [6.000000e+00, 7.000000e+00], [1.200000e+01, 1.300000e+01], [1.800000e+01, 1.900000e+01]]>
// CHECK-DAG: %[[W2:.*]] = oneflow.variable @qkv.weight.part2 {initial_value = dense<{{\[}}[4.000000e+00, 5.000000e+00],
// CHECK-DAG: %[[B1:.*]] = oneflow.variable @qkv.bias.part1 {initial_value = dense<[2.500000e+00, 3.500000e+00]>
// CHECK-NOT: oneflow.split
// CHECK: %[[M0:.*]] = oneflow.matmul %{{.*}}, %[[W0]] : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
// CHECK: oneflow.add %{{.*}}, %[[M0]]
// CHECK: oneflow.add %[[B1]],
// CHECK: oneflow.matmul %{{.*}}, %[[W2]]

// -----

// The fused output has another user: nothing changes.

// CHECK-LABEL: func.func @shared
func.func @shared(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x6xf32>) {
  %w = oneflow.variable @w {initial_value = dense<1.0> : tensor<4x6xf32>} : tensor<4x6xf32>
  %m = oneflow.matmul %x, %w : (tensor<2x4xf32>, tensor<4x6xf32>) -> tensor<2x6xf32>
  %p:2 = oneflow.split %m {axis = 1 : i64, sizes = array<i64: 3, 3>} : tensor<2x6xf32> -> tensor<2x3xf32>, tensor<2x3xf32>
  return %p#0, %m : tensor<2x3xf32>, tensor<2x6xf32>
}
// CHECK: oneflow.split

// -----

// A split along rows (not the output features) is left alone.

// CHECK-LABEL: func.func @rows
func.func @rows(%x: tensor<2x4xf32>) -> (tensor<1x6xf32>, tensor<1x6xf32>) {
  %w = oneflow.variable @w {initial_value = dense<1.0> : tensor<4x6xf32>} : tensor<4x6xf32>
  %m = oneflow.matmul %x, %w : (tensor<2x4xf32>, tensor<4x6xf32>) -> tensor<2x6xf32>
  %p:2 = oneflow.split %m {axis = 0 : i64, sizes = array<i64: 1, 1>} : tensor<2x6xf32> -> tensor<1x6xf32>, tensor<1x6xf32>
  return %p#0, %p#1 : tensor<1x6xf32>, tensor<1x6xf32>
}
// CHECK: oneflow.split %{{.*}} {axis = 0

// -----

// Parameters with initializers instead of data: each piece keeps the
// initializer and records its place in the whole parameter, so the runtime
// draws the whole parameter's values for it.

// CHECK-LABEL: func.func @qkv_initializers
func.func @qkv_initializers(%x: tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %w = oneflow.variable @qkv.weight {initializer = #oneflow.init<normal, std = 0.02, seed = 5>} : tensor<4x6xf32>
  %b = oneflow.variable @qkv.bias {initializer = #oneflow.init<zeros>} : tensor<6xf32>
  %m = oneflow.matmul %x, %w : (tensor<2x4xf32>, tensor<4x6xf32>) -> tensor<2x6xf32>
  %a = oneflow.add %b, %m : (tensor<6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
  %q, %k, %v = oneflow.split %a {axis = 1 : i64, sizes = array<i64: 2, 2, 2>} : tensor<2x6xf32> -> tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  return %q, %k, %v : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
// CHECK-DAG: oneflow.variable @qkv.weight.part0 {initializer = #oneflow.init<normal, mean = 0.000000e+00, std = 2.000000e-02, seed = 5>, oneflow.logical_name = "qkv.weight", oneflow.logical_offsets = array<i64: 0, 0>, oneflow.logical_shape = array<i64: 4, 6>} : tensor<4x2xf32>
// CHECK-DAG: oneflow.variable @qkv.weight.part2 {initializer = #oneflow.init<normal, mean = 0.000000e+00, std = 2.000000e-02, seed = 5>, oneflow.logical_name = "qkv.weight", oneflow.logical_offsets = array<i64: 0, 4>, oneflow.logical_shape = array<i64: 4, 6>} : tensor<4x2xf32>
// CHECK-DAG: oneflow.variable @qkv.bias.part1 {initializer = #oneflow.init<zeros>, oneflow.logical_name = "qkv.bias", oneflow.logical_offsets = array<i64: 2>, oneflow.logical_shape = array<i64: 6>} : tensor<2xf32>
// CHECK-NOT: oneflow.split
