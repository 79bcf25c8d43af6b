// A one-kernel graph for the option and cluster-file error tests.
func.func @main(%x: tensor<4x8xf32> {onnx.name = "x"}) -> (tensor<4x8xf32> {onnx.name = "y"}) {
  %y = oneflow.relu %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
