// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @variables(
// CHECK-NEXT:    %[[W:.*]] = oneflow.variable @fc1.weight : tensor<784x512xf32>
// CHECK-NEXT:    %[[B:.*]] = oneflow.variable @fc1.bias : tensor<512xf16>
// CHECK-NEXT:    %[[S:.*]] = oneflow.variable @step : tensor<i64>
// CHECK-NEXT:    %[[Q:.*]] = oneflow.variable @"layer 0/weight" : tensor<2xbf16>
// CHECK-NEXT:    return %[[W]], %[[B]], %[[S]], %[[Q]]
func.func @variables() -> (tensor<784x512xf32>, tensor<512xf16>, tensor<i64>, tensor<2xbf16>) {
  %0 = oneflow.variable @fc1.weight : tensor<784x512xf32>
  %1 = oneflow.variable @fc1.bias : tensor<512xf16>
  %2 = oneflow.variable @step : tensor<i64>
  %3 = oneflow.variable @"layer 0/weight" : tensor<2xbf16>
  return %0, %1, %2, %3 : tensor<784x512xf32>, tensor<512xf16>, tensor<i64>, tensor<2xbf16>
}

// -----

// CHECK-LABEL: func @initial_values(
// CHECK-NEXT:    oneflow.variable @w {initial_value = dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf64>} : tensor<2x2xf64>
// CHECK-NEXT:    oneflow.variable @mask {initial_value = dense<true> : tensor<3xi1>} : tensor<3xi1>
// CHECK-NEXT:    oneflow.variable @emb {initial_value = dense_resource<emb_init> : tensor<2xf32>} : tensor<2xf32>
// CHECK:       dialect_resources
// CHECK:         emb_init: "0x040000000000803F00000040"
func.func @initial_values() {
  %0 = oneflow.variable @w {initial_value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>} : tensor<2x2xf64>
  %1 = oneflow.variable @mask {initial_value = dense<true> : tensor<3xi1>} : tensor<3xi1>
  %2 = oneflow.variable @emb {initial_value = dense_resource<emb_init> : tensor<2xf32>} : tensor<2xf32>
  return
}
{-#
  dialect_resources: {
    builtin: {
      emb_init: "0x040000000000803F00000040"
    }
  }
#-}
