// RUN: oneflow-opt %s -split-input-file --oneflow-mixed-precision="precision=bf16" | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --oneflow-mixed-precision="precision=f32" | FileCheck %s --check-prefix=F32
// RUN: not oneflow-opt %s -split-input-file --oneflow-mixed-precision="precision=fp8" 2>&1 | FileCheck %s --check-prefix=BAD

// A pre-norm residual block, typed as autocast types it: the product and
// its bias in bf16 (parameters cast where read: f32 master weights), the
// scale by a constant and the activation in bf16, softmax computed in f32
// and handed back in bf16, the residual add (f32 stream + bf16 branch) in
// f32, layer norm of the f32 stream in f32, the result f32 as declared.
// CHECK-LABEL: func.func @main(
// CHECK-DAG: %[[W:.*]] = oneflow.variable @w {{.*}} : tensor<16x16xf32>
// CHECK-DAG: %[[B:.*]] = oneflow.variable @b {{.*}} : tensor<16xf32>
// CHECK-DAG: %[[WB:.*]] = oneflow.cast %[[W]] : tensor<16x16xf32> to tensor<16x16xbf16>
// CHECK-DAG: %[[BB:.*]] = oneflow.cast %[[B]] : tensor<16xf32> to tensor<16xbf16>
// CHECK-DAG: %[[SB:.*]] = oneflow.cast %{{.*}} : tensor<f32> to tensor<bf16>
// CHECK: %[[N:.*]] = oneflow.layer_norm %arg0, {{.*}} -> tensor<4x16xf32>
// CHECK: %[[NB:.*]] = oneflow.cast %[[N]] : tensor<4x16xf32> to tensor<4x16xbf16>
// CHECK: %[[P:.*]] = oneflow.matmul %[[NB]], %[[WB]] : (tensor<4x16xbf16>, tensor<16x16xbf16>) -> tensor<4x16xbf16>
// CHECK: %[[PB:.*]] = oneflow.add %[[P]], %[[BB]] : (tensor<4x16xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16>
// CHECK: %[[S:.*]] = oneflow.mul %[[PB]], %[[SB]] : (tensor<4x16xbf16>, tensor<bf16>) -> tensor<4x16xbf16>
// CHECK: %[[G:.*]] = oneflow.gelu %[[S]] : tensor<4x16xbf16>
// CHECK: %[[GF:.*]] = oneflow.cast %[[G]] : tensor<4x16xbf16> to tensor<4x16xf32>
// CHECK: %[[SM:.*]] = oneflow.softmax %[[GF]] {axis = 1 : i64} : tensor<4x16xf32>
// CHECK: %[[SMB:.*]] = oneflow.cast %[[SM]] : tensor<4x16xf32> to tensor<4x16xbf16>
// CHECK: %[[SMF:.*]] = oneflow.cast %[[SMB]] : tensor<4x16xbf16> to tensor<4x16xf32>
// CHECK: %[[R:.*]] = oneflow.add %arg0, %[[SMF]] : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: return %[[R]] : tensor<4x16xf32>
// F32-NOT: bf16
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> (tensor<4x16xf32> {onnx.name = "y"}) {
  %g = oneflow.variable @g {initial_value = dense<1.0> : tensor<16xf32>} : tensor<16xf32>
  %beta = oneflow.variable @beta {initial_value = dense<0.0> : tensor<16xf32>} : tensor<16xf32>
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %b = oneflow.variable @b {initial_value = dense<0.25> : tensor<16xf32>} : tensor<16xf32>
  %scale = oneflow.constant dense<0.125> : tensor<f32>
  %n = oneflow.layer_norm %x, %g, %beta {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %p = oneflow.matmul %n, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %pb = oneflow.add %p, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %s = oneflow.mul %pb, %scale : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %a = oneflow.gelu %s : tensor<4x16xf32>
  %sm = oneflow.softmax %a {axis = 1 : i64} : tensor<4x16xf32>
  %r = oneflow.add %x, %sm : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Losses are computed in f32 from bf16 logits.
// CHECK-LABEL: func.func @main(
// CHECK: %[[L:.*]] = oneflow.matmul {{.*}} -> tensor<4x8xbf16>
// CHECK: %[[LF:.*]] = oneflow.cast %[[L]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK: oneflow.softmax_cross_entropy %[[LF]], %arg1{{.*}} : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<f32>
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}, %labels: tensor<4xi64> {onnx.name = "labels"}) -> (tensor<f32> {onnx.name = "loss"}) {
  %w = oneflow.variable @w {initial_value = dense<0.5> : tensor<16x8xf32>} : tensor<16x8xf32>
  %l = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %loss = oneflow.softmax_cross_entropy %l, %labels {reduction = #oneflow.reduction<mean>} : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// BAD: error: unknown precision 'fp8' (expected f32, bf16 or f16)
