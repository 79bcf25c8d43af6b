// RUN: oneflow-opt %s --sbp-infer --sbp-insert-boxing -split-input-file | FileCheck %s

// The Megatron MLP block under tensor parallelism: column-parallel fc1
// keeps the hidden features split through gelu, row-parallel fc2 leaves
// partial sums, and exactly one all-reduce (P -> B) makes the result.
// CHECK-LABEL: func.func @main
// CHECK: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<(B, S<1>) -> (S<1>)>
// CHECK: oneflow.gelu {{.*}}sbp.sig = #sbp.sig<(S<1>) -> (S<1>)>
// CHECK: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<(S<1>, S<0>) -> (P)>
// CHECK: %[[Y:.*]] = sbp.boxing %{{.*}} from [P] to [B] on @mesh
// CHECK-NOT: sbp.boxing
// CHECK: return %[[Y]]
sbp.mesh @mesh shape = [2] device = "cpu"
func.func @main(%x: tensor<8x64xf32>) -> tensor<8x64xf32> attributes {sbp.placement = @mesh} {
  %w1 = oneflow.variable @fc1 {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> (S<1>)>} : tensor<64x256xf32>
  %w2 = oneflow.variable @fc2 {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> (S<0>)>} : tensor<256x64xf32>
  %h = oneflow.matmul %x, %w1 : (tensor<8x64xf32>, tensor<64x256xf32>) -> tensor<8x256xf32>
  %a = oneflow.gelu %h : tensor<8x256xf32>
  %y = oneflow.matmul %a, %w2 : (tensor<8x256xf32>, tensor<256x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Data parallelism: batch-split inputs, broadcast weights; every op keeps
// the batch split and the output is gathered.
// CHECK-LABEL: func.func @main
// CHECK: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<(S<0>, B) -> (S<0>)>
// CHECK: oneflow.add {{.*}}sbp.sig = #sbp.sig<(S<0>, B) -> (S<0>)>
// CHECK: oneflow.softmax {{.*}}sbp.sig = #sbp.sig<(S<0>) -> (S<0>)>
// CHECK: sbp.boxing %{{.*}} from [S<0>] to [B] on @mesh
sbp.mesh @mesh shape = [4] device = "cpu"
func.func @main(%x: tensor<8x64xf32> {sbp.nd = #sbp.nd<[S<0>]>}) -> tensor<8x10xf32> attributes {sbp.placement = @mesh} {
  %w = oneflow.variable @w {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> (B)>} : tensor<64x10xf32>
  %b = oneflow.variable @b {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> (B)>} : tensor<10xf32>
  %h = oneflow.matmul %x, %w : (tensor<8x64xf32>, tensor<64x10xf32>) -> tensor<8x10xf32>
  %hb = oneflow.add %h, %b : (tensor<8x10xf32>, tensor<10xf32>) -> tensor<8x10xf32>
  %y = oneflow.softmax %hb {axis = 1 : i64} : tensor<8x10xf32>
  return %y : tensor<8x10xf32>
}

// -----

// 2x2 mesh, data on axis 0 and tensor on axis 1: nd-signatures combine both.
// CHECK-LABEL: func.func @main
// CHECK: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<([S<0>, B], [B, S<1>]) -> ([S<0>, S<1>])>
// CHECK: oneflow.relu {{.*}}sbp.sig = #sbp.sig<([S<0>, S<1>]) -> ([S<0>, S<1>])>
// CHECK: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<([S<0>, S<1>], [B, S<0>]) -> ([S<0>, P])>
// CHECK: sbp.boxing %{{.*}} from [S<0>, P] to [B, B] on @mesh
sbp.mesh @mesh shape = [2, 2] device = "cpu"
func.func @main(%x: tensor<8x64xf32> {sbp.nd = #sbp.nd<[S<0>, B]>}) -> tensor<8x64xf32> attributes {sbp.placement = @mesh} {
  %w1 = oneflow.variable @fc1 {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> ([B, S<1>])>} : tensor<64x128xf32>
  %w2 = oneflow.variable @fc2 {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> ([B, S<0>])>} : tensor<128x64xf32>
  %h = oneflow.matmul %x, %w1 : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<8x128xf32>
  %a = oneflow.relu %h : tensor<8x128xf32>
  %y = oneflow.matmul %a, %w2 : (tensor<8x128xf32>, tensor<128x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Splits must divide: reshaping [8, 6] to [6, 8] would carry the row split
// onto 6 rows, which 4 devices do not divide, so the input is gathered and
// the reshape runs broadcast.
// CHECK-LABEL: func.func @main
// CHECK: sbp.boxing %arg0 from [S<0>] to [B] on @mesh
// CHECK: oneflow.reshape {{.*}}sbp.sig = #sbp.sig<(B) -> (B)>
sbp.mesh @mesh shape = [4] device = "cpu"
func.func @main(%x: tensor<8x6xf32> {sbp.nd = #sbp.nd<[S<0>]>}) -> tensor<6x8xf32> attributes {sbp.placement = @mesh} {
  %0 = oneflow.reshape %x : tensor<8x6xf32> to tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// -----

// A boxing written by the user is a cast that pins the SBP downstream ops
// follow; the graph result is boxed back to B.

// CHECK-LABEL: func.func @main
sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%x: tensor<4x6xf32>) -> tensor<4x6xf32> attributes {sbp.placement = @m} {
  %s = sbp.boxing %x from [B] to [S<1>] on @m : tensor<4x6xf32>
  %e = oneflow.exp %s : tensor<4x6xf32>
  %n = oneflow.neg %e : tensor<4x6xf32>
  return %n : tensor<4x6xf32>
}
// CHECK: sbp.boxing %{{.*}} from [B] to [S<1>]
// CHECK: oneflow.exp {{.*}}sbp.sig = #sbp.sig<(S<1>) -> (S<1>)>
// CHECK: oneflow.neg {{.*}}sbp.sig = #sbp.sig<(S<1>) -> (S<1>)>
// CHECK: sbp.boxing %{{.*}} from [S<1>] to [B]

// -----

// Grouped convolutions on channel-split input: 4 groups split in 2 keep the
// channel split; 3 groups cannot be cut in 2 although the 6 channels can,
// so that convolution does not split its channels (its input is made whole
// or a partial sum).
// CHECK-LABEL: func.func @main
// CHECK: oneflow.conv2d {{.*}}groups = 4 : i64, {{.*}}sbp.sig = #sbp.sig<(S<1>, S<0>) -> (S<1>)>
// CHECK: oneflow.conv2d {{.*}}groups = 3 : i64, {{.*}}sbp.sig = #sbp.sig<({{[BP]}}, B) -> ({{[BP]}})>
sbp.mesh @mesh shape = [2] device = "cpu"
func.func @main(%x: tensor<1x8x6x6xf32> {sbp.nd = #sbp.nd<[S<1>]>}, %y: tensor<1x6x6x6xf32> {sbp.nd = #sbp.nd<[S<1>]>}) -> (tensor<1x8x4x4xf32>, tensor<1x6x4x4xf32>) attributes {sbp.placement = @mesh} {
  %w4 = oneflow.variable @w4 : tensor<8x2x3x3xf32>
  %a = oneflow.conv2d %x, %w4 {dilations = array<i64: 1, 1>, groups = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x4x4xf32>
  %w3 = oneflow.variable @w3 : tensor<6x2x3x3xf32>
  %b = oneflow.conv2d %y, %w3 {dilations = array<i64: 1, 1>, groups = 3 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x6x6x6xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32>
  return %a, %b : tensor<1x8x4x4xf32>, tensor<1x6x4x4xf32>
}
