// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @squeeze_not_one(%x: tensor<2x1x3xf32>) {
  // expected-error @+2 {{cannot squeeze dimension 0 of size 2}}
  // expected-error @+1 {{'oneflow.squeeze' op failed to infer returned types}}
  %0 = oneflow.squeeze %x {axes = array<i64: 0>} : tensor<2x1x3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @squeeze_zero_size(%x: tensor<0x1xf32>) {
  // expected-error @+2 {{cannot squeeze dimension 0 of size 0}}
  // expected-error @+1 {{'oneflow.squeeze' op failed to infer returned types}}
  %0 = oneflow.squeeze %x {axes = array<i64: 0, 1>} : tensor<0x1xf32> -> tensor<f32>
  return
}

// -----

func.func @squeeze_axis_range(%x: tensor<2x1x3xf32>) {
  // expected-error @+2 {{squeeze axis 3 is out of range [0, 3)}}
  // expected-error @+1 {{'oneflow.squeeze' op failed to infer returned types}}
  %0 = oneflow.squeeze %x {axes = array<i64: 3>} : tensor<2x1x3xf32> -> tensor<2x1x3xf32>
  return
}

// -----

func.func @squeeze_unsorted(%x: tensor<1x2x1xf32>) {
  // expected-error @+2 {{squeeze axes must be sorted and distinct}}
  // expected-error @+1 {{'oneflow.squeeze' op failed to infer returned types}}
  %0 = oneflow.squeeze %x {axes = array<i64: 2, 0>} : tensor<1x2x1xf32> -> tensor<2xf32>
  return
}

// -----

func.func @squeeze_result(%x: tensor<2x1x3xf32>) {
  // expected-error @+2 {{'oneflow.squeeze' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{'oneflow.squeeze' op failed to infer returned types}}
  %0 = oneflow.squeeze %x {axes = array<i64: 1>} : tensor<2x1x3xf32> -> tensor<3x2xf32>
  return
}

// -----

// The result of unsqueezing 2x3 at 2 axes has rank 4.
func.func @unsqueeze_axis_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{unsqueeze axis 4 is out of range [0, 4)}}
  // expected-error @+1 {{'oneflow.unsqueeze' op failed to infer returned types}}
  %0 = oneflow.unsqueeze %x {axes = array<i64: 0, 4>} : tensor<2x3xf32> -> tensor<1x2x3x1xf32>
  return
}

// -----

func.func @unsqueeze_duplicate(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{unsqueeze axes must be sorted and distinct}}
  // expected-error @+1 {{'oneflow.unsqueeze' op failed to infer returned types}}
  %0 = oneflow.unsqueeze %x {axes = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<1x1x2x3xf32>
  return
}

// -----

func.func @unsqueeze_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{unsqueeze axis -1 is out of range [0, 3)}}
  // expected-error @+1 {{'oneflow.unsqueeze' op failed to infer returned types}}
  %0 = oneflow.unsqueeze %x {axes = array<i64: -1>} : tensor<2x3xf32> -> tensor<2x3x1xf32>
  return
}

// -----

func.func @unsqueeze_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'oneflow.unsqueeze' op inferred type(s) 'tensor<2x1x3xf32>' are incompatible with return type(s) of operation 'tensor<1x2x3xf32>'}}
  // expected-error @+1 {{'oneflow.unsqueeze' op failed to infer returned types}}
  %0 = oneflow.unsqueeze %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<1x2x3xf32>
  return
}

// -----

func.func @flatten_axis_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{flatten axis 3 is out of range [0, 2]}}
  // expected-error @+1 {{'oneflow.flatten' op failed to infer returned types}}
  %0 = oneflow.flatten %x {axis = 3} : tensor<2x3xf32> -> tensor<6x1xf32>
  return
}

// -----

func.func @flatten_axis_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{flatten axis -1 is out of range [0, 2]}}
  // expected-error @+1 {{'oneflow.flatten' op failed to infer returned types}}
  %0 = oneflow.flatten %x {axis = -1} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @flatten_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'oneflow.flatten' op inferred type(s) 'tensor<6x4xf32>' are incompatible with return type(s) of operation 'tensor<2x12xf32>'}}
  // expected-error @+1 {{'oneflow.flatten' op failed to infer returned types}}
  %0 = oneflow.flatten %x {axis = 2} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  return
}

// -----

// Regression: the product 2^64 wrapped to 0 and 1x0 was accepted.
func.func @flatten_overflow(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error @+2 {{flattened size of 'tensor<4611686018427387904x4xf32>' overflows int64_t}}
  // expected-error @+1 {{'oneflow.flatten' op failed to infer returned types}}
  %0 = oneflow.flatten %x {axis = 0} : tensor<4611686018427387904x4xf32> -> tensor<1x0xf32>
  return
}
