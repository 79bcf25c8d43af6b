// RUN: oneflow-opt %s -split-input-file --sbp-localize | FileCheck %s

// Megatron MLP on a 2x2 mesh: the input arrives whole and is sliced, the
// weights keep their column/row slices, fc2's partial sums are all-reduced
// along mesh axis 1 and the data-parallel result is all-gathered along axis 0.

sbp.mesh @mesh shape = [2, 2] device = "cpu"
func.func @main(%x: tensor<4x6xf32> {sbp.nd = #sbp.nd<[S<0>, B]>}) -> tensor<4x2xf32>
    attributes {sbp.placement = @mesh} {
  %w1 = oneflow.variable @w1 {initial_value = dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]> : tensor<6x4xf32>, sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> ([B, S<1>])>} : tensor<6x4xf32>
  %w2 = oneflow.variable @w2 {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> ([B, S<0>])>} : tensor<4x2xf32>
  %h = oneflow.matmul %x, %w1 {sbp.placement = @mesh, sbp.sig = #sbp.sig<([S<0>, B], [B, S<1>]) -> ([S<0>, S<1>])>} : (tensor<4x6xf32>, tensor<6x4xf32>) -> tensor<4x4xf32>
  %y = oneflow.matmul %h, %w2 {sbp.placement = @mesh, sbp.sig = #sbp.sig<([S<0>, S<1>], [B, S<0>]) -> ([S<0>, P])>} : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %r = sbp.boxing %y from [S<0>, P] to [B, B] on @mesh : tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// CHECK: module attributes {sbp.num_ranks = 4 : i64}
// CHECK-NOT: func.func @main(
// CHECK-LABEL: func.func @main_rank0(%{{.*}}: tensor<4x6xf32>) -> tensor<4x2xf32>
// CHECK: oneflow.slice %{{.*}} {limits = array<i64: 2, 6>, starts = array<i64: 0, 0>
// CHECK-SAME: -> tensor<2x6xf32>
// CHECK: oneflow.variable @w1
// CHECK-SAME{LITERAL}: [[0.000000e+00, 1.000000e+00], [4.000000e+00, 5.000000e+00]
// CHECK-SAME: oneflow.logical_name = "w1", oneflow.logical_offsets = array<i64: 0, 0>, oneflow.logical_shape = array<i64: 6, 4>} : tensor<6x2xf32>
// CHECK: oneflow.variable @w2 {oneflow.logical_name = "w2", oneflow.logical_offsets = array<i64: 0, 0>, oneflow.logical_shape = array<i64: 4, 2>} : tensor<2x2xf32>
// CHECK: oneflow.matmul {{.*}} -> tensor<2x2xf32>
// CHECK: %[[Y:.*]] = oneflow.matmul {{.*}} -> tensor<2x2xf32>
// CHECK: %[[R:.*]] = sbp.collective "all_reduce" %[[Y]] group = [0, 1] {tag = 0 : i64} : tensor<2x2xf32> -> tensor<2x2xf32>
// CHECK: %[[G:.*]] = sbp.collective "all_gather" %[[R]] group = [0, 2] {tag = 4 : i64} : tensor<2x2xf32> -> tensor<4x2xf32>
// CHECK: return %[[G]]

// CHECK-LABEL: func.func @main_rank1(
// CHECK: starts = array<i64: 0, 0>
// CHECK: oneflow.variable @w1
// CHECK-SAME{LITERAL}: [[2.000000e+00, 3.000000e+00], [6.000000e+00, 7.000000e+00]
// CHECK-SAME: oneflow.logical_offsets = array<i64: 0, 2>
// CHECK: sbp.collective "all_reduce" %{{.*}} group = [0, 1] {tag = 0 : i64}
// CHECK: sbp.collective "all_gather" %{{.*}} group = [1, 3] {tag = 5 : i64}

// CHECK-LABEL: func.func @main_rank3(
// CHECK: limits = array<i64: 4, 6>, starts = array<i64: 2, 0>
// CHECK: sbp.collective "all_reduce" %{{.*}} group = [2, 3] {tag = 2 : i64}
// CHECK: sbp.collective "all_gather" %{{.*}} group = [1, 3] {tag = 5 : i64}

// -----

// Split-to-split is an all-to-all; broadcast-to-partial keeps the value on
// the first rank and zeros elsewhere; partial-to-split is a reduce-scatter.

sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%x: tensor<4x6xf32> {sbp.nd = #sbp.nd<[S<0>]>}) -> (tensor<4x6xf32>, tensor<4x6xf32>)
    attributes {sbp.placement = @m} {
  %t = sbp.boxing %x from [S<0>] to [S<1>] on @m : tensor<4x6xf32>
  %e = oneflow.exp %t {sbp.placement = @m, sbp.sig = #sbp.sig<([S<1>]) -> ([S<1>])>} : tensor<4x6xf32>
  %b = sbp.boxing %e from [S<1>] to [B] on @m : tensor<4x6xf32>
  %p = sbp.boxing %b from [B] to [P] on @m : tensor<4x6xf32>
  %s = sbp.boxing %p from [P] to [S<0>] on @m : tensor<4x6xf32>
  %w = sbp.boxing %s from [S<0>] to [B] on @m : tensor<4x6xf32>
  return %b, %w : tensor<4x6xf32>, tensor<4x6xf32>
}

// CHECK-LABEL: func.func @main_rank0(
// CHECK: %[[X:.*]] = oneflow.slice {{.*}} -> tensor<2x6xf32>
// CHECK: %[[T:.*]] = sbp.collective "all_to_all" %[[X]] group = [0, 1] {axis = 1 : i64, tag = 0 : i64} : tensor<2x6xf32> -> tensor<4x3xf32>
// CHECK: %[[E:.*]] = oneflow.exp %[[T]] : tensor<4x3xf32>
// CHECK: %[[B:.*]] = sbp.collective "all_gather" %[[E]] group = [0, 1] {axis = 1 : i64, tag = 2 : i64} : tensor<4x3xf32> -> tensor<4x6xf32>
// CHECK: %[[S:.*]] = sbp.collective "reduce_scatter" %[[B]] group = [0, 1] {tag = 4 : i64} : tensor<4x6xf32> -> tensor<2x6xf32>
// CHECK: %[[W:.*]] = sbp.collective "all_gather" %[[S]]
// CHECK: return %[[B]], %[[W]]
// CHECK-LABEL: func.func @main_rank1(
// CHECK: %[[Z:.*]] = oneflow.constant dense<0.000000e+00> : tensor<4x6xf32>
// CHECK: sbp.collective "reduce_scatter" %[[Z]]

// -----

// A mean over a split axis is scaled to its share of the elements.

sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%x: tensor<4x6xf32> {sbp.nd = #sbp.nd<[S<1>]>}) -> tensor<4xf32>
    attributes {sbp.placement = @m} {
  %m = oneflow.reduce_mean %x {axes = array<i64: 1>, sbp.placement = @m, sbp.sig = #sbp.sig<([S<1>]) -> ([P])>} : tensor<4x6xf32> -> tensor<4xf32>
  %b = sbp.boxing %m from [P] to [B] on @m : tensor<4xf32>
  return %b : tensor<4xf32>
}

// CHECK-LABEL: func.func @main_rank0(
// CHECK: %[[M:.*]] = oneflow.reduce_mean %{{.*}} : tensor<4x3xf32> -> tensor<4xf32>
// CHECK: %[[H:.*]] = oneflow.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[S:.*]] = oneflow.mul %[[M]], %[[H]]
// CHECK: sbp.collective "all_reduce" %[[S]]

// -----

// An embedding split by vocabulary: each rank looks up the rows it holds.

sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%ids: tensor<3xi64>) -> tensor<3x4xf32>
    attributes {sbp.placement = @m} {
  %e = oneflow.variable @emb {sbp.placement = @m, sbp.sig = #sbp.sig<() -> ([S<0>])>} : tensor<10x4xf32>
  %g = oneflow.gather %e, %ids {sbp.placement = @m, sbp.sig = #sbp.sig<([S<0>], [B]) -> ([P])>} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  %b = sbp.boxing %g from [P] to [B] on @m : tensor<3x4xf32>
  return %b : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @main_rank1(
// CHECK: oneflow.variable @emb {{{.*}}oneflow.logical_offsets = array<i64: 5, 0>, oneflow.logical_shape = array<i64: 10, 4>} : tensor<5x4xf32>
// CHECK: oneflow.constant dense<5> : tensor<i64>
// CHECK: %[[LOCAL:.*]] = oneflow.sub
// CHECK: %[[VALID:.*]] = oneflow.and
// CHECK: %[[SAFE:.*]] = oneflow.where %[[VALID]], %[[LOCAL]]
// CHECK: %[[ROWS:.*]] = oneflow.gather %{{.*}}, %[[SAFE]] : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
// CHECK: %[[MASK:.*]] = oneflow.reshape %[[VALID]] : tensor<3xi1> to tensor<3x1xi1>
// CHECK: %[[OUT:.*]] = oneflow.where %[[MASK]], %[[ROWS]]
// CHECK: sbp.collective "all_reduce" %[[OUT]]

// -----

// Grouped and depthwise convolutions split by whole groups: each rank runs
// its share of the groups on its channels (and weight, bias rows).

sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%x: tensor<1x8x6x6xf32> {sbp.nd = #sbp.nd<[S<1>]>}) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
    attributes {sbp.placement = @m} {
  %dw = oneflow.variable @dw {sbp.placement = @m, sbp.sig = #sbp.sig<() -> ([S<0>])>} : tensor<8x1x3x3xf32>
  %db = oneflow.variable @db {sbp.placement = @m, sbp.sig = #sbp.sig<() -> ([S<0>])>} : tensor<8xf32>
  %d = oneflow.conv2d %x, %dw, %db {dilations = array<i64: 1, 1>, groups = 8 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, sbp.placement = @m, sbp.sig = #sbp.sig<([S<1>], [S<0>], [S<0>]) -> ([S<1>])>} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %gw = oneflow.variable @gw {sbp.placement = @m, sbp.sig = #sbp.sig<() -> ([S<0>])>} : tensor<8x2x3x3xf32>
  %g = oneflow.conv2d %x, %gw {dilations = array<i64: 1, 1>, groups = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, sbp.placement = @m, sbp.sig = #sbp.sig<([S<1>], [S<0>]) -> ([S<1>])>} : (tensor<1x8x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x4x4xf32>
  %bd = sbp.boxing %d from [S<1>] to [B] on @m : tensor<1x8x4x4xf32>
  %bg = sbp.boxing %g from [S<1>] to [B] on @m : tensor<1x8x4x4xf32>
  return %bd, %bg : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// CHECK-LABEL: func.func @main_rank1(%arg0: tensor<1x8x6x6xf32>)
// CHECK: oneflow.conv2d {{.*}}groups = 4 : i64{{.*}} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: oneflow.conv2d {{.*}}groups = 2 : i64{{.*}} : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>

// -----

// Their gradients too: the data gradient (a grouped transposed convolution)
// and the weight gradient.

sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%dy: tensor<2x8x4x4xf32> {sbp.nd = #sbp.nd<[S<1>]>}, %x: tensor<2x8x6x6xf32> {sbp.nd = #sbp.nd<[S<1>]>}) -> (tensor<2x8x6x6xf32>, tensor<8x2x3x3xf32>)
    attributes {sbp.placement = @m} {
  %w = oneflow.variable @w {sbp.placement = @m, sbp.sig = #sbp.sig<() -> ([S<0>])>} : tensor<8x2x3x3xf32>
  %dx = oneflow.conv_transpose2d %dy, %w {dilations = array<i64: 1, 1>, groups = 4 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, sbp.placement = @m, sbp.sig = #sbp.sig<([S<1>], [S<0>]) -> ([S<1>])>} : (tensor<2x8x4x4xf32>, tensor<8x2x3x3xf32>) -> tensor<2x8x6x6xf32>
  %dw = oneflow.conv2d_grad_filter %x, %dy {dilations = array<i64: 1, 1>, groups = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, sbp.placement = @m, sbp.sig = #sbp.sig<([S<1>], [S<1>]) -> ([S<0>])>} : (tensor<2x8x6x6xf32>, tensor<2x8x4x4xf32>) -> tensor<8x2x3x3xf32>
  %bx = sbp.boxing %dx from [S<1>] to [B] on @m : tensor<2x8x6x6xf32>
  %bw = sbp.boxing %dw from [S<0>] to [B] on @m : tensor<8x2x3x3xf32>
  return %bx, %bw : tensor<2x8x6x6xf32>, tensor<8x2x3x3xf32>
}

// CHECK-LABEL: func.func @main_rank0(%arg0: tensor<2x8x4x4xf32>
// CHECK: oneflow.conv_transpose2d {{.*}}groups = 2 : i64{{.*}} -> tensor<2x4x6x6xf32>
// CHECK: oneflow.conv2d_grad_filter {{.*}}groups = 2 : i64{{.*}} -> tensor<4x2x3x3xf32>

// -----

// A slice gradient over a split dimension it keeps whole ends at the local
// size.

sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%dy: tensor<4x2xf32> {sbp.nd = #sbp.nd<[S<0>]>}) -> tensor<4x6xf32>
    attributes {sbp.placement = @m} {
  %dx = oneflow.slice_grad %dy {starts = array<i64: 0, 1>, limits = array<i64: 4, 3>, steps = array<i64: 1, 1>, sbp.placement = @m, sbp.sig = #sbp.sig<([S<0>]) -> ([S<0>])>} : tensor<4x2xf32> -> tensor<4x6xf32>
  %b = sbp.boxing %dx from [S<0>] to [B] on @m : tensor<4x6xf32>
  return %b : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @main_rank1(%arg0: tensor<4x2xf32>)
// CHECK: oneflow.slice_grad {{.*}}limits = array<i64: 2, 3>{{.*}} : tensor<2x2xf32> -> tensor<2x6xf32>

// -----

// Mean losses over a split batch are partial sums once scaled by the rank's
// share of the positions, as reduce_mean is.

sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%logits: tensor<4x3xf32> {sbp.nd = #sbp.nd<[S<0>]>}, %labels: tensor<4xi64> {sbp.nd = #sbp.nd<[S<0>]>}, %y: tensor<4x3xf32> {sbp.nd = #sbp.nd<[S<0>]>}) -> (tensor<f32>, tensor<f32>)
    attributes {sbp.placement = @m} {
  %ce = oneflow.softmax_cross_entropy %logits, %labels {sbp.placement = @m, sbp.sig = #sbp.sig<([S<0>], [S<0>]) -> ([P])>} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  %mse = oneflow.mse_loss %logits, %y {sbp.placement = @m, sbp.sig = #sbp.sig<([S<0>], [S<0>]) -> ([P])>} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f32>
  %a = sbp.boxing %ce from [P] to [B] on @m : tensor<f32>
  %b = sbp.boxing %mse from [P] to [B] on @m : tensor<f32>
  return %a, %b : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @main_rank0(%arg0: tensor<4x3xf32>
// CHECK: %[[CE:.*]] = oneflow.softmax_cross_entropy {{.*}} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
// CHECK: %[[HALF:.*]] = oneflow.constant dense<5.000000e-01> : tensor<f32>
// CHECK: oneflow.mul %[[CE]], %[[HALF]]
// CHECK: %[[MSE:.*]] = oneflow.mse_loss
// CHECK: %[[HALF2:.*]] = oneflow.constant dense<5.000000e-01> : tensor<f32>
// CHECK: oneflow.mul %[[MSE]], %[[HALF2]]

// -----

// A variable drawn from an initializer keeps it on every rank, with no
// data, and records the piece it holds; a partial-sum variable's
// non-owning pieces are zeros. A splat (zero optimizer state) slices into
// a splat of the piece's shape.

sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x6xf32>
    attributes {sbp.placement = @m} {
  %w = oneflow.variable @w {initializer = #oneflow.init<normal, std = 0.02, seed = 1>, sbp.placement = @m, sbp.sig = #sbp.sig<() -> ([S<1>])>} : tensor<4x6xf32>
  %s = oneflow.variable @w.exp_avg {initial_value = dense<0.0> : tensor<4x6xf32>, sbp.placement = @m, sbp.sig = #sbp.sig<() -> ([S<1>])>} : tensor<4x6xf32>
  %b = oneflow.variable @b {initializer = #oneflow.init<ones>, sbp.placement = @m, sbp.sig = #sbp.sig<() -> ([P])>} : tensor<6xf32>
  %y = oneflow.matmul %x, %w {sbp.placement = @m, sbp.sig = #sbp.sig<([B], [S<1>]) -> ([S<1>])>} : (tensor<2x4xf32>, tensor<4x6xf32>) -> tensor<2x6xf32>
  %g = sbp.boxing %y from [S<1>] to [B] on @m : tensor<2x6xf32>
  %z = sbp.boxing %b from [P] to [B] on @m : tensor<6xf32>
  %r = oneflow.add %z, %g {sbp.placement = @m, sbp.sig = #sbp.sig<([B], [B]) -> ([B])>} : (tensor<6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @main_rank0(
// CHECK: oneflow.variable @w {initializer = #oneflow.init<normal, mean = 0.000000e+00, std = 2.000000e-02, seed = 1>, oneflow.logical_name = "w", oneflow.logical_offsets = array<i64: 0, 0>, oneflow.logical_shape = array<i64: 4, 6>} : tensor<4x3xf32>
// CHECK: oneflow.variable @w.exp_avg {initial_value = dense<0.000000e+00> : tensor<4x3xf32>, oneflow.logical_name = "w.exp_avg", oneflow.logical_offsets = array<i64: 0, 0>
// CHECK: oneflow.variable @b {initializer = #oneflow.init<ones>} : tensor<6xf32>
// CHECK-LABEL: func.func @main_rank1(
// CHECK: oneflow.variable @w {initializer = #oneflow.init<normal, mean = 0.000000e+00, std = 2.000000e-02, seed = 1>, oneflow.logical_name = "w", oneflow.logical_offsets = array<i64: 0, 3>, oneflow.logical_shape = array<i64: 4, 6>} : tensor<4x3xf32>
// CHECK-NOT: oneflow.variable @b
// CHECK: oneflow.constant dense<0.000000e+00> : tensor<6xf32>
