// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// Unary ops on integer and float tensors (neg, abs, sign, clip) and on
// booleans (not).

// CHECK-LABEL: func @neg(
// CHECK-SAME:    %[[I32:.*]]: tensor<4xi32>, %[[I64:.*]]: tensor<2x2xi64>, %[[F16:.*]]: tensor<3xf16>, %[[BF16:.*]]: tensor<bf16>
// CHECK-NEXT:    oneflow.neg %[[I32]] : tensor<4xi32>{{$}}
// CHECK-NEXT:    oneflow.neg %[[I64]] : tensor<2x2xi64>{{$}}
// CHECK-NEXT:    oneflow.neg %[[F16]] : tensor<3xf16>{{$}}
// CHECK-NEXT:    oneflow.neg %[[BF16]] : tensor<bf16>{{$}}
func.func @neg(%a: tensor<4xi32>, %b: tensor<2x2xi64>, %c: tensor<3xf16>, %d: tensor<bf16>) {
  %0 = oneflow.neg %a : tensor<4xi32>
  %1 = oneflow.neg %b : tensor<2x2xi64>
  %2 = oneflow.neg %c : tensor<3xf16>
  %3 = oneflow.neg %d : tensor<bf16>
  return
}

// -----

// CHECK-LABEL: func @abs(
// CHECK-SAME:    %[[I64:.*]]: tensor<8xi64>, %[[F64:.*]]: tensor<8xf64>
// CHECK-NEXT:    oneflow.abs %[[I64]] : tensor<8xi64>{{$}}
// CHECK-NEXT:    oneflow.abs %[[F64]] : tensor<8xf64>{{$}}
func.func @abs(%a: tensor<8xi64>, %b: tensor<8xf64>) {
  %0 = oneflow.abs %a : tensor<8xi64>
  %1 = oneflow.abs %b : tensor<8xf64>
  return
}

// -----

// CHECK-LABEL: func @sign(
// CHECK-SAME:    %[[I32:.*]]: tensor<2x0xi32>, %[[F32:.*]]: tensor<7xf32>
// CHECK-NEXT:    oneflow.sign %[[I32]] : tensor<2x0xi32>{{$}}
// CHECK-NEXT:    oneflow.sign %[[F32]] : tensor<7xf32>{{$}}
func.func @sign(%a: tensor<2x0xi32>, %b: tensor<7xf32>) {
  %0 = oneflow.sign %a : tensor<2x0xi32>
  %1 = oneflow.sign %b : tensor<7xf32>
  return
}

// -----

// CHECK-LABEL: func @not(
// CHECK-SAME:    %[[X:.*]]: tensor<4x4xi1>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.not %[[X]] : tensor<4x4xi1>{{$}}
// CHECK-NEXT:    return %[[Y]]
func.func @not(%x: tensor<4x4xi1>) -> tensor<4x4xi1> {
  %0 = oneflow.not %x : tensor<4x4xi1>
  return %0 : tensor<4x4xi1>
}

// -----

// Either bound may be absent; min == max is allowed.
// CHECK-LABEL: func @clip(
// CHECK-NEXT:    oneflow.clip %{{.*}} : tensor<4xf32>{{$}}
// CHECK-NEXT:    oneflow.clip %{{.*}} {min = 0.000000e+00 : f64} : tensor<4xf32>{{$}}
// CHECK-NEXT:    oneflow.clip %{{.*}} {max = 6.000000e+00 : f64} : tensor<4xf32>{{$}}
// CHECK-NEXT:    oneflow.clip %{{.*}} {max = 6.000000e+00 : f64, min = -6.000000e+00 : f64} : tensor<4xf32>{{$}}
// CHECK-NEXT:    oneflow.clip %{{.*}} {max = 1.000000e+00 : f64, min = 1.000000e+00 : f64} : tensor<4xf32>{{$}}
func.func @clip(%x: tensor<4xf32>) {
  %0 = oneflow.clip %x : tensor<4xf32>
  %1 = oneflow.clip %x {min = 0.0} : tensor<4xf32>
  %2 = oneflow.clip %x {max = 6.0} : tensor<4xf32>
  %3 = oneflow.clip %x {min = -6.0, max = 6.0} : tensor<4xf32>
  %4 = oneflow.clip %x {min = 1.0, max = 1.0} : tensor<4xf32>
  return
}

// -----

// Bounds are f64 even on integer tensors.
// CHECK-LABEL: func @clip_int(
// CHECK-NEXT:    oneflow.clip %{{.*}} {max = 2.550000e+02 : f64, min = 0.000000e+00 : f64} : tensor<16xi32>{{$}}
// CHECK-NEXT:    oneflow.clip %{{.*}} {min = -1.000000e+00 : f64} : tensor<16xi64>{{$}}
func.func @clip_int(%a: tensor<16xi32>, %b: tensor<16xi64>) {
  %0 = oneflow.clip %a {min = 0.0, max = 255.0} : tensor<16xi32>
  %1 = oneflow.clip %b {min = -1.0} : tensor<16xi64>
  return
}
