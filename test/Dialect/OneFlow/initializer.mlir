// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --emit-bytecode | oneflow-opt | FileCheck %s --check-prefix=BYTECODE

// Initializers print every parameter of their distribution (omitted ones
// take PyTorch's defaults) and nothing else.

// CHECK-LABEL: func @initializers(
// CHECK-NEXT: oneflow.variable @w {initializer = #oneflow.init<normal, mean = 0.000000e+00, std = 2.000000e-02, seed = 1234>} : tensor<64x32xf32>
// CHECK-NEXT: oneflow.variable @n {initializer = #oneflow.init<normal, mean = 0.000000e+00, std = 1.000000e+00, seed = 0>} : tensor<8xbf16>
// CHECK-NEXT: oneflow.variable @u {initializer = #oneflow.init<uniform, a = -1.000000e-01, b = 1.000000e-01, seed = 7>} : tensor<4x4xf64>
// CHECK-NEXT: oneflow.variable @d {initializer = #oneflow.init<uniform, a = 0.000000e+00, b = 1.000000e+00, seed = 0>} : tensor<3xf16>
// CHECK-NEXT: oneflow.variable @t {initializer = #oneflow.init<truncated_normal, mean = 5.000000e-01, std = 2.000000e+00, a = -1.000000e+00, b = 3.000000e+00, seed = 18446744073709551615>} : tensor<5xf32>
// CHECK-NEXT: oneflow.variable @td {initializer = #oneflow.init<truncated_normal, mean = 0.000000e+00, std = 1.000000e+00, a = -2.000000e+00, b = 2.000000e+00, seed = 0>} : tensor<5xf32>
// CHECK-NEXT: oneflow.variable @copy {initializer = #oneflow.init<normal, mean = 0.000000e+00, std = 2.000000e-02, seed = 1234, stream = 42>} : tensor<64x32xf32>
// CHECK-NEXT: oneflow.variable @ln.weight {initializer = #oneflow.init<ones>} : tensor<32xf32>
// CHECK-NEXT: oneflow.variable @ln.bias {initializer = #oneflow.init<zeros>} : tensor<32xf32>
// CHECK-NEXT: oneflow.variable @step {initializer = #oneflow.init<zeros>} : tensor<i64>
// CHECK-NEXT: oneflow.variable @flags {initializer = #oneflow.init<ones>} : tensor<2xi1>
// BYTECODE-LABEL: func @initializers(
// BYTECODE-NEXT: oneflow.variable @w {initializer = #oneflow.init<normal, mean = 0.000000e+00, std = 2.000000e-02, seed = 1234>}
func.func @initializers() {
  %0 = oneflow.variable @w {initializer = #oneflow.init<normal, mean = 0.0, std = 0.02, seed = 1234>} : tensor<64x32xf32>
  %1 = oneflow.variable @n {initializer = #oneflow.init<normal>} : tensor<8xbf16>
  %2 = oneflow.variable @u {initializer = #oneflow.init<uniform, seed = 7, b = 0.1, a = -0.1>} : tensor<4x4xf64>
  %3 = oneflow.variable @d {initializer = #oneflow.init<uniform>} : tensor<3xf16>
  %4 = oneflow.variable @t {initializer = #oneflow.init<truncated_normal, mean = 0.5, std = 2.0, a = -1.0, b = 3.0, seed = 18446744073709551615>} : tensor<5xf32>
  %5 = oneflow.variable @td {initializer = #oneflow.init<truncated_normal>} : tensor<5xf32>
  %6 = oneflow.variable @copy {initializer = #oneflow.init<normal, std = 0.02, seed = 1234, stream = 42>} : tensor<64x32xf32>
  %7 = oneflow.variable @ln.weight {initializer = #oneflow.init<ones>} : tensor<32xf32>
  %8 = oneflow.variable @ln.bias {initializer = #oneflow.init<zeros>} : tensor<32xf32>
  %9 = oneflow.variable @step {initializer = #oneflow.init<zeros>} : tensor<i64>
  %10 = oneflow.variable @flags {initializer = #oneflow.init<ones>} : tensor<2xi1>
  return
}
