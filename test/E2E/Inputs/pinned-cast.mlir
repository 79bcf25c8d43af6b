// SBPs pinned by hand: the input is cast to S(1) by a user-written boxing,
// ops without signatures follow it, and the result is boxed back to B.
sbp.mesh @m shape = [3] device = "cpu"
func.func @main(%x: tensor<6x12xf32> {onnx.name = "x"}) -> (tensor<6x12xf32> {onnx.name = "y"})
    attributes {sbp.placement = @m} {
  %s = sbp.boxing %x from [B] to [S<1>] on @m : tensor<6x12xf32>
  %e = oneflow.exp %s : tensor<6x12xf32>
  %n = oneflow.neg %e : tensor<6x12xf32>
  return %n : tensor<6x12xf32>
}
