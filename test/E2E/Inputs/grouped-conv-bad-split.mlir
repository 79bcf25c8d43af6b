// A graph placed by hand whose pinned signature cuts a convolution's groups
// in two (3 groups over 2 ranks): localization refuses it.
sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%x: tensor<1x6x6x6xf32>) -> tensor<1x6x4x4xf32> attributes {sbp.placement = @m} {
  %w = oneflow.variable @w {sbp.placement = @m, sbp.sig = #sbp.sig<() -> ([S<0>])>} : tensor<6x2x3x3xf32> loc("conv.weight")
  %y = oneflow.conv2d %x, %w {dilations = array<i64: 1, 1>, groups = 3 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, sbp.placement = @m, sbp.sig = #sbp.sig<([S<1>], [S<0>]) -> ([S<1>])>} : (tensor<1x6x6x6xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32> loc(fused["Conv_3"("model.onnx":0:0)])
  %b = sbp.boxing %y from [S<1>] to [B] on @m : tensor<1x6x4x4xf32>
  return %b : tensor<1x6x4x4xf32>
}
