// Each rank receives before it sends: every rank waits for the other.
module attributes {sbp.num_ranks = 2 : i64} {
  func.func @main_rank0(%x: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xf32> {onnx.name = "y"}) {
    %r = sbp.recv from 1 {tag = 1} : tensor<4xf32>
    sbp.send %x to 1 {tag = 0} : tensor<4xf32>
    return %r : tensor<4xf32>
  }
  func.func @main_rank1(%x: tensor<4xf32> {onnx.name = "x"}) -> tensor<4xf32> {
    %r = sbp.recv from 0 {tag = 0} : tensor<4xf32>
    sbp.send %x to 0 {tag = 1} : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
