// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @element_count(%x: tensor<64x10xf32>) {
  // expected-error @+1 {{'oneflow.reshape' op reshape from 'tensor<64x10xf32>' (640 elements) to 'tensor<600xf32>' (600 elements)}}
  %0 = oneflow.reshape %x : tensor<64x10xf32> to tensor<600xf32>
  return
}

// -----

func.func @to_empty(%x: tensor<1xf32>) {
  // expected-error @+1 {{'oneflow.reshape' op reshape from 'tensor<1xf32>' (1 elements) to 'tensor<0xf32>' (0 elements)}}
  %0 = oneflow.reshape %x : tensor<1xf32> to tensor<0xf32>
  return
}

// -----

func.func @element_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.reshape' op reshape cannot change the element type}}
  %0 = oneflow.reshape %x : tensor<4xf32> to tensor<2x2xf16>
  return
}

// -----

// Regression: the element count 2^64 wrapped to 0 and matched tensor<0xf32>.
func.func @element_count_overflow(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error @+1 {{'oneflow.reshape' op element count of 'tensor<4611686018427387904x4xf32>' overflows int64_t}}
  %0 = oneflow.reshape %x : tensor<4611686018427387904x4xf32> to tensor<0xf32>
  return
}

// -----

func.func @result_count_overflow(%x: tensor<0xf32>) {
  // expected-error @+1 {{'oneflow.reshape' op element count of 'tensor<4611686018427387904x4xf32>' overflows int64_t}}
  %0 = oneflow.reshape %x : tensor<0xf32> to tensor<4611686018427387904x4xf32>
  return
}

// -----

func.func @dynamic_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.reshape' op result #0 must be statically shaped tensor}}
  %0 = oneflow.reshape %x : tensor<4xf32> to tensor<?xf32>
  return
}
