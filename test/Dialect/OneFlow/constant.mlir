// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// The result type of oneflow.constant is the type of its value.

// CHECK-LABEL: func @dense(
// CHECK-NEXT:    %[[A:.*]] = oneflow.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[B:.*]] = oneflow.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NEXT:    %[[C:.*]] = oneflow.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]] : tensor<2xf32>, tensor<2x3xi32>, tensor<2xi1>
func.func @dense() -> (tensor<2xf32>, tensor<2x3xi32>, tensor<2xi1>) {
  %0 = oneflow.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = oneflow.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %2 = oneflow.constant dense<[true, false]> : tensor<2xi1>
  return %0, %1, %2 : tensor<2xf32>, tensor<2x3xi32>, tensor<2xi1>
}

// -----

// CHECK-LABEL: func @splat(
// CHECK-NEXT:    oneflow.constant dense<5.000000e-01> : tensor<f16>
// CHECK-NEXT:    oneflow.constant dense<-2.500000e+00> : tensor<4x4xbf16>
// CHECK-NEXT:    oneflow.constant dense<1.000000e-01> : tensor<3xf64>
// CHECK-NEXT:    oneflow.constant dense<-1> : tensor<8xi64>
// CHECK-NEXT:    oneflow.constant dense<> : tensor<0x4xf32>
func.func @splat() {
  %0 = oneflow.constant dense<0.5> : tensor<f16>
  %1 = oneflow.constant dense<-2.5> : tensor<4x4xbf16>
  %2 = oneflow.constant dense<0.1> : tensor<3xf64>
  %3 = oneflow.constant dense<-1> : tensor<8xi64>
  %4 = oneflow.constant dense<> : tensor<0x4xf32>
  return
}

// -----

// Any ElementsAttr: hex-encoded dense data is printed as values, sparse and
// resource values are kept as they are.
// CHECK-LABEL: func @other_elements(
// CHECK-NEXT:    oneflow.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    oneflow.constant sparse<{{\[}}[0, 1]], 7> : tensor<2x2xi32>
// CHECK-NEXT:    oneflow.constant dense_resource<blob> : tensor<2xf32>
// CHECK:       dialect_resources
// CHECK:         blob: "0x040000000000803F00000040"
func.func @other_elements() {
  %0 = oneflow.constant dense<"0x0000803F00000040"> : tensor<2xf32>
  %1 = oneflow.constant sparse<[[0, 1]], [7]> : tensor<2x2xi32>
  %2 = oneflow.constant dense_resource<blob> : tensor<2xf32>
  return
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// Discardable attributes come before the value.
// CHECK-LABEL: func @discardable_attr(
// CHECK-NEXT:    oneflow.constant {tag = "w"} dense<3> : tensor<i32>
func.func @discardable_attr() -> tensor<i32> {
  %0 = oneflow.constant {tag = "w"} dense<3> : tensor<i32>
  return %0 : tensor<i32>
}
