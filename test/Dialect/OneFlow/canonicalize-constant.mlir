// RUN: oneflow-opt %s -split-input-file --canonicalize | FileCheck %s

// Equal constants are merged and hoisted to the start of the block.
// CHECK-LABEL: func @dedup(
// CHECK-SAME:    %[[X:.*]]: tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = oneflow.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %[[A:.*]] = oneflow.add %[[C]], %[[X]]
// CHECK-NEXT:    %[[M:.*]] = oneflow.mul %[[A]], %[[C]]
// CHECK-NEXT:    return %[[M]], %[[C]]
func.func @dedup(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = oneflow.constant dense<1.0> : tensor<2xf32>
  %1 = oneflow.constant dense<1.0> : tensor<2xf32>
  %2 = oneflow.add %0, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = oneflow.mul %2, %1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %4 = oneflow.constant dense<1.0> : tensor<2xf32>
  return %3, %4 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Negative: constants with the same data but different types stay apart.
// CHECK-LABEL: func @no_dedup_across_types(
// CHECK-DAG:     %[[A:.*]] = oneflow.constant dense<1> : tensor<2xi32>
// CHECK-DAG:     %[[B:.*]] = oneflow.constant dense<1> : tensor<2xi64>
// CHECK-DAG:     %[[C:.*]] = oneflow.constant dense<1> : tensor<1x2xi32>
// CHECK:         return %[[A]], %[[B]], %[[C]]
func.func @no_dedup_across_types() -> (tensor<2xi32>, tensor<2xi64>, tensor<1x2xi32>) {
  %0 = oneflow.constant dense<1> : tensor<2xi32>
  %1 = oneflow.constant dense<1> : tensor<2xi64>
  %2 = oneflow.constant dense<1> : tensor<1x2xi32>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xi64>, tensor<1x2xi32>
}

// -----

// Unused pure ops, constants and variable reads are erased.
// CHECK-LABEL: func @dead_code(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>
// CHECK-NEXT:    return %[[X]] : tensor<4xf32>
func.func @dead_code(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = oneflow.constant dense<3.0> : tensor<4xf32>
  %1 = oneflow.variable @w : tensor<4xf32>
  %2 = oneflow.mul %x, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = oneflow.relu %2 : tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// Negative: variable reads are not constants: they are neither merged by
// canonicalization nor folded.
// CHECK-LABEL: func @variables_stay(
// CHECK-NEXT:    %[[A:.*]] = oneflow.variable @w {initial_value = dense<1.000000e+00> : tensor<2xf32>} : tensor<2xf32>
// CHECK-NEXT:    %[[B:.*]] = oneflow.variable @w {initial_value = dense<1.000000e+00> : tensor<2xf32>} : tensor<2xf32>
// CHECK-NEXT:    %[[R:.*]] = oneflow.reshape %[[A]] : tensor<2xf32> to tensor<1x2xf32>
// CHECK-NEXT:    return %[[R]], %[[B]]
func.func @variables_stay() -> (tensor<1x2xf32>, tensor<2xf32>) {
  %0 = oneflow.variable @w {initial_value = dense<1.0> : tensor<2xf32>} : tensor<2xf32>
  %1 = oneflow.variable @w {initial_value = dense<1.0> : tensor<2xf32>} : tensor<2xf32>
  %2 = oneflow.reshape %0 : tensor<2xf32> to tensor<1x2xf32>
  return %2, %1 : tensor<1x2xf32>, tensor<2xf32>
}

// -----

// A fold that produces an existing constant value reuses the constant.
// CHECK-LABEL: func @materialize_reuses(
// CHECK-NEXT:    %[[C:.*]] = oneflow.constant dense<7> : tensor<2x2xi64>
// CHECK-NEXT:    return %[[C]], %[[C]]
func.func @materialize_reuses() -> (tensor<2x2xi64>, tensor<2x2xi64>) {
  %0 = oneflow.constant dense<7> : tensor<2x2xi64>
  %1 = oneflow.constant dense<7> : tensor<4xi64>
  %2 = oneflow.reshape %1 : tensor<4xi64> to tensor<2x2xi64>
  return %0, %2 : tensor<2x2xi64>, tensor<2x2xi64>
}

// -----

// Folds that forward an operand work on constants too: the constant is
// returned directly.
// CHECK-LABEL: func @forward_constant(
// CHECK-NEXT:    %[[C:.*]] = oneflow.constant dense<{{\[}}[1.000000e+00, 2.000000e+00]]> : tensor<1x2xf16>
// CHECK-NEXT:    return %[[C]], %[[C]], %[[C]]
func.func @forward_constant() -> (tensor<1x2xf16>, tensor<1x2xf16>, tensor<1x2xf16>) {
  %0 = oneflow.constant dense<[[1.0, 2.0]]> : tensor<1x2xf16>
  %1 = oneflow.transpose %0 {perm = array<i64: 0, 1>} : tensor<1x2xf16> -> tensor<1x2xf16>
  %2 = oneflow.expand %0 : tensor<1x2xf16> to tensor<1x2xf16>
  %3 = oneflow.concat %0 {axis = 0} : (tensor<1x2xf16>) -> tensor<1x2xf16>
  return %1, %2, %3 : tensor<1x2xf16>, tensor<1x2xf16>, tensor<1x2xf16>
}
