// Integer powers (math.ipowi, which NVVM cannot lower) in two kernels: each
// launch's module gets a copy of the helper function, the merged GPU module
// one.
func.func @main(%x: tensor<8xi32> {onnx.name = "x"}, %e: tensor<8xi32> {onnx.name = "e"}, %y: tensor<4xi32> {onnx.name = "y"}) -> (tensor<8xi32> {onnx.name = "p"}, tensor<4xi32> {onnx.name = "q"}) {
  %p = oneflow.pow %x, %e : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %q = oneflow.pow %y, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %p, %q : tensor<8xi32>, tensor<4xi32>
}
