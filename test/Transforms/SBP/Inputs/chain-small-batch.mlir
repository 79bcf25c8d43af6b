// Two 4096x4096 projections of a batch of 8 rows (sbp-auto tests).
func.func @main(%x: tensor<8x4096xf32>) -> tensor<8x4096xf32> {
  %w1 = oneflow.variable @w1 {initializer = #oneflow.init<normal, mean = 0.0, std = 0.02, seed = 1>} : tensor<4096x4096xf32>
  %w2 = oneflow.variable @w2 {initializer = #oneflow.init<normal, mean = 0.0, std = 0.02, seed = 2>} : tensor<4096x4096xf32>
  %h = oneflow.matmul %x, %w1 : (tensor<8x4096xf32>, tensor<4096x4096xf32>) -> tensor<8x4096xf32>
  %a = oneflow.relu %h : tensor<8x4096xf32>
  %y = oneflow.matmul %a, %w2 : (tensor<8x4096xf32>, tensor<4096x4096xf32>) -> tensor<8x4096xf32>
  return %y : tensor<8x4096xf32>
}
