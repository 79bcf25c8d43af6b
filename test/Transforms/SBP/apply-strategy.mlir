// RUN: oneflow-opt %s --sbp-apply-strategy="mesh=4 strategy=data" -split-input-file | FileCheck %s --check-prefix=DATA
// RUN: oneflow-opt %s --sbp-apply-strategy="mesh=2 strategy=tensor" -split-input-file | FileCheck %s --check-prefix=TENSOR
// RUN: oneflow-opt %s --sbp-apply-strategy="mesh=2,2 strategy=data,tensor" -split-input-file | FileCheck %s --check-prefix=BOTH

// A Megatron MLP block: fc1 column-parallel, fc2 row-parallel.
// DATA: sbp.mesh @mesh shape = [4] device = "cpu"
// DATA: func.func @main(%{{.*}}: tensor<8x64xf32> {sbp.nd = #sbp.nd<[S<0>]>}) -> tensor<8x64xf32> attributes {sbp.placement = @mesh}
// DATA: oneflow.variable @fc1 {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> (B)>}
// DATA: oneflow.variable @fc2 {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> (B)>}

// TENSOR: func.func @main(%{{.*}}: tensor<8x64xf32> {sbp.nd = #sbp.nd<[B]>})
// fc1 weight [64, 256]: split on its output features.
// TENSOR: oneflow.variable @fc1 {{.*}}sbp.sig = #sbp.sig<() -> (S<1>)>
// fc2 weight [256, 64]: split on its input features.
// TENSOR: oneflow.variable @fc2 {{.*}}sbp.sig = #sbp.sig<() -> (S<0>)>

// BOTH: sbp.mesh @mesh shape = [2, 2] device = "cpu"
// BOTH: sbp.nd = #sbp.nd<[S<0>, B]>
// BOTH: oneflow.variable @fc1 {{.*}}sbp.sig = #sbp.sig<() -> ([B, S<1>])>
// BOTH: oneflow.variable @fc2 {{.*}}sbp.sig = #sbp.sig<() -> ([B, S<0>])>
func.func @main(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %w1 = oneflow.variable @fc1 : tensor<64x256xf32>
  %w2 = oneflow.variable @fc2 : tensor<256x64xf32>
  %h = oneflow.matmul %x, %w1 : (tensor<8x64xf32>, tensor<64x256xf32>) -> tensor<8x256xf32>
  %a = oneflow.gelu %h : tensor<8x256xf32>
  %y = oneflow.matmul %a, %w2 : (tensor<8x256xf32>, tensor<256x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// PyTorch's Linear stores weights [out, in] (transpose_b): the column split
// is then S<0>, the row split S<1>. Embedding tables split on the vocabulary.
// TENSOR: func.func @main(%{{.*}}: tensor<2x16xi64>
// TENSOR: oneflow.variable @wte {{.*}}sbp.sig = #sbp.sig<() -> (S<0>)>
// TENSOR: oneflow.variable @up {{.*}}sbp.sig = #sbp.sig<() -> (S<0>)>
// TENSOR: oneflow.variable @down {{.*}}sbp.sig = #sbp.sig<() -> (S<1>)>
func.func @main(%ids: tensor<2x16xi64>) -> tensor<2x16x32xf32> {
  %wte = oneflow.variable @wte : tensor<128x32xf32>
  %up = oneflow.variable @up : tensor<64x32xf32>
  %down = oneflow.variable @down : tensor<32x64xf32>
  %e = oneflow.gather %wte, %ids : (tensor<128x32xf32>, tensor<2x16xi64>) -> tensor<2x16x32xf32>
  %h = oneflow.batch_matmul %e, %up {transpose_b} : (tensor<2x16x32xf32>, tensor<64x32xf32>) -> tensor<2x16x64xf32>
  %r = oneflow.relu %h : tensor<2x16x64xf32>
  %y = oneflow.batch_matmul %r, %down {transpose_b} : (tensor<2x16x64xf32>, tensor<32x64xf32>) -> tensor<2x16x32xf32>
  return %y : tensor<2x16x32xf32>
}
