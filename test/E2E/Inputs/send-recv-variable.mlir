// Rank 0 sends its variable @w (a persistent regst) to rank 1 and then
// updates it (w += x, in place): the update waits for the SEND, so every step sends
// the old value. Rank 1 returns 2 * w; after 3 steps with x = 1 that is
// 2 * (w0 + 2).
module attributes {sbp.num_ranks = 2 : i64} {
  func.func @main_rank0(%x: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xf32> {onnx.name = "y"}) {
    %w = oneflow.variable @w {initial_value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : tensor<4xf32>
    sbp.send %w to 1 {tag = 0} : tensor<4xf32>
    %w1 = oneflow.add %w, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    oneflow.assign @w, %w1 : tensor<4xf32>
    %y = sbp.recv from 1 {tag = 1} : tensor<4xf32>
    return %y : tensor<4xf32>
  }
  func.func @main_rank1() {
    %v = sbp.recv from 0 {tag = 0} : tensor<4xf32>
    %v2 = oneflow.add %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    sbp.send %v2 to 0 {tag = 1} : tensor<4xf32>
    return
  }
}
