// RUN: oneflow-opt %s -split-input-file --canonicalize | FileCheck %s

// Shape arithmetic on constants folds (integer division truncates):
// broadcasting binary ops, comparisons,
// where, gather, concat, slice, reshapes and reductions.
// CHECK-LABEL: func @shape_arith
// CHECK-DAG: %[[DIV:.*]] = oneflow.constant dense<[0, 4, 16]> : tensor<3xi64>
// CHECK-DAG: %[[EQ:.*]] = oneflow.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[WHERE:.*]] = oneflow.constant dense<[2, 0, 64]> : tensor<3xi64>
// CHECK-DAG: %[[GATHER:.*]] = oneflow.constant dense<[64, 2]> : tensor<2xi64>
// CHECK-DAG: %[[CONCAT:.*]] = oneflow.constant dense<[2, 16, 64, 4]> : tensor<4xi64>
// CHECK-DAG: %[[SLICE:.*]] = oneflow.constant dense<[64, 16]> : tensor<2xi64>
// CHECK-DAG: %[[UNSQ:.*]] = oneflow.constant dense<{{\[}}[2, 16, 64]]> : tensor<1x3xi64>
// CHECK-DAG: %[[PROD:.*]] = oneflow.constant dense<2048> : tensor<i64>
// CHECK-NOT: oneflow.{{(div|equal|where|gather|concat|slice|unsqueeze|reduce_prod)}}
// CHECK: return %[[DIV]], %[[EQ]], %[[WHERE]], %[[GATHER]], %[[CONCAT]], %[[SLICE]], %[[UNSQ]], %[[PROD]]
func.func @shape_arith() -> (tensor<3xi64>, tensor<3xi1>, tensor<3xi64>, tensor<2xi64>, tensor<4xi64>, tensor<2xi64>, tensor<1x3xi64>, tensor<i64>) {
  %shape = oneflow.constant dense<[2, 16, 64]> : tensor<3xi64>
  %four = oneflow.constant dense<4> : tensor<i64>
  %zero = oneflow.constant dense<0> : tensor<i64>
  %div = oneflow.div %shape, %four : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %sixteen = oneflow.constant dense<16> : tensor<i64>
  %eq = oneflow.equal %shape, %sixteen : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %where = oneflow.where %eq, %zero, %shape : (tensor<3xi1>, tensor<i64>, tensor<3xi64>) -> tensor<3xi64>
  %idx = oneflow.constant dense<[2, -3]> : tensor<2xi64>
  %gather = oneflow.gather %shape, %idx : (tensor<3xi64>, tensor<2xi64>) -> tensor<2xi64>
  %tail = oneflow.constant dense<4> : tensor<1xi64>
  %concat = oneflow.concat %shape, %tail {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<4xi64>
  %slice = oneflow.slice %shape {starts = array<i64: 2>, limits = array<i64: 0>, steps = array<i64: -1>} : tensor<3xi64> -> tensor<2xi64>
  %unsq = oneflow.unsqueeze %shape {axes = array<i64: 0>} : tensor<3xi64> -> tensor<1x3xi64>
  %prod = oneflow.reduce_prod %shape {axes = array<i64: 0>} : tensor<3xi64> -> tensor<i64>
  return %div, %eq, %where, %gather, %concat, %slice, %unsq, %prod : tensor<3xi64>, tensor<3xi1>, tensor<3xi64>, tensor<2xi64>, tensor<4xi64>, tensor<2xi64>, tensor<1x3xi64>, tensor<i64>
}

// -----

// Floats fold in the element type's precision; expand of a splat stays a
// splat; a float-to-int cast truncates.
// CHECK-LABEL: func @floats
// CHECK-DAG: %[[ADD:.*]] = oneflow.constant dense<{{\[}}[1.500000e+00, 2.500000e+00], [3.500000e+00, 4.500000e+00]]> : tensor<2x2xf16>
// CHECK-DAG: %[[EXP:.*]] = oneflow.constant dense<7.000000e+00> : tensor<64x64xf32>
// CHECK-DAG: %[[INT:.*]] = oneflow.constant dense<[-1, 2]> : tensor<2xi32>
// CHECK-DAG: %[[MEAN:.*]] = oneflow.constant dense<[2.000000e+00, 4.000000e+00]> : tensor<2xf16>
// CHECK: return %[[ADD]], %[[EXP]], %[[INT]], %[[MEAN]]
func.func @floats() -> (tensor<2x2xf16>, tensor<64x64xf32>, tensor<2xi32>, tensor<2xf16>) {
  %a = oneflow.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  %half = oneflow.constant dense<0.5> : tensor<f16>
  %add = oneflow.add %a, %half : (tensor<2x2xf16>, tensor<f16>) -> tensor<2x2xf16>
  %seven = oneflow.constant dense<7.0> : tensor<1x1xf32>
  %exp = oneflow.expand %seven : tensor<1x1xf32> to tensor<64x64xf32>
  %f = oneflow.constant dense<[-1.7, 2.9]> : tensor<2xf32>
  %int = oneflow.cast %f : tensor<2xf32> to tensor<2xi32>
  %mean = oneflow.reduce_mean %add {axes = array<i64: 1>} : tensor<2x2xf16> -> tensor<2xf16>
  return %add, %exp, %int, %mean : tensor<2x2xf16>, tensor<64x64xf32>, tensor<2xi32>, tensor<2xf16>
}

// -----

// Negative: division by zero, overflow and NaN casts are left to run time;
// ops on non-constants never fold.
// CHECK-LABEL: func @no_fold
// CHECK: oneflow.div
// CHECK: oneflow.mul
// CHECK: oneflow.cast
// CHECK: oneflow.add %arg0
func.func @no_fold(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<i32>, tensor<2xi64>) {
  %a = oneflow.constant dense<[4, 8]> : tensor<2xi64>
  %z = oneflow.constant dense<[2, 0]> : tensor<2xi64>
  %div = oneflow.div %a, %z : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %big = oneflow.constant dense<9223372036854775807> : tensor<2xi64>
  %mul = oneflow.mul %big, %a : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %nan = oneflow.constant dense<0x7FC00000> : tensor<f32>
  %cast = oneflow.cast %nan : tensor<f32> to tensor<i32>
  %add = oneflow.add %x, %a : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %div, %mul, %cast, %add : tensor<2xi64>, tensor<2xi64>, tensor<i32>, tensor<2xi64>
}
