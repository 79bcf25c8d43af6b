// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @softmax(
// CHECK-SAME:    %[[X:.*]]: tensor<64x10xf32>
// CHECK-NEXT:    %[[S:.*]] = oneflow.softmax %[[X]] {axis = 1 : i64} : tensor<64x10xf32>{{$}}
// CHECK-NEXT:    %[[L:.*]] = oneflow.log_softmax %[[S]] {axis = 0 : i64} : tensor<64x10xf32>{{$}}
// CHECK-NEXT:    return %[[L]]
func.func @softmax(%x: tensor<64x10xf32>) -> tensor<64x10xf32> {
  %0 = oneflow.softmax %x {axis = 1} : tensor<64x10xf32>
  %1 = oneflow.log_softmax %0 {axis = 0} : tensor<64x10xf32>
  return %1 : tensor<64x10xf32>
}

// -----

// CHECK-LABEL: func @element_types(
// CHECK-NEXT:    oneflow.softmax %{{.*}} {axis = 3 : i64} : tensor<2x4x16x16xf16>{{$}}
// CHECK-NEXT:    oneflow.log_softmax %{{.*}} {axis = 0 : i64} : tensor<7xbf16>{{$}}
// CHECK-NEXT:    oneflow.softmax %{{.*}} {axis = 0 : i64} : tensor<1x0xf64>{{$}}
func.func @element_types(%a: tensor<2x4x16x16xf16>, %b: tensor<7xbf16>, %c: tensor<1x0xf64>) {
  %0 = oneflow.softmax %a {axis = 3} : tensor<2x4x16x16xf16>
  %1 = oneflow.log_softmax %b {axis = 0} : tensor<7xbf16>
  %2 = oneflow.softmax %c {axis = 0} : tensor<1x0xf64>
  return
}
