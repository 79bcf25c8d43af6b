// Two stages by hand, in the form sbp-localize gives multi-rank plans: a
// module for 2 ranks with one program per rank. Rank 0 computes relu(x) and
// sends it; rank 1 receives it, computes y * 2 + 1 and sends it back. Then
// two sends in a row one way (exp(x), neg(x)) that rank 1 adds; then both
// ranks send before they receive (crossing transfers), and rank 1 answers
// the value it received. Outputs live on rank 0.
module attributes {sbp.num_ranks = 2 : i64} {
  func.func @main_rank0(%x: tensor<4x8xf32> {onnx.name = "x"})
      -> (tensor<4x8xf32> {onnx.name = "z"}, tensor<4x8xf32> {onnx.name = "s"},
          tensor<4x8xf32> {onnx.name = "q"}, tensor<4x8xf32> {onnx.name = "t"}) {
    %y = oneflow.relu %x : tensor<4x8xf32>
    sbp.send %y to 1 {tag = 0} : tensor<4x8xf32>
    %z = sbp.recv from 1 {tag = 1} : tensor<4x8xf32>
    // A chain of two sends one way.
    %e = oneflow.exp %x : tensor<4x8xf32>
    sbp.send %e to 1 {tag = 2} : tensor<4x8xf32>
    %n = oneflow.neg %x : tensor<4x8xf32>
    sbp.send %n to 1 {tag = 3} : tensor<4x8xf32>
    %s = sbp.recv from 1 {tag = 4} : tensor<4x8xf32>
    // Sends p while rank 1 sends q.
    %p = oneflow.mul %z, %z : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    sbp.send %p to 1 {tag = 5} : tensor<4x8xf32>
    %q = sbp.recv from 1 {tag = 6} : tensor<4x8xf32>
    %t = sbp.recv from 1 {tag = 7} : tensor<4x8xf32>
    return %z, %s, %q, %t : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  }

  func.func @main_rank1() {
    %two = oneflow.constant dense<2.0> : tensor<f32>
    %one = oneflow.constant dense<1.0> : tensor<f32>
    %y = sbp.recv from 0 {tag = 0} : tensor<4x8xf32>
    %y2 = oneflow.mul %y, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %z = oneflow.add %y2, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    sbp.send %z to 0 {tag = 1} : tensor<4x8xf32>
    %e = sbp.recv from 0 {tag = 2} : tensor<4x8xf32>
    %n = sbp.recv from 0 {tag = 3} : tensor<4x8xf32>
    %s = oneflow.add %e, %n : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    sbp.send %s to 0 {tag = 4} : tensor<4x8xf32>
    %q = oneflow.sub %z, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    sbp.send %q to 0 {tag = 6} : tensor<4x8xf32>
    %p = sbp.recv from 0 {tag = 5} : tensor<4x8xf32>
    %t = oneflow.add %p, %q : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    sbp.send %t to 0 {tag = 7} : tensor<4x8xf32>
    return
  }
}
