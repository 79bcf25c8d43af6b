// Both ranks receive before they send: each waits for the other's send,
// a cycle that oneflow-run rejects when it loads the plan.
module attributes {sbp.num_ranks = 2 : i64} {
  func.func @main_rank0(%x: tensor<4xf32> {onnx.name = "x"})
      -> (tensor<4xf32> {onnx.name = "y"}) {
    %y = sbp.recv from 1 {tag = 1} : tensor<4xf32>
    sbp.send %x to 1 {tag = 0} : tensor<4xf32>
    return %y : tensor<4xf32>
  }
  func.func @main_rank1() {
    %two = oneflow.constant dense<2.0> : tensor<4xf32>
    %x = sbp.recv from 0 {tag = 0} : tensor<4xf32>
    sbp.send %two to 0 {tag = 1} : tensor<4xf32>
    return
  }
}
