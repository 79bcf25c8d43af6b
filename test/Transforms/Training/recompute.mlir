// RUN: oneflow-opt %s -split-input-file --oneflow-autodiff --oneflow-recompute="mode=selective" | FileCheck %s --check-prefix=SEL
// RUN: oneflow-opt %s -split-input-file --oneflow-autodiff --oneflow-recompute="mode=full" | FileCheck %s --check-prefix=FULL
// RUN: oneflow-opt %s -split-input-file --oneflow-autodiff="microbatches=2" --oneflow-recompute="mode=full" | FileCheck %s --check-prefix=MICRO
// RUN: oneflow-opt %s -split-input-file --oneflow-autodiff --oneflow-recompute="mode=none" | FileCheck %s --check-prefix=NONE

// Attention: selective recomputation keeps q, k, v (the backward reads
// them anyway) and recomputes the scores and their softmax, the large
// [batch, query, key] activations, right before the backward reads them.
// SEL-LABEL: func.func @main(
// SEL: %[[Q:.*]] = oneflow.batch_matmul %arg0, %{{.*}} : (tensor<2x4x16xf32>, tensor<16x16xf32>)
// SEL: %[[K:.*]] = oneflow.batch_matmul %arg0, %{{.*}} : (tensor<2x4x16xf32>, tensor<16x16xf32>)
// SEL: %[[V:.*]] = oneflow.batch_matmul %arg0, %{{.*}} : (tensor<2x4x16xf32>, tensor<16x16xf32>)
// SEL: %[[P:.*]] = oneflow.softmax
// SEL: oneflow.batch_matmul %[[P]], %[[V]]
// SEL: oneflow.reduce_sum
// The backward of the context product first reads v, then the probabilities.
// SEL: oneflow.batch_matmul %{{.*}}, %[[V]] {transpose_b}
// SEL-NEXT: %[[S2:.*]] = oneflow.batch_matmul %[[Q]], %[[K]] {oneflow.recomputed, transpose_b}
// SEL-NEXT: %[[P2:.*]] = oneflow.softmax %[[S2]] {axis = 2 : i64, oneflow.recomputed}
// SEL-NEXT: oneflow.batch_matmul %[[P2]], %{{.*}} {transpose_a}
// SEL-NOT: %[[P]]
// SEL: return
// Full recomputation of the one layer: q, k, v and the rest run again, from
// the layer's input; only the loss (another layer) reads the forward.
// FULL-LABEL: func.func @main(
// FULL: %[[O:.*]] = oneflow.batch_matmul %{{.*}}, %{{.*}} : (tensor<2x4x4xf32>, tensor<2x4x16xf32>)
// FULL: oneflow.reduce_sum %[[O]]
// FULL-DAG: oneflow.batch_matmul %arg0, %{{.*}} {oneflow.recomputed} : (tensor<2x4x16xf32>, tensor<16x16xf32>)
// FULL-DAG: oneflow.softmax %{{.*}} {axis = 2 : i64, oneflow.recomputed}
// NONE-NOT: oneflow.recomputed
func.func @main(%x: tensor<2x4x16xf32> {onnx.name = "x"}) -> tensor<f32> {
  %wq = oneflow.variable @wq {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %wk = oneflow.variable @wk {initial_value = dense<0.25> : tensor<16x16xf32>} : tensor<16x16xf32>
  %wv = oneflow.variable @wv {initial_value = dense<0.125> : tensor<16x16xf32>} : tensor<16x16xf32>
  %q = oneflow.batch_matmul %x, %wq : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16xf32> loc("/blocks.0/attn/q")
  %k = oneflow.batch_matmul %x, %wk : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16xf32> loc("/blocks.0/attn/k")
  %v = oneflow.batch_matmul %x, %wv : (tensor<2x4x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16xf32> loc("/blocks.0/attn/v")
  %s = oneflow.batch_matmul %q, %k {transpose_b} : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x4xf32> loc("/blocks.0/attn/scores")
  %p = oneflow.softmax %s {axis = 2 : i64} : tensor<2x4x4xf32> loc("/blocks.0/attn/softmax")
  %o = oneflow.batch_matmul %p, %v : (tensor<2x4x4xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32> loc("/blocks.0/attn/context")
  %l = oneflow.reduce_sum %o {axes = array<i64: 0, 1, 2>} : tensor<2x4x16xf32> -> tensor<f32> loc("/loss")
  return %l : tensor<f32>
}

// -----

// Two layers. Full: layer 0's product and tanh stay inside it and are
// recomputed from its input right before its backward (after layer 1's
// backward has started); its output, which layer 1 reads, is kept. Layer 1's
// product feeds only its tanh, whose backward reads the tanh itself, so
// nothing of layer 1 is recomputed. Selective: the square is recomputed
// from the tanh, which the backward keeps anyway.
// FULL-LABEL: func.func @main(
// FULL: %[[H0:.*]] = oneflow.matmul %arg0, %[[W0:.*]] : (tensor<4x16xf32>, tensor<16x16xf32>)
// FULL: %[[A0:.*]] = oneflow.tanh %[[H0]]
// FULL: %[[S0:.*]] = oneflow.mul %[[A0]], %[[A0]]
// FULL: %[[H1:.*]] = oneflow.matmul %[[S0]], %[[W1:.*]] :
// FULL: %[[A1:.*]] = oneflow.tanh %[[H1]]
// FULL: oneflow.mul %[[A1]], %[[A1]]
// FULL: %[[DX1:.*]] = oneflow.matmul %{{.*}}, %[[W1]] {transpose_b}
// FULL: oneflow.matmul %[[S0]], %{{.*}} {transpose_a}
// FULL-NEXT: %[[H0R:.*]] = oneflow.matmul %arg0, %[[W0]] {oneflow.recomputed}
// FULL-NEXT: %[[A0R:.*]] = oneflow.tanh %[[H0R]] {oneflow.recomputed}
// FULL-NEXT: oneflow.mul %[[DX1]], %[[A0R]]
// FULL-NOT: %[[A0]]
// FULL: return
// SEL-LABEL: func.func @main(
// SEL: %[[A0:.*]] = oneflow.tanh
// SEL: %[[S0:.*]] = oneflow.mul %[[A0]], %[[A0]] :
// SEL: %[[S0R:.*]] = oneflow.mul %[[A0]], %[[A0]] {oneflow.recomputed}
// SEL-NEXT: oneflow.matmul %[[S0R]], %{{.*}} {transpose_a}
// SEL-NOT: %[[S0]]
// SEL: return
// Each micro-batch recomputes from its own input slice.
// MICRO-LABEL: func.func @main(
// MICRO: %[[X0:.*]] = oneflow.reshape %{{.*}} : tensor<2x1x16xf32> to tensor<2x16xf32>
// MICRO: oneflow.matmul %[[X0]], %{{.*}} {oneflow.recomputed}
// MICRO: %[[X1:.*]] = oneflow.reshape %{{.*}} : tensor<2x1x16xf32> to tensor<2x16xf32>
// MICRO: oneflow.matmul %[[X1]], %{{.*}} {oneflow.recomputed}
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}) -> tensor<f32> {
  %w0 = oneflow.variable @w0 {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %w1 = oneflow.variable @w1 {initial_value = dense<0.25> : tensor<16x16xf32>} : tensor<16x16xf32>
  %h0 = oneflow.matmul %x, %w0 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32> loc("/blocks.0/fc/MatMul")
  %a0 = oneflow.tanh %h0 : tensor<4x16xf32> loc("/blocks.0/Tanh")
  %s0 = oneflow.mul %a0, %a0 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32> loc("/blocks.0/Mul")
  %h1 = oneflow.matmul %s0, %w1 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32> loc("/blocks.1/fc/MatMul")
  %a1 = oneflow.tanh %h1 : tensor<4x16xf32> loc("/blocks.1/Tanh")
  %l = oneflow.reduce_sum %a1 {axes = array<i64: 0, 1>} : tensor<4x16xf32> -> tensor<f32> loc("/loss")
  return %l : tensor<f32>
}
