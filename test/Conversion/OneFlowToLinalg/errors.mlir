// Ops that cannot be lowered are reported.
// RUN: oneflow-opt %s --convert-oneflow-to-linalg -split-input-file -verify-diagnostics
func.func @conv_f16(%x: tensor<1x4x10x10xf16>, %w: tensor<8x4x3x3xf16>) -> tensor<1x8x8x8xf16> {
  // expected-error @+1 {{failed to legalize operation 'oneflow.conv2d' that was explicitly marked illegal}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x10x10xf16>, tensor<8x4x3x3xf16>) -> tensor<1x8x8x8xf16>
  return %0 : tensor<1x8x8x8xf16>
}
