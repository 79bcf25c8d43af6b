// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @pads_length(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'pads' must have 4 entries, got 2}}
  // expected-error @+1 {{'oneflow.pad' op failed to infer returned types}}
  %0 = oneflow.pad %x {pads = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'pads' entries must be >= 0, got -1}}
  // expected-error @+1 {{'oneflow.pad' op failed to infer returned types}}
  %0 = oneflow.pad %x {pads = array<i64: 0, 0, -1, 0>} : tensor<2x3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @reflect_too_wide(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{reflect padding of dimension 1 must be smaller than its size 3}}
  // expected-error @+1 {{'oneflow.pad' op failed to infer returned types}}
  %0 = oneflow.pad %x {pads = array<i64: 0, 0, 0, 3>, mode = #oneflow.pad_mode<reflect>} : tensor<2x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @reflect_empty(%x: tensor<0x3xf32>) {
  // expected-error @+2 {{reflect padding of dimension 0 must be smaller than its size 0}}
  // expected-error @+1 {{'oneflow.pad' op failed to infer returned types}}
  %0 = oneflow.pad %x {pads = array<i64: 1, 0, 0, 0>, mode = #oneflow.pad_mode<reflect>} : tensor<0x3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @edge_empty(%x: tensor<2x0xf32>) {
  // expected-error @+2 {{cannot edge-pad an empty dimension}}
  // expected-error @+1 {{'oneflow.pad' op failed to infer returned types}}
  %0 = oneflow.pad %x {pads = array<i64: 0, 0, 0, 1>, mode = #oneflow.pad_mode<edge>} : tensor<2x0xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @pad_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'oneflow.pad' op inferred type(s) 'tensor<5x7xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{'oneflow.pad' op failed to infer returned types}}
  %0 = oneflow.pad %x {pads = array<i64: 1, 0, 2, 4>} : tensor<2x3xf32> -> tensor<4x8xf32>
  return
}

// -----

// Regression: the padded size wrapped to a negative dimension.
func.func @pad_overflow(%x: tensor<2xf32>) {
  // expected-error @+2 {{padded size of dimension 0 overflows int64_t}}
  // expected-error @+1 {{'oneflow.pad' op failed to infer returned types}}
  %0 = oneflow.pad %x {pads = array<i64: 9223372036854775807, 1>} : tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @pad_mode_enum(%x: tensor<2xf32>) {
  // expected-error @+1 {{'oneflow.pad' op attribute 'mode' failed to satisfy constraint: how padding is filled}}
  %0 = "oneflow.pad"(%x) {pads = array<i64: 1, 1>, mode = #oneflow.gelu_approximation<tanh>} : (tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @pad_mode_unknown(%x: tensor<2xf32>) {
  // expected-error @+2 {{expected ::mlir::oneflow::PadMode to be one of: constant, reflect, edge}}
  // expected-error @+1 {{failed to parse OneFlow_PadModeAttr parameter 'value'}}
  %0 = oneflow.pad %x {pads = array<i64: 1, 1>, mode = #oneflow.pad_mode<wrap>} : tensor<2xf32> -> tensor<4xf32>
  return
}

// -----

func.func @repeats_length(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'repeats' must have 2 entries, got 1}}
  // expected-error @+1 {{'oneflow.tile' op failed to infer returned types}}
  %0 = oneflow.tile %x {repeats = array<i64: 2>} : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @repeat_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'repeats' entries must be >= 0, got -1}}
  // expected-error @+1 {{'oneflow.tile' op failed to infer returned types}}
  %0 = oneflow.tile %x {repeats = array<i64: 1, -1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @tile_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'oneflow.tile' op inferred type(s) 'tensor<4x9xf32>' are incompatible with return type(s) of operation 'tensor<9x4xf32>'}}
  // expected-error @+1 {{'oneflow.tile' op failed to infer returned types}}
  %0 = oneflow.tile %x {repeats = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<9x4xf32>
  return
}

// -----

// Regression: 2 * (2^63 - 1) wrapped to -2.
func.func @tile_overflow(%x: tensor<2xf32>) {
  // expected-error @+2 {{tiled size of dimension 0 overflows int64_t}}
  // expected-error @+1 {{'oneflow.tile' op failed to infer returned types}}
  %0 = oneflow.tile %x {repeats = array<i64: 9223372036854775807>} : tensor<2xf32> -> tensor<4xf32>
  return
}
