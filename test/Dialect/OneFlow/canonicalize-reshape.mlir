// RUN: oneflow-opt %s -split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func @reshape_same_type(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>
// CHECK-NEXT:    return %[[X]] : tensor<2x3xf32>
func.func @reshape_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = oneflow.reshape %x : tensor<2x3xf32> to tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @reshape_of_reshape(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT:    %[[R:.*]] = oneflow.reshape %[[X]] : tensor<2x3x4xf32> to tensor<24xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %0 = oneflow.reshape %x : tensor<2x3x4xf32> to tensor<6x4xf32>
  %1 = oneflow.reshape %0 : tensor<6x4xf32> to tensor<24xf32>
  return %1 : tensor<24xf32>
}

// -----

// A chain of three collapses to one reshape.
// CHECK-LABEL: func @reshape_chain(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xi64>
// CHECK-NEXT:    %[[R:.*]] = oneflow.reshape %[[X]] : tensor<2x3x4xi64> to tensor<4x6xi64>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_chain(%x: tensor<2x3x4xi64>) -> tensor<4x6xi64> {
  %0 = oneflow.reshape %x : tensor<2x3x4xi64> to tensor<24xi64>
  %1 = oneflow.reshape %0 : tensor<24xi64> to tensor<2x12xi64>
  %2 = oneflow.reshape %1 : tensor<2x12xi64> to tensor<4x6xi64>
  return %2 : tensor<4x6xi64>
}

// -----

// Back to the original shape: nothing is left.
// CHECK-LABEL: func @reshape_round_trip(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xbf16>
// CHECK-NEXT:    return %[[X]] : tensor<2x3xbf16>
func.func @reshape_round_trip(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %0 = oneflow.reshape %x : tensor<2x3xbf16> to tensor<6xbf16>
  %1 = oneflow.reshape %0 : tensor<6xbf16> to tensor<2x3xbf16>
  return %1 : tensor<2x3xbf16>
}

// -----

// The inner reshape stays for its other user; the outer one reads %x.
// CHECK-LABEL: func @reshape_of_reshape_multi_use(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT:    %[[A:.*]] = oneflow.reshape %[[X]] : tensor<2x3x4xf32> to tensor<6x4xf32>
// CHECK-NEXT:    %[[B:.*]] = oneflow.reshape %[[X]] : tensor<2x3x4xf32> to tensor<24xf32>
// CHECK-NEXT:    return %[[A]], %[[B]]
func.func @reshape_of_reshape_multi_use(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<24xf32>) {
  %0 = oneflow.reshape %x : tensor<2x3x4xf32> to tensor<6x4xf32>
  %1 = oneflow.reshape %0 : tensor<6x4xf32> to tensor<24xf32>
  return %0, %1 : tensor<6x4xf32>, tensor<24xf32>
}

// -----

// Constant reshapes fold, and the result is materialized as a new
// oneflow.constant in row-major order.
// CHECK-LABEL: func @reshape_constant(
// CHECK-NEXT:    %[[C:.*]] = oneflow.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT:    return %[[C]]
func.func @reshape_constant() -> tensor<2x3xf32> {
  %0 = oneflow.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %1 = oneflow.reshape %0 : tensor<3x2xf32> to tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @reshape_splat_constant(
// CHECK-NEXT:    %[[C:.*]] = oneflow.constant dense<true> : tensor<2x1x2xi1>
// CHECK-NEXT:    return %[[C]]
func.func @reshape_splat_constant() -> tensor<2x1x2xi1> {
  %0 = oneflow.constant dense<true> : tensor<4xi1>
  %1 = oneflow.reshape %0 : tensor<4xi1> to tensor<2x1x2xi1>
  return %1 : tensor<2x1x2xi1>
}

// -----

// Non-splat booleans keep their order; empty constants reshape too.
// CHECK-LABEL: func @reshape_bool_and_empty_constants(
// CHECK-DAG:     %[[B:.*]] = oneflow.constant dense<{{\[}}[true, false, false], [true, true, false]]> : tensor<2x3xi1>
// CHECK-DAG:     %[[E:.*]] = oneflow.constant dense<> : tensor<0x5xf32>
// CHECK:         return %[[B]], %[[E]]
func.func @reshape_bool_and_empty_constants() -> (tensor<2x3xi1>, tensor<0x5xf32>) {
  %0 = oneflow.constant dense<[true, false, false, true, true, false]> : tensor<6xi1>
  %1 = oneflow.reshape %0 : tensor<6xi1> to tensor<2x3xi1>
  %2 = oneflow.constant dense<> : tensor<0xf32>
  %3 = oneflow.reshape %2 : tensor<0xf32> to tensor<0x5xf32>
  return %1, %3 : tensor<2x3xi1>, tensor<0x5xf32>
}

// -----

// Any constant-like producer folds; the result is still a oneflow.constant.
// CHECK-LABEL: func @reshape_arith_constant(
// CHECK-NEXT:    %[[C:.*]] = oneflow.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-NEXT:    return %[[C]]
func.func @reshape_arith_constant() -> tensor<2x2xi32> {
  %0 = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %1 = oneflow.reshape %0 : tensor<4xi32> to tensor<2x2xi32>
  return %1 : tensor<2x2xi32>
}

// -----

// Reshapes of constants and of reshapes of constants both fold to a single
// constant.
// CHECK-LABEL: func @reshape_constant_chain(
// CHECK-NEXT:    %[[C:.*]] = oneflow.constant dense<{{\[}}[0, 1, 2, 3, 4, 5]]> : tensor<1x6xi64>
// CHECK-NEXT:    return %[[C]]
func.func @reshape_constant_chain() -> tensor<1x6xi64> {
  %0 = oneflow.constant dense<[[0, 1], [2, 3], [4, 5]]> : tensor<3x2xi64>
  %1 = oneflow.reshape %0 : tensor<3x2xi64> to tensor<6xi64>
  %2 = oneflow.reshape %1 : tensor<6xi64> to tensor<1x6xi64>
  return %2 : tensor<1x6xi64>
}

// -----

// Negative: a reshape of a non-constant, non-reshape value stays.
// CHECK-LABEL: func @reshape_of_relu(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = oneflow.relu %[[X]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[S:.*]] = oneflow.reshape %[[R]] : tensor<2x3xf32> to tensor<3x2xf32>
// CHECK-NEXT:    return %[[S]]
func.func @reshape_of_relu(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = oneflow.relu %x : tensor<2x3xf32>
  %1 = oneflow.reshape %0 : tensor<2x3xf32> to tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// Negative: resource-backed constants are not copied into dense ones.
// CHECK-LABEL: func @reshape_resource_constant(
// CHECK-NEXT:    %[[C:.*]] = oneflow.constant dense_resource<blob> : tensor<2xf32>
// CHECK-NEXT:    %[[R:.*]] = oneflow.reshape %[[C]] : tensor<2xf32> to tensor<1x2xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_resource_constant() -> tensor<1x2xf32> {
  %0 = oneflow.constant dense_resource<blob> : tensor<2xf32>
  %1 = oneflow.reshape %0 : tensor<2xf32> to tensor<1x2xf32>
  return %1 : tensor<1x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}
