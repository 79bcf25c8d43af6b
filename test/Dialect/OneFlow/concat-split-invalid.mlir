// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @concat_no_inputs() {
  // expected-error @+2 {{concat needs at least one input}}
  // expected-error @+1 {{'oneflow.concat' op failed to infer returned types}}
  %0 = "oneflow.concat"() {axis = 0} : () -> tensor<0xf32>
  return
}

// -----

func.func @concat_axis_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{concat axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'oneflow.concat' op failed to infer returned types}}
  %0 = oneflow.concat %a, %a {axis = 2} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_axis_negative(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{concat axis -1 is out of range for rank 2}}
  // expected-error @+1 {{'oneflow.concat' op failed to infer returned types}}
  %0 = oneflow.concat %a, %a {axis = -1} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_scalars(%a: tensor<f32>) {
  // expected-error @+2 {{concat axis 0 is out of range for rank 0}}
  // expected-error @+1 {{'oneflow.concat' op failed to infer returned types}}
  %0 = oneflow.concat %a, %a {axis = 0} : (tensor<f32>, tensor<f32>) -> tensor<2xf32>
  return
}

// -----

func.func @concat_other_dim(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+2 {{concat inputs differ in dimension 0 (3 vs 2)}}
  // expected-error @+1 {{'oneflow.concat' op failed to infer returned types}}
  %0 = oneflow.concat %a, %b {axis = 1} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{concat inputs must share element type and rank}}
  // expected-error @+1 {{'oneflow.concat' op failed to infer returned types}}
  %0 = oneflow.concat %a, %b {axis = 1} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+2 {{concat inputs must share element type and rank}}
  // expected-error @+1 {{'oneflow.concat' op failed to infer returned types}}
  %0 = oneflow.concat %a, %b {axis = 0} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_result(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'oneflow.concat' op inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<2x6xf32>'}}
  // expected-error @+1 {{'oneflow.concat' op failed to infer returned types}}
  %0 = oneflow.concat %a, %a {axis = 0} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Regression: the concatenated size wrapped to -2.
func.func @concat_overflow(%a: tensor<9223372036854775807xf32>) {
  // expected-error @+2 {{concat size along axis 0 overflows int64_t}}
  // expected-error @+1 {{'oneflow.concat' op failed to infer returned types}}
  %0 = oneflow.concat %a, %a {axis = 0} : (tensor<9223372036854775807xf32>, tensor<9223372036854775807xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @split_sizes_sum(%x: tensor<6x4xf32>) {
  // expected-error @+2 {{split sizes sum to 5 but dimension 0 has size 6}}
  // expected-error @+1 {{'oneflow.split' op failed to infer returned types}}
  %0:2 = oneflow.split %x {axis = 0, sizes = array<i64: 2, 3>} : tensor<6x4xf32> -> tensor<2x4xf32>, tensor<3x4xf32>
  return
}

// -----

func.func @split_zero_pieces(%x: tensor<6x4xf32>) {
  // expected-error @+2 {{split needs at least one size}}
  // expected-error @+1 {{'oneflow.split' op failed to infer returned types}}
  "oneflow.split"(%x) {axis = 1, sizes = array<i64>} : (tensor<6x4xf32>) -> ()
  return
}

// -----

// Regression: a split of an empty dimension into no pieces was accepted, and
// printed as `... -> ` with nothing after it, which does not parse back.
func.func @split_empty_into_nothing(%x: tensor<0xi64>) {
  // expected-error @+2 {{split needs at least one size}}
  // expected-error @+1 {{'oneflow.split' op failed to infer returned types}}
  "oneflow.split"(%x) {axis = 0, sizes = array<i64>} : (tensor<0xi64>) -> ()
  return
}

// -----

func.func @split_negative_size(%x: tensor<6x4xf32>) {
  // expected-error @+2 {{split sizes must be >= 0}}
  // expected-error @+1 {{'oneflow.split' op failed to infer returned types}}
  %0:2 = oneflow.split %x {axis = 0, sizes = array<i64: 8, -2>} : tensor<6x4xf32> -> tensor<8x4xf32>, tensor<6x4xf32>
  return
}

// -----

// Regression: two sizes of 2^63 - 1 and a 4 summed (wrapping) to the
// dimension size 2.
func.func @split_sizes_overflow(%x: tensor<2xf32>) {
  // expected-error @+2 {{split sizes overflow int64_t}}
  // expected-error @+1 {{'oneflow.split' op failed to infer returned types}}
  %0:3 = oneflow.split %x {axis = 0, sizes = array<i64: 9223372036854775807, 9223372036854775807, 4>} : tensor<2xf32> -> tensor<9223372036854775807xf32>, tensor<9223372036854775807xf32>, tensor<4xf32>
  return
}

// -----

func.func @split_axis_range(%x: tensor<6x4xf32>) {
  // expected-error @+2 {{split axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'oneflow.split' op failed to infer returned types}}
  %0 = oneflow.split %x {axis = 2, sizes = array<i64: 4>} : tensor<6x4xf32> -> tensor<6x4xf32>
  return
}

// -----

func.func @split_result_count(%x: tensor<6x4xf32>) {
  // expected-error @+2 {{'oneflow.split' op inferred type(s) 'tensor<3x4xf32>', 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf32>'}}
  // expected-error @+1 {{'oneflow.split' op failed to infer returned types}}
  %0 = oneflow.split %x {axis = 0, sizes = array<i64: 3, 3>} : tensor<6x4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @split_result_order(%x: tensor<6x4xf32>) {
  // expected-error @+2 {{'oneflow.split' op inferred type(s) 'tensor<2x4xf32>', 'tensor<4x4xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>', 'tensor<2x4xf32>'}}
  // expected-error @+1 {{'oneflow.split' op failed to infer returned types}}
  %0:2 = oneflow.split %x {axis = 0, sizes = array<i64: 2, 4>} : tensor<6x4xf32> -> tensor<4x4xf32>, tensor<2x4xf32>
  return
}
