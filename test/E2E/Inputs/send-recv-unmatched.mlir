// Rank 0 sends to rank 1, which never receives (it receives tag 1 instead):
// the plan compiles, and oneflow-run rejects it when it loads the plan.
module attributes {sbp.num_ranks = 2 : i64} {
  func.func @main_rank0(%x: tensor<4xf32> {onnx.name = "x"})
      -> (tensor<4xf32> {onnx.name = "y"}) {
    %y = oneflow.relu %x : tensor<4xf32>
    sbp.send %y to 1 {tag = 0} : tensor<4xf32>
    return %y : tensor<4xf32>
  }
  func.func @main_rank1() {
    %z = sbp.recv from 0 {tag = 1} : tensor<4xf32>
    return
  }
}
