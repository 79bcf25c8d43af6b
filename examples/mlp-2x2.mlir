// A two-layer MLP on a 2x2 CPU mesh: data parallel on mesh axis 0, tensor
// (Megatron) parallel on axis 1. fc1 is column-parallel (weight split on
// its output features), fc2 row-parallel (weight split on its input
// features), so fc2 leaves partial sums that one boxing all-reduces.

sbp.mesh @mesh shape = [2, 2] device = "cpu"

func.func @main(%x: tensor<64x784xf32> {sbp.nd = #sbp.nd<[S<0>, B]>})
    -> (tensor<64x10xf32> {sbp.nd = #sbp.nd<[S<0>, B]>})
    attributes {sbp.placement = @mesh} {
  %w1 = oneflow.variable @fc1.weight {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> ([B, S<1>])>} : tensor<784x512xf32>
  %b1 = oneflow.variable @fc1.bias {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> ([B, S<0>])>} : tensor<512xf32>
  %w2 = oneflow.variable @fc2.weight {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> ([B, S<0>])>} : tensor<512x10xf32>
  %b2 = oneflow.variable @fc2.bias {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> ([B, B])>} : tensor<10xf32>

  %h = oneflow.matmul %x, %w1 {sbp.placement = @mesh, sbp.sig = #sbp.sig<([S<0>, B], [B, S<1>]) -> ([S<0>, S<1>])>} : (tensor<64x784xf32>, tensor<784x512xf32>) -> tensor<64x512xf32>
  %hb = oneflow.add %h, %b1 {sbp.placement = @mesh, sbp.sig = #sbp.sig<([S<0>, S<1>], [B, S<0>]) -> ([S<0>, S<1>])>} : (tensor<64x512xf32>, tensor<512xf32>) -> tensor<64x512xf32>
  %a = oneflow.relu %hb {sbp.placement = @mesh, sbp.sig = #sbp.sig<([S<0>, S<1>]) -> ([S<0>, S<1>])>} : tensor<64x512xf32>
  %y = oneflow.matmul %a, %w2 {sbp.placement = @mesh, sbp.sig = #sbp.sig<([S<0>, S<1>], [B, S<0>]) -> ([S<0>, P])>} : (tensor<64x512xf32>, tensor<512x10xf32>) -> tensor<64x10xf32>
  %yr = sbp.boxing %y from [S<0>, P] to [S<0>, B] on @mesh : tensor<64x10xf32>
  %out = oneflow.add %yr, %b2 {sbp.placement = @mesh, sbp.sig = #sbp.sig<([S<0>, B], [B, B]) -> ([S<0>, B])>} : (tensor<64x10xf32>, tensor<10xf32>) -> tensor<64x10xf32>
  return %out : tensor<64x10xf32>
}
