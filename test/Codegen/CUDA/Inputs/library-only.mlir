// A graph whose one kernel is a library call: no loops for the GPU.
func.func @main(%x: tensor<4x16xf32> {onnx.name = "x"}, %w: tensor<16x8xf32> {onnx.name = "w"}) -> (tensor<4x8xf32> {onnx.name = "y"}) {
  %y = oneflow.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
