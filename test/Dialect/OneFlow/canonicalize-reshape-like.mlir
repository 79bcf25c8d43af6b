// RUN: oneflow-opt %s -split-input-file --canonicalize | FileCheck %s

// squeeze, unsqueeze and flatten become oneflow.reshape, which then folds
// like any reshape.

// CHECK-LABEL: func @squeeze(
// CHECK-SAME:    %[[X:.*]]: tensor<2x1x3xf32>
// CHECK-NEXT:    %[[R:.*]] = oneflow.reshape %[[X]] : tensor<2x1x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    return %[[R]]
func.func @squeeze(%x: tensor<2x1x3xf32>) -> tensor<2x3xf32> {
  %0 = oneflow.squeeze %x {axes = array<i64: 1>} : tensor<2x1x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @unsqueeze(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xi32>
// CHECK-NEXT:    %[[R:.*]] = oneflow.reshape %[[X]] : tensor<2x3xi32> to tensor<1x2x3x1xi32>
// CHECK-NEXT:    return %[[R]]
func.func @unsqueeze(%x: tensor<2x3xi32>) -> tensor<1x2x3x1xi32> {
  %0 = oneflow.unsqueeze %x {axes = array<i64: 0, 3>} : tensor<2x3xi32> -> tensor<1x2x3x1xi32>
  return %0 : tensor<1x2x3x1xi32>
}

// -----

// CHECK-LABEL: func @flatten(
// CHECK-SAME:    %[[X:.*]]: tensor<8x512x1x1xf16>
// CHECK-NEXT:    %[[R:.*]] = oneflow.reshape %[[X]] : tensor<8x512x1x1xf16> to tensor<8x512xf16>
// CHECK-NEXT:    return %[[R]]
func.func @flatten(%x: tensor<8x512x1x1xf16>) -> tensor<8x512xf16> {
  %0 = oneflow.flatten %x {axis = 1} : tensor<8x512x1x1xf16> -> tensor<8x512xf16>
  return %0 : tensor<8x512xf16>
}

// -----

// squeeze then unsqueeze: one reshape from the input.
// CHECK-LABEL: func @squeeze_unsqueeze(
// CHECK-SAME:    %[[X:.*]]: tensor<2x1x3xbf16>
// CHECK-NEXT:    %[[R:.*]] = oneflow.reshape %[[X]] : tensor<2x1x3xbf16> to tensor<1x2x3xbf16>
// CHECK-NEXT:    return %[[R]]
func.func @squeeze_unsqueeze(%x: tensor<2x1x3xbf16>) -> tensor<1x2x3xbf16> {
  %0 = oneflow.squeeze %x {axes = array<i64: 1>} : tensor<2x1x3xbf16> -> tensor<2x3xbf16>
  %1 = oneflow.unsqueeze %0 {axes = array<i64: 0>} : tensor<2x3xbf16> -> tensor<1x2x3xbf16>
  return %1 : tensor<1x2x3xbf16>
}

// -----

// Shape-preserving forms disappear entirely.
// CHECK-LABEL: func @identities(
// CHECK-SAME:    %[[X:.*]]: tensor<2x1x3xf32>, %[[Y:.*]]: tensor<4x5xf32>
// CHECK-NEXT:    return %[[X]], %[[X]], %[[Y]]
func.func @identities(%x: tensor<2x1x3xf32>, %y: tensor<4x5xf32>) -> (tensor<2x1x3xf32>, tensor<2x1x3xf32>, tensor<4x5xf32>) {
  %0 = oneflow.squeeze %x {axes = array<i64>} : tensor<2x1x3xf32> -> tensor<2x1x3xf32>
  %1 = oneflow.squeeze %x {axes = array<i64: 1>} : tensor<2x1x3xf32> -> tensor<2x3xf32>
  %2 = oneflow.unsqueeze %1 {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2x1x3xf32>
  %3 = oneflow.flatten %y {axis = 1} : tensor<4x5xf32> -> tensor<4x5xf32>
  return %0, %2, %3 : tensor<2x1x3xf32>, tensor<2x1x3xf32>, tensor<4x5xf32>
}

// -----

// Through the reshape, constants fold.
// CHECK-LABEL: func @flatten_constant(
// CHECK-NEXT:    %[[C:.*]] = oneflow.constant dense<{{\[}}[1, 2, 3, 4]]> : tensor<1x4xi64>
// CHECK-NEXT:    return %[[C]]
func.func @flatten_constant() -> tensor<1x4xi64> {
  %0 = oneflow.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %1 = oneflow.flatten %0 {axis = 0} : tensor<2x2xi64> -> tensor<1x4xi64>
  return %1 : tensor<1x4xi64>
}
