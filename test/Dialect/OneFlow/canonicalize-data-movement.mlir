// RUN: oneflow-opt %s -split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func @expand_same_type(
// CHECK-SAME:    %[[X:.*]]: tensor<3x4xf32>
// CHECK-NEXT:    return %[[X]] : tensor<3x4xf32>
func.func @expand_same_type(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = oneflow.expand %x : tensor<3x4xf32> to tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Negative: a real broadcast stays, even from a shape of the same size.
// CHECK-LABEL: func @expand_no_fold(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4xf32>, %[[Y:.*]]: tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = oneflow.expand %[[X]] : tensor<1x4xf32> to tensor<3x4xf32>
// CHECK-NEXT:    %[[B:.*]] = oneflow.expand %[[Y]] : tensor<4xf32> to tensor<1x4xf32>
// CHECK-NEXT:    return %[[A]], %[[B]]
func.func @expand_no_fold(%x: tensor<1x4xf32>, %y: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<1x4xf32>) {
  %0 = oneflow.expand %x : tensor<1x4xf32> to tensor<3x4xf32>
  %1 = oneflow.expand %y : tensor<4xf32> to tensor<1x4xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<1x4xf32>
}

// -----

// A slice of everything with unit steps is the input.
// CHECK-LABEL: func @full_slice(
// CHECK-SAME:    %[[X:.*]]: tensor<8x6xi64>
// CHECK-NEXT:    return %[[X]] : tensor<8x6xi64>
func.func @full_slice(%x: tensor<8x6xi64>) -> tensor<8x6xi64> {
  %0 = oneflow.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 8, 6>, steps = array<i64: 1, 1>} : tensor<8x6xi64> -> tensor<8x6xi64>
  return %0 : tensor<8x6xi64>
}

// -----

// Negative: a partial slice and a full reversal (same type, step -1) stay.
// CHECK-LABEL: func @slice_no_fold(
// CHECK-SAME:    %[[X:.*]]: tensor<8xf32>
// CHECK-NEXT:    %[[A:.*]] = oneflow.slice %[[X]] {limits = array<i64: 8>, starts = array<i64: 1>, steps = array<i64: 1>} : tensor<8xf32> -> tensor<7xf32>
// CHECK-NEXT:    %[[B:.*]] = oneflow.slice %[[X]] {limits = array<i64: -1>, starts = array<i64: 7>, steps = array<i64: -1>} : tensor<8xf32> -> tensor<8xf32>
// CHECK-NEXT:    return %[[A]], %[[B]]
func.func @slice_no_fold(%x: tensor<8xf32>) -> (tensor<7xf32>, tensor<8xf32>) {
  %0 = oneflow.slice %x {starts = array<i64: 1>, limits = array<i64: 8>, steps = array<i64: 1>} : tensor<8xf32> -> tensor<7xf32>
  %1 = oneflow.slice %x {starts = array<i64: 7>, limits = array<i64: -1>, steps = array<i64: -1>} : tensor<8xf32> -> tensor<8xf32>
  return %0, %1 : tensor<7xf32>, tensor<8xf32>
}

// -----

// CHECK-LABEL: func @single_input_concat(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xbf16>
// CHECK-NEXT:    return %[[X]] : tensor<2x3xbf16>
func.func @single_input_concat(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %0 = oneflow.concat %x {axis = 1} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}

// -----

// Negative: concatenating a value with itself or with an empty tensor keeps
// the concat.
// CHECK-LABEL: func @concat_no_fold(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[E:.*]]: tensor<0x3xf32>
// CHECK-NEXT:    %[[A:.*]] = oneflow.concat %[[X]], %[[X]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[B:.*]] = oneflow.concat %[[X]], %[[E]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[A]], %[[B]]
func.func @concat_no_fold(%x: tensor<2x3xf32>, %e: tensor<0x3xf32>) -> (tensor<4x3xf32>, tensor<2x3xf32>) {
  %0 = oneflow.concat %x, %x {axis = 0} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %1 = oneflow.concat %x, %e {axis = 0} : (tensor<2x3xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<2x3xf32>
}
