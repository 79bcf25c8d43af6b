// RUN: oneflow-opt %s -split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func @neg_neg(
// CHECK-SAME:    %[[X:.*]]: tensor<4xi32>, %[[Y:.*]]: tensor<2x2xf16>
// CHECK-NEXT:    return %[[X]], %[[Y]] : tensor<4xi32>, tensor<2x2xf16>
func.func @neg_neg(%x: tensor<4xi32>, %y: tensor<2x2xf16>) -> (tensor<4xi32>, tensor<2x2xf16>) {
  %0 = oneflow.neg %x : tensor<4xi32>
  %1 = oneflow.neg %0 : tensor<4xi32>
  %2 = oneflow.neg %y : tensor<2x2xf16>
  %3 = oneflow.neg %2 : tensor<2x2xf16>
  return %1, %3 : tensor<4xi32>, tensor<2x2xf16>
}

// -----

// Negations cancel in pairs: three leave one.
// CHECK-LABEL: func @neg_neg_neg(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>
// CHECK-NEXT:    %[[N:.*]] = oneflow.neg %[[X]] : tensor<4xf32>
// CHECK-NEXT:    return %[[N]]
func.func @neg_neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = oneflow.neg %x : tensor<4xf32>
  %1 = oneflow.neg %0 : tensor<4xf32>
  %2 = oneflow.neg %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// The inner neg stays for its other user.
// CHECK-LABEL: func @neg_neg_multi_use(
// CHECK-SAME:    %[[X:.*]]: tensor<4xi64>
// CHECK-NEXT:    %[[N:.*]] = oneflow.neg %[[X]] : tensor<4xi64>
// CHECK-NEXT:    return %[[N]], %[[X]]
func.func @neg_neg_multi_use(%x: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %0 = oneflow.neg %x : tensor<4xi64>
  %1 = oneflow.neg %0 : tensor<4xi64>
  return %0, %1 : tensor<4xi64>, tensor<4xi64>
}

// -----

// Negative: other unary pairs are not involutions and stay.
// CHECK-LABEL: func @no_fold_unary(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = oneflow.abs %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[N:.*]] = oneflow.neg %[[A]] : tensor<4xf32>
// CHECK-NEXT:    %[[R1:.*]] = oneflow.reciprocal %[[N]] : tensor<4xf32>
// CHECK-NEXT:    %[[R2:.*]] = oneflow.reciprocal %[[R1]] : tensor<4xf32>
// CHECK-NEXT:    return %[[R2]]
func.func @no_fold_unary(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = oneflow.abs %x : tensor<4xf32>
  %1 = oneflow.neg %0 : tensor<4xf32>
  %2 = oneflow.reciprocal %1 : tensor<4xf32>
  %3 = oneflow.reciprocal %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @cast_same_type(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<i1>
// CHECK-NEXT:    return %[[X]], %[[B]] : tensor<2x3xf32>, tensor<i1>
func.func @cast_same_type(%x: tensor<2x3xf32>, %b: tensor<i1>) -> (tensor<2x3xf32>, tensor<i1>) {
  %0 = oneflow.cast %x : tensor<2x3xf32> to tensor<2x3xf32>
  %1 = oneflow.cast %b : tensor<i1> to tensor<i1>
  return %0, %1 : tensor<2x3xf32>, tensor<i1>
}

// -----

// Negative: a round trip through a narrower type loses precision and stays.
// CHECK-LABEL: func @cast_round_trip(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>
// CHECK-NEXT:    %[[H:.*]] = oneflow.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    %[[F:.*]] = oneflow.cast %[[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT:    return %[[F]]
func.func @cast_round_trip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = oneflow.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = oneflow.cast %0 : tensor<4xf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Elementwise ops on constants fold (neg, int -> float cast).
// CHECK-LABEL: func @constant_fold(
// CHECK-DAG:     %[[N:.*]] = oneflow.constant dense<-2> : tensor<4xi32>
// CHECK-DAG:     %[[F:.*]] = oneflow.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK:         return %[[N]], %[[F]]
func.func @constant_fold() -> (tensor<4xi32>, tensor<4xf32>) {
  %0 = oneflow.constant dense<2> : tensor<4xi32>
  %1 = oneflow.neg %0 : tensor<4xi32>
  %2 = oneflow.cast %0 : tensor<4xi32> to tensor<4xf32>
  return %1, %2 : tensor<4xi32>, tensor<4xf32>
}
