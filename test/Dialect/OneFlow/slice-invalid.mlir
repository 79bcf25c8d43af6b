// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @limit_past_end(%x: tensor<8xf32>) {
  // expected-error @+2 {{invalid slice [0:9:1] of dimension 0 of size 8}}
  // expected-error @+1 {{'oneflow.slice' op failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: 0>, limits = array<i64: 9>, steps = array<i64: 1>} : tensor<8xf32> -> tensor<9xf32>
  return
}

// -----

// Bounds are already clamped: no negative indices from the end.
func.func @negative_start(%x: tensor<8xf32>) {
  // expected-error @+2 {{invalid slice [-2:8:1] of dimension 0 of size 8}}
  // expected-error @+1 {{'oneflow.slice' op failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: -2>, limits = array<i64: 8>, steps = array<i64: 1>} : tensor<8xf32> -> tensor<2xf32>
  return
}

// -----

func.func @start_after_limit(%x: tensor<8xf32>) {
  // expected-error @+2 {{invalid slice [5:3:1] of dimension 0 of size 8}}
  // expected-error @+1 {{'oneflow.slice' op failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: 5>, limits = array<i64: 3>, steps = array<i64: 1>} : tensor<8xf32> -> tensor<0xf32>
  return
}

// -----

func.func @zero_step(%x: tensor<8xf32>) {
  // expected-error @+2 {{invalid slice [0:8:0] of dimension 0 of size 8}}
  // expected-error @+1 {{'oneflow.slice' op failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: 0>, limits = array<i64: 8>, steps = array<i64: 0>} : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

// A negative step starts at an element: 8 is past the end.
func.func @negative_step_start(%x: tensor<8xf32>) {
  // expected-error @+2 {{invalid slice [8:-1:-1] of dimension 0 of size 8}}
  // expected-error @+1 {{'oneflow.slice' op failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: 8>, limits = array<i64: -1>, steps = array<i64: -1>} : tensor<8xf32> -> tensor<9xf32>
  return
}

// -----

func.func @negative_step_limit(%x: tensor<8xf32>) {
  // expected-error @+2 {{invalid slice [7:-2:-1] of dimension 0 of size 8}}
  // expected-error @+1 {{'oneflow.slice' op failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: 7>, limits = array<i64: -2>, steps = array<i64: -1>} : tensor<8xf32> -> tensor<9xf32>
  return
}

// -----

// Regression: a reversed slice of an empty dimension through index 0 was
// inferred to have one element.
func.func @negative_step_empty_dim(%x: tensor<0xf32>) {
  // expected-error @+2 {{invalid slice [0:-1:-1] of dimension 0 of size 0}}
  // expected-error @+1 {{'oneflow.slice' op failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: 0>, limits = array<i64: -1>, steps = array<i64: -1>} : tensor<0xf32> -> tensor<1xf32>
  return
}

// -----

func.func @second_dimension(%x: tensor<8x4xf32>) {
  // expected-error @+2 {{invalid slice [0:5:1] of dimension 1 of size 4}}
  // expected-error @+1 {{'oneflow.slice' op failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 8, 5>, steps = array<i64: 1, 1>} : tensor<8x4xf32> -> tensor<8x5xf32>
  return
}

// -----

func.func @entry_count(%x: tensor<8x4xf32>) {
  // expected-error @+2 {{starts, limits and steps need one entry per dimension (2)}}
  // expected-error @+1 {{'oneflow.slice' op failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: 0>, limits = array<i64: 8>, steps = array<i64: 1>} : tensor<8x4xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @steps_count(%x: tensor<8x4xf32>) {
  // expected-error @+2 {{starts, limits and steps need one entry per dimension (2)}}
  // expected-error @+1 {{'oneflow.slice' op failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 8, 4>, steps = array<i64: 1>} : tensor<8x4xf32> -> tensor<8x4xf32>
  return
}

// -----

// [0:8:3] is 0, 3, 6: three elements, not 2.
func.func @strided_result(%x: tensor<8xf32>) {
  // expected-error @+2 {{'oneflow.slice' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'oneflow.slice' op failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: 0>, limits = array<i64: 8>, steps = array<i64: 3>} : tensor<8xf32> -> tensor<2xf32>
  return
}
