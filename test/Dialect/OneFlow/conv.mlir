// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// Output size per spatial dimension:
//   (size + pad_begin + pad_end - dilation * (kernel - 1) - 1) / stride + 1
// with pads = [top, left, bottom, right].

// CHECK-LABEL: func @same_padding(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.conv2d %[[X]], %[[W]] {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x8x8xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @same_padding(%x: tensor<2x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<2x16x8x8xf32> {
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x8x8xf32>
  return %0 : tensor<2x16x8x8xf32>
}

// -----

// ResNet stem: 7x7 stride 2 pad 3 on 224 gives 112; with a bias.
// CHECK-LABEL: func @stem_with_bias(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x224x224xf16>, %[[W:.*]]: tensor<64x3x7x7xf16>, %[[B:.*]]: tensor<64xf16>
// CHECK-NEXT:    oneflow.conv2d %[[X]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf16>, tensor<64x3x7x7xf16>, tensor<64xf16>) -> tensor<1x64x112x112xf16>
func.func @stem_with_bias(%x: tensor<1x3x224x224xf16>, %w: tensor<64x3x7x7xf16>, %b: tensor<64xf16>) -> tensor<1x64x112x112xf16> {
  %0 = oneflow.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1>} : (tensor<1x3x224x224xf16>, tensor<64x3x7x7xf16>, tensor<64xf16>) -> tensor<1x64x112x112xf16>
  return %0 : tensor<1x64x112x112xf16>
}

// -----

// Dilation 2 makes a 3x3 kernel span 5: 10 -> 6.
// CHECK-LABEL: func @dilated(
// CHECK-NEXT:    oneflow.conv2d %{{.*}}, %{{.*}} {dilations = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x10x10xbf16>, tensor<8x4x3x3xbf16>) -> tensor<1x8x6x6xbf16>
func.func @dilated(%x: tensor<1x4x10x10xbf16>, %w: tensor<8x4x3x3xbf16>) -> tensor<1x8x6x6xbf16> {
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>} : (tensor<1x4x10x10xbf16>, tensor<8x4x3x3xbf16>) -> tensor<1x8x6x6xbf16>
  return %0 : tensor<1x8x6x6xbf16>
}

// -----

// Pads are [top, left, bottom, right] and strides/dilations are [h, w]:
// H = (4 + 1 + 2 - 3) / 2 + 1 = 3, W = (6 + 0 + 0 - 2 * 1 - 1) / 1 + 1 = 4.
// CHECK-LABEL: func @asymmetric(
// CHECK-NEXT:    oneflow.conv2d %{{.*}}, %{{.*}} {dilations = array<i64: 1, 2>, pads = array<i64: 1, 0, 2, 0>, strides = array<i64: 2, 1>} : (tensor<1x1x4x6xf64>, tensor<1x1x3x2xf64>) -> tensor<1x1x3x4xf64>
func.func @asymmetric(%x: tensor<1x1x4x6xf64>, %w: tensor<1x1x3x2xf64>) -> tensor<1x1x3x4xf64> {
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 2, 0>, dilations = array<i64: 1, 2>} : (tensor<1x1x4x6xf64>, tensor<1x1x3x2xf64>) -> tensor<1x1x3x4xf64>
  return %0 : tensor<1x1x3x4xf64>
}

// -----

// Grouped and depthwise convolutions: the weight has in_channels / groups
// input channels. The default groups = 1 is elided.
// CHECK-LABEL: func @groups(
// CHECK-NEXT:    oneflow.conv2d %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, groups = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x5x5xf32>, tensor<6x4x1x1xf32>) -> tensor<1x6x5x5xf32>
// CHECK-NEXT:    oneflow.conv2d %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, groups = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x5x5xf32>
// CHECK-NEXT:    oneflow.conv2d %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x5x5xf32>, tensor<6x8x1x1xf32>) -> tensor<1x6x5x5xf32>
func.func @groups(%x: tensor<1x8x5x5xf32>, %w: tensor<6x4x1x1xf32>, %dw: tensor<8x1x3x3xf32>, %w1: tensor<6x8x1x1xf32>) {
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2} : (tensor<1x8x5x5xf32>, tensor<6x4x1x1xf32>) -> tensor<1x6x5x5xf32>
  %1 = oneflow.conv2d %x, %dw {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 8} : (tensor<1x8x5x5xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x5x5xf32>
  %2 = oneflow.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1} : (tensor<1x8x5x5xf32>, tensor<6x8x1x1xf32>) -> tensor<1x6x5x5xf32>
  return
}

// -----

// A kernel exactly as large as the padded input leaves one output; a stride
// larger than the input too.
// CHECK-LABEL: func @single_output(
// CHECK-NEXT:    oneflow.conv2d %{{.*}}, %{{.*}} {{.*}} : (tensor<1x2x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    oneflow.conv2d %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 9, 9>} : (tensor<1x2x3x3xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x1x1xf32>
func.func @single_output(%x: tensor<1x2x3x3xf32>, %w: tensor<4x2x3x3xf32>, %w1: tensor<4x2x1x1xf32>) {
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x1x1xf32>
  %1 = oneflow.conv2d %x, %w1 {strides = array<i64: 9, 9>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x1x1xf32>
  return
}
