// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @mask_too_short(%x: tensor<8x64xf32>, %w: tensor<64x130xf32>, %b: tensor<130xf32>) {
  // expected-error @+1 {{keeps its relu aux as 'tensor<8x8xi32>', not 'tensor<8x4xi32>'}}
  %h, %mask = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x64xf32>, tensor<64x130xf32>, tensor<130xf32>) -> (tensor<8x130xf32>, tensor<8x4xi32>)
  return
}

// -----

func.func @gelu_unpadded(%x: tensor<8x64xf32>, %w: tensor<64x12xf32>, %b: tensor<12xf32>) {
  // expected-error @+1 {{keeps its gelu_tanh aux as 'tensor<8x16xf32>', not 'tensor<8x12xf32>'}}
  %h, %pre = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<gelu_tanh>} : (tensor<8x64xf32>, tensor<64x12xf32>, tensor<12xf32>) -> (tensor<8x12xf32>, tensor<8x12xf32>)
  return
}

// -----

func.func @bias_per_row(%x: tensor<8x64xf32>, %w: tensor<64x16xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{adds a bias of 8 values to rows of 16}}
  %h, %pre = oneflow.matmul_act_aux %x, %w, %b {activation = #oneflow.epilogue_activation<gelu_tanh>} : (tensor<8x64xf32>, tensor<64x16xf32>, tensor<8xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  return
}

// -----

func.func @inner_sizes(%dy: tensor<8x16xf32>, %w: tensor<15x128xf32>, %mask: tensor<8x4xi32>) {
  // expected-error @+1 {{multiplies op(a) with 16 columns by op(b) with 15 rows}}
  %dx = oneflow.matmul_act_grad %dy, %w, %mask {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x16xf32>, tensor<15x128xf32>, tensor<8x4xi32>) -> tensor<8x128xf32>
  return
}

// -----

func.func @transposed_result(%dy: tensor<8x16xf32>, %w: tensor<16x128xf32>, %mask: tensor<8x4xi32>) {
  // expected-error @+1 {{computes a 8x128 product, not 'tensor<128x8xf32>'}}
  %dx = oneflow.matmul_act_grad %dy, %w, %mask {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x16xf32>, tensor<16x128xf32>, tensor<8x4xi32>) -> tensor<128x8xf32>
  return
}

// -----

func.func @bias_gradient_length(%dy: tensor<8x16xf32>, %w: tensor<16x128xf32>, %mask: tensor<8x4xi32>) {
  // expected-error @+1 {{sums rows of 128 into a bias gradient of 'tensor<8xf32>'}}
  %dx, %db = oneflow.matmul_act_grad %dy, %w, %mask {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x16xf32>, tensor<16x128xf32>, tensor<8x4xi32>) -> (tensor<8x128xf32>, tensor<8xf32>)
  return
}
