// RUN: oneflow-opt %s | oneflow-opt | FileCheck %s

// The products with aux epilogues round-trip; the aux is the ReLU bit mask
// in i32 words (rows of n rounded up to 128 bits) or the GELU pre-activation
// (rows of n rounded up to 8 floats).
// CHECK-LABEL: func.func @relu
// CHECK: %{{.*}}, %[[MASK:.*]] = oneflow.matmul_act_aux %arg0, %arg1, %arg2 {activation = #oneflow.epilogue_activation<relu>, transpose_b} : (tensor<8x64xf32>, tensor<300x64xf32>, tensor<300xf32>) -> (tensor<8x300xf32>, tensor<8x12xi32>)
// CHECK: oneflow.matmul_act_grad %arg3, %arg4, %[[MASK]] {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x16xf32>, tensor<16x300xf32>, tensor<8x12xi32>) -> (tensor<8x300xf32>, tensor<300xf32>)
func.func @relu(%x: tensor<8x64xf32>, %w: tensor<300x64xf32>, %b: tensor<300xf32>, %dy: tensor<8x16xf32>, %w2: tensor<16x300xf32>) -> (tensor<8x300xf32>, tensor<8x300xf32>, tensor<300xf32>) {
  %h, %mask = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<relu>, transpose_b} : (tensor<8x64xf32>, tensor<300x64xf32>, tensor<300xf32>) -> (tensor<8x300xf32>, tensor<8x12xi32>)
  %dx, %db = oneflow.matmul_act_grad %dy, %w2, %mask {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x16xf32>, tensor<16x300xf32>, tensor<8x12xi32>) -> (tensor<8x300xf32>, tensor<300xf32>)
  return %h, %dx, %db : tensor<8x300xf32>, tensor<8x300xf32>, tensor<300xf32>
}

// CHECK-LABEL: func.func @gelu
// CHECK: oneflow.matmul_act_aux {{.*}} -> (tensor<8x300xf32>, tensor<8x304xf32>)
// CHECK: oneflow.matmul_act_grad {{.*}} -> tensor<8x300xf32>
func.func @gelu(%x: tensor<8x64xf32>, %w: tensor<64x300xf32>, %b: tensor<300xf32>, %dy: tensor<16x8xf32>, %w2: tensor<300x16xf32>) -> (tensor<8x300xf32>, tensor<8x300xf32>) {
  %h, %pre = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<gelu_tanh>} : (tensor<8x64xf32>, tensor<64x300xf32>, tensor<300xf32>) -> (tensor<8x300xf32>, tensor<8x304xf32>)
  %dx = oneflow.matmul_act_grad %dy, %w2, %pre {activation = #oneflow.epilogue_activation<gelu_tanh>, transpose_a, transpose_b} : (tensor<16x8xf32>, tensor<300x16xf32>, tensor<8x304xf32>) -> tensor<8x300xf32>
  return %h, %dx : tensor<8x300xf32>, tensor<8x300xf32>
}
