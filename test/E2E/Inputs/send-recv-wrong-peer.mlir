// Three ranks: rank 0 sends tag 0 to rank 1, but rank 2 holds the receive
// of tag 0 (from rank 0) and rank 1 receives nothing. oneflow-run rejects
// the pair when it loads the plan.
module attributes {sbp.num_ranks = 3 : i64} {
  func.func @main_rank0(%x: tensor<4xf32> {onnx.name = "x"})
      -> (tensor<4xf32> {onnx.name = "y"}) {
    %y = oneflow.relu %x : tensor<4xf32>
    sbp.send %y to 1 {tag = 0} : tensor<4xf32>
    return %y : tensor<4xf32>
  }
  func.func @main_rank1() {
    return
  }
  func.func @main_rank2() {
    %z = sbp.recv from 0 {tag = 0} : tensor<4xf32>
    return
  }
}
