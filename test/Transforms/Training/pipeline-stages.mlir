// RUN: oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=2" --oneflow-optimizer --sbp-pipeline-stages="stages=2" | FileCheck %s

// Two equally costly layers: one per stage. Both micro-batch copies of a
// forward op and the backward ops that differentiate it share its stage;
// the optimizer update of a weight runs on the weight's stage; slices of
// the inputs stay unplaced (each stage that needs one computes it).
// CHECK-LABEL: func.func @main(
// CHECK: %[[X0:.*]] = oneflow.reshape %arg0 : tensor<4x16xf32> to tensor<2x2x16xf32>
// CHECK-NOT: oneflow.stage
// CHECK: %[[H0:.*]] = oneflow.matmul %{{.*}}, %[[W1:.*]] {oneflow.stage = 0 : i64}
// CHECK: oneflow.relu %[[H0]] {oneflow.stage = 0 : i64}
// CHECK: oneflow.matmul %{{.*}}, %[[W2:.*]] {oneflow.stage = 1 : i64}
// CHECK: oneflow.softmax_cross_entropy {{.*}}oneflow.stage = 1
// CHECK: oneflow.softmax_cross_entropy_grad {{.*}}oneflow.stage = 1
// CHECK: oneflow.matmul {{.*}}oneflow.stage = 1 : i64, transpose_a
// CHECK: oneflow.relu {{.*}}oneflow.stage = 0
// CHECK: oneflow.matmul {{.*}}oneflow.stage = 0 : i64, transpose_a
// CHECK: oneflow.sub %[[W1]], %{{.*}} {oneflow.stage = 0 : i64}
// CHECK: oneflow.assign @w1, %{{.*}} {oneflow.stage = 0 : i64}
// CHECK: oneflow.sub %[[W2]], %{{.*}} {oneflow.stage = 1 : i64}
// CHECK: oneflow.assign @w2, %{{.*}} {oneflow.stage = 1 : i64}
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "logits"}) {
  %w1 = oneflow.variable @w1 {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %w2 = oneflow.variable @w2 {initial_value = dense<0.25> : tensor<16x16xf32>} : tensor<16x16xf32>
  %h = oneflow.matmul %x, %w1 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %r = oneflow.relu %h : tensor<4x16xf32>
  %y = oneflow.matmul %r, %w2 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

