// A program that reads a parameter after assigning it cannot be a training
// step; the error names the ONNX nodes of the read and of the store.
// RUN: not oneflow-opt %s --no-fuse --emit=plan -o %t 2>&1 | FileCheck %s

// CHECK: error: {{.*}}reads variable @w after it was assigned in the same step: kernel_{{[0-9]+}}_matmul (ONNX node '/l2/MatMul'; backward) reads it after assign @w (update) stores it
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x8xf32> {onnx.name = "y"}) {
  %lr = oneflow.constant dense<0.1> : tensor<f32>
  %w = oneflow.variable @w {initial_value = dense<1.0> : tensor<16x8xf32>} : tensor<16x8xf32>
  %y = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["/l1/MatMul"])
  %g = oneflow.matmul %x, %y {transpose_a} : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["/l1/MatMul"])
  %s = oneflow.mul %g, %lr : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["sgd"])
  %n = oneflow.sub %w, %s : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["sgd"])
  oneflow.assign @w, %n : tensor<16x8xf32> loc(fused<{oneflow.provenance = ["update", -1, 0]}>["sgd"])
  %z = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> loc(fused<{oneflow.provenance = ["backward", 1, 0]}>["/l2/MatMul"])
  return %z : tensor<4x8xf32>
}
