// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// pads = [low_0, ..., low_{n-1}, high_0, ..., high_{n-1}].

// CHECK-LABEL: func @pad(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.pad %[[X]] {pads = array<i64: 1, 0, 2, 4>} : tensor<2x3xf32> -> tensor<5x7xf32>
// CHECK-NEXT:    return %[[Y]]
// GENERIC-LABEL: sym_name = "pad"
// GENERIC:       "oneflow.pad"(%{{.*}}) <{mode = #oneflow.pad_mode<constant>, pads = array<i64: 1, 0, 2, 4>, value = 0.000000e+00 : f64}>
func.func @pad(%x: tensor<2x3xf32>) -> tensor<5x7xf32> {
  %0 = oneflow.pad %x {pads = array<i64: 1, 0, 2, 4>} : tensor<2x3xf32> -> tensor<5x7xf32>
  return %0 : tensor<5x7xf32>
}

// -----

// CHECK-LABEL: func @pad_modes(
// CHECK-NEXT:    oneflow.pad %{{.*}} {pads = array<i64: 1, 1, 1, 1>, value = -1.000000e+00 : f64} : tensor<4x4xi32> -> tensor<6x6xi32>
// CHECK-NEXT:    oneflow.pad %{{.*}} {mode = #oneflow.pad_mode<reflect>, pads = array<i64: 3, 0, 3, 0>} : tensor<4x4xi32> -> tensor<10x4xi32>
// CHECK-NEXT:    oneflow.pad %{{.*}} {mode = #oneflow.pad_mode<edge>, pads = array<i64: 0, 5, 0, 5>} : tensor<4x4xi32> -> tensor<4x14xi32>
// CHECK-NEXT:    oneflow.pad %{{.*}} {pads = array<i64: 0, 0, 0, 0>} : tensor<4x4xi32> -> tensor<4x4xi32>
func.func @pad_modes(%x: tensor<4x4xi32>) {
  %0 = oneflow.pad %x {pads = array<i64: 1, 1, 1, 1>, value = -1.0} : tensor<4x4xi32> -> tensor<6x6xi32>
  %1 = oneflow.pad %x {pads = array<i64: 3, 0, 3, 0>, mode = #oneflow.pad_mode<reflect>} : tensor<4x4xi32> -> tensor<10x4xi32>
  %2 = oneflow.pad %x {pads = array<i64: 0, 5, 0, 5>, mode = #oneflow.pad_mode<edge>} : tensor<4x4xi32> -> tensor<4x14xi32>
  %3 = oneflow.pad %x {pads = array<i64: 0, 0, 0, 0>, mode = #oneflow.pad_mode<constant>} : tensor<4x4xi32> -> tensor<4x4xi32>
  return
}

// -----

// Constant padding can grow an empty dimension; a rank-0 tensor has no pads.
// CHECK-LABEL: func @pad_degenerate(
// CHECK-NEXT:    oneflow.pad %{{.*}} {pads = array<i64: 2, 1>} : tensor<0xf16> -> tensor<3xf16>
// CHECK-NEXT:    oneflow.pad %{{.*}} {pads = array<i64>} : tensor<bf16> -> tensor<bf16>
func.func @pad_degenerate(%e: tensor<0xf16>, %s: tensor<bf16>) {
  %0 = oneflow.pad %e {pads = array<i64: 2, 1>} : tensor<0xf16> -> tensor<3xf16>
  %1 = oneflow.pad %s {pads = array<i64>} : tensor<bf16> -> tensor<bf16>
  return
}

// -----

// Regression: zero reflect/edge padding of an empty dimension pads nothing
// and was rejected.
// CHECK-LABEL: func @pad_empty_no_padding(
// CHECK-NEXT:    oneflow.pad %{{.*}} {mode = #oneflow.pad_mode<reflect>, pads = array<i64: 0, 1, 0, 1>} : tensor<0x2xf64> -> tensor<0x4xf64>
// CHECK-NEXT:    oneflow.pad %{{.*}} {mode = #oneflow.pad_mode<edge>, pads = array<i64: 0, 0, 0, 0>} : tensor<0x2xf64> -> tensor<0x2xf64>
func.func @pad_empty_no_padding(%e: tensor<0x2xf64>) {
  %0 = oneflow.pad %e {pads = array<i64: 0, 1, 0, 1>, mode = #oneflow.pad_mode<reflect>} : tensor<0x2xf64> -> tensor<0x4xf64>
  %1 = oneflow.pad %e {pads = array<i64: 0, 0, 0, 0>, mode = #oneflow.pad_mode<edge>} : tensor<0x2xf64> -> tensor<0x2xf64>
  return
}

// -----

// CHECK-LABEL: func @tile(
// CHECK-NEXT:    oneflow.tile %{{.*}} {repeats = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<4x9xf32>
// CHECK-NEXT:    oneflow.tile %{{.*}} {repeats = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<2x0xf32>
// CHECK-NEXT:    oneflow.tile %{{.*}} {repeats = array<i64>} : tensor<i1> -> tensor<i1>
// CHECK-NEXT:    oneflow.tile %{{.*}} {repeats = array<i64: 4>} : tensor<3xi64> -> tensor<12xi64>
func.func @tile(%x: tensor<2x3xf32>, %s: tensor<i1>, %i: tensor<3xi64>) {
  %0 = oneflow.tile %x {repeats = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<4x9xf32>
  %1 = oneflow.tile %x {repeats = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<2x0xf32>
  %2 = oneflow.tile %s {repeats = array<i64>} : tensor<i1> -> tensor<i1>
  %3 = oneflow.tile %i {repeats = array<i64: 4>} : tensor<3xi64> -> tensor<12xi64>
  return
}
