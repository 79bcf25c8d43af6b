// RUN: oneflow-opt %s -split-input-file --oneflow-autodiff | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --oneflow-autodiff="wrt=arguments" | FileCheck %s --check-prefix=ARGS

// A linear layer: dW = x^T dy, db = dy summed over the broadcast rows; the
// gradients become results marked with the variable they belong to.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: -> (tensor<f32>, tensor<16x10xf32> {oneflow.gradient_of = @w, onnx.name = "grad_w"}, tensor<10xf32> {oneflow.gradient_of = @b, onnx.name = "grad_b"})
// CHECK-DAG: %[[W:.*]] = oneflow.variable @w {{.*}}oneflow.trainable
// CHECK-DAG: %[[B:.*]] = oneflow.variable @b {{.*}}oneflow.trainable
// CHECK: %[[Y:.*]] = oneflow.matmul %[[X:.*]], %[[W]]
// CHECK: %[[LOSS:.*]] = oneflow.reduce_sum
// CHECK: %[[SEED:.*]] = oneflow.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[DY:.*]] = oneflow.expand
// CHECK: %[[DB:.*]] = oneflow.reduce_sum %[[DY]] {axes = array<i64: 0>} : tensor<4x10xf32> -> tensor<10xf32>
// CHECK: %[[DW:.*]] = oneflow.matmul %[[X]], %[[DY]] {transpose_a} : (tensor<4x16xf32>, tensor<4x10xf32>) -> tensor<16x10xf32>
// CHECK: return %[[LOSS]], %[[DW]], %[[DB]]
// ARGS-LABEL: func.func @main(
// ARGS-SAME: -> (tensor<f32>, tensor<4x16xf32> {oneflow.gradient_of = 0 : i64, onnx.name = "grad_x"})
// ARGS: %[[DX:.*]] = oneflow.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<4x10xf32>, tensor<16x10xf32>) -> tensor<4x16xf32>
// ARGS: return %{{.*}}, %[[DX]]
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> tensor<f32> {
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<16x10xf32>} : tensor<16x10xf32>
  %b = oneflow.variable @b {initial_value = dense<0.1> : tensor<10xf32>} : tensor<10xf32>
  %y = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x10xf32>) -> tensor<4x10xf32>
  %z = oneflow.add %y, %b : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %l = oneflow.reduce_sum %z {axes = array<i64: 0, 1>} : tensor<4x10xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A value used twice gets the sum of both gradients; reads of one variable
// are merged into one.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: -> (tensor<f32>, tensor<8xf32> {oneflow.gradient_of = @v, onnx.name = "grad_v"})
// CHECK: %[[V:.*]] = oneflow.variable @v
// CHECK-NOT: oneflow.variable @v
// CHECK: %[[SQ:.*]] = oneflow.mul %[[V]], %[[V]]
// CHECK: %[[G1:.*]] = oneflow.mul %{{.*}}, %[[V]]
// CHECK: %[[G2:.*]] = oneflow.mul %{{.*}}, %[[V]]
// CHECK: %[[SUM:.*]] = oneflow.add %[[G1]], %[[G2]]
// CHECK: return %{{.*}}, %[[SUM]]
func.func @main() -> tensor<f32> {
  %a = oneflow.variable @v {initial_value = dense<2.0> : tensor<8xf32>} : tensor<8xf32>
  %b = oneflow.variable @v {initial_value = dense<2.0> : tensor<8xf32>} : tensor<8xf32>
  %sq = oneflow.mul %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %l = oneflow.reduce_sum %sq {axes = array<i64: 0>} : tensor<8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Integer inputs (labels, indices) get no gradient; the gather's table does.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: -> (tensor<f32>, tensor<50x8xf32> {oneflow.gradient_of = @table, onnx.name = "grad_table"})
// CHECK: oneflow.gather_grad %{{.*}}, %{{.*}} : (tensor<4xi64>, tensor<4x8xf32>) -> tensor<50x8xf32>
// ARGS-LABEL: func.func @main(
// ARGS-SAME: -> tensor<f32>
func.func @main(%ids: tensor<4xi64> {onnx.name = "ids"}) -> tensor<f32> {
  %t = oneflow.variable @table {initial_value = dense<1.0> : tensor<50x8xf32>} : tensor<50x8xf32>
  %e = oneflow.gather %t, %ids : (tensor<50x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  %l = oneflow.reduce_mean %e {axes = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
