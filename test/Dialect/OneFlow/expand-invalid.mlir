// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @size_mismatch(%x: tensor<3xf32>) {
  // expected-error @+1 {{'oneflow.expand' op cannot broadcast 'tensor<3xf32>' to 'tensor<4xf32>'}}
  %0 = oneflow.expand %x : tensor<3xf32> to tensor<4xf32>
  return
}

// -----

// Dimensions align at the end: 4x1 lines up with 3x2, not with 4x3.
func.func @misaligned(%x: tensor<4x1xf32>) {
  // expected-error @+1 {{'oneflow.expand' op cannot broadcast 'tensor<4x1xf32>' to 'tensor<4x3x2xf32>'}}
  %0 = oneflow.expand %x : tensor<4x1xf32> to tensor<4x3x2xf32>
  return
}

// -----

// Expand never shrinks a dimension.
func.func @shrink(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.expand' op cannot broadcast 'tensor<4xf32>' to 'tensor<1xf32>'}}
  %0 = oneflow.expand %x : tensor<4xf32> to tensor<1xf32>
  return
}

// -----

func.func @zero_to_nonzero(%x: tensor<0xf32>) {
  // expected-error @+1 {{'oneflow.expand' op cannot broadcast 'tensor<0xf32>' to 'tensor<3xf32>'}}
  %0 = oneflow.expand %x : tensor<0xf32> to tensor<3xf32>
  return
}

// -----

func.func @rank_decrease(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{'oneflow.expand' op cannot expand rank 2 to rank 1}}
  %0 = oneflow.expand %x : tensor<1x4xf32> to tensor<4xf32>
  return
}

// -----

func.func @element_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.expand' op failed to verify that all of {x, y} have same element type}}
  %0 = oneflow.expand %x : tensor<4xf32> to tensor<2x4xf16>
  return
}
