// Peers that cannot be: a rank outside the plan, the rank itself.
module attributes {sbp.num_ranks = 2 : i64} {
  func.func @main_rank0(%x: tensor<4xf32> {onnx.name = "x"})
      -> (tensor<4xf32> {onnx.name = "y"}) {
    sbp.send %x to @PEER@ {tag = 0} : tensor<4xf32>
    return %x : tensor<4xf32>
  }
}
