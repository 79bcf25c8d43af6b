// One graph exercising the lowerings that are not plain elementwise ops.
func.func @main(%x: tensor<2x3x4x4xf32> {onnx.name = "x"}, %idx: tensor<5xi64> {onnx.name = "idx"})
    -> (tensor<2x3x4x4xf32> {onnx.name = "softmax"}, tensor<5x4x4xf32> {onnx.name = "gather"},
        tensor<2x3x4xi64> {onnx.name = "argmax"}, tensor<2x3x4x4xf32> {onnx.name = "cumsum"},
        tensor<2x3x4x2xf32> {onnx.name = "topk"}, tensor<2x3x2x2xf32> {onnx.name = "pool"},
        tensor<2x3x4x4xf32> {onnx.name = "layer_norm"}, tensor<4xf32> {onnx.name = "variable"}) {
  %w = oneflow.variable @w {initial_value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : tensor<4xf32>
  %sm = oneflow.softmax %x {axis = 3 : i64} : tensor<2x3x4x4xf32>
  %flat = oneflow.reshape %x : tensor<2x3x4x4xf32> to tensor<6x4x4xf32>
  %g = oneflow.gather %flat, %idx : (tensor<6x4x4xf32>, tensor<5xi64>) -> tensor<5x4x4xf32>
  %am = oneflow.argmax %x {axis = 2 : i64} : tensor<2x3x4x4xf32> -> tensor<2x3x4xi64>
  %cs = oneflow.cumsum %x {axis = 2 : i64} : tensor<2x3x4x4xf32>
  %v, %i = oneflow.topk %x {axis = 3 : i64, k = 2 : i64, sorted} : tensor<2x3x4x4xf32> -> tensor<2x3x4x2xf32>, tensor<2x3x4x2xi64>
  %p = oneflow.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<2x3x4x4xf32> -> tensor<2x3x2x2xf32>
  %ln = oneflow.layer_norm %x, %w {axis = 3 : i64} : (tensor<2x3x4x4xf32>, tensor<4xf32>) -> tensor<2x3x4x4xf32>
  return %sm, %g, %am, %cs, %v, %p, %ln, %w : tensor<2x3x4x4xf32>, tensor<5x4x4xf32>, tensor<2x3x4xi64>, tensor<2x3x4x4xf32>, tensor<2x3x4x2xf32>, tensor<2x3x2x2xf32>, tensor<2x3x4x4xf32>, tensor<4xf32>
}
