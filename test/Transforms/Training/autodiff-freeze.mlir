// RUN: oneflow-opt %s --oneflow-autodiff="freeze=b" | FileCheck %s

// A frozen variable is read but not trained: no gradient, no update.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: -> (tensor<f32>, tensor<16x10xf32> {oneflow.gradient_of = @w, onnx.name = "grad_w"})
// CHECK-NOT: grad_b
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> tensor<f32> {
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<16x10xf32>} : tensor<16x10xf32>
  %b = oneflow.variable @b {initial_value = dense<0.1> : tensor<10xf32>} : tensor<10xf32>
  %y = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x10xf32>) -> tensor<4x10xf32>
  %z = oneflow.add %y, %b : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %l = oneflow.reduce_sum %z {axes = array<i64: 0, 1>} : tensor<4x10xf32> -> tensor<f32>
  return %l : tensor<f32>
}

