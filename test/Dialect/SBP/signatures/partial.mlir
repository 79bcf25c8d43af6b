// RUN: oneflow-opt %s --test-print-sbp-signatures -split-input-file -o /dev/null | FileCheck %s

// P passes through linear ops ...
// CHECK-LABEL: func @linear
// CHECK:      oneflow.neg: ab->ab | partial: joint(0)
// CHECK:        (P) -> (P)
// CHECK:      oneflow.sub: ab,ab->ab | partial: joint(0, 1)
// CHECK:        (P, P) -> (P)
// CHECK:      oneflow.div: ab,ab->ab | partial: each(0)
// CHECK:        (P, B) -> (P)
// CHECK-NOT:    (B, P) -> (P)
// CHECK:      oneflow.cast: ab->ab | partial: joint(0)
// CHECK:        (P) -> (P)
// CHECK:      oneflow.transpose: ab->ba | partial: joint(0)
// CHECK:        (P) -> (P)
// CHECK:      oneflow.reduce_mean: ab->a | partial: joint(0)
// CHECK:        (P) -> (P)
func.func @linear(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4xf16> {
  %0 = oneflow.neg %a : tensor<4x8xf32>
  %1 = oneflow.sub %0, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = oneflow.div %1, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = oneflow.cast %2 : tensor<4x8xf32> to tensor<4x8xf16>
  %4 = oneflow.transpose %3 {perm = array<i64: 1, 0>} : tensor<4x8xf16> -> tensor<8x4xf16>
  %5 = oneflow.reduce_mean %3 {axes = array<i64: 1>} : tensor<4x8xf16> -> tensor<4xf16>
  return %5 : tensor<4xf16>
}

// -----

// ... but not through non-linear ones.
// CHECK-LABEL: func @nonlinear
// CHECK:      oneflow.relu: ab->ab{{$}}
// CHECK-NOT:    P
// CHECK:      oneflow.exp: ab->ab{{$}}
// CHECK-NOT:    P
// CHECK:      oneflow.gelu: ab->ab{{$}}
// CHECK-NOT:    P
// CHECK:      oneflow.pow: ab,ab->ab{{$}}
// CHECK-NOT:    P
// CHECK:      oneflow.max: ab,ab->ab{{$}}
// CHECK-NOT:    P
// CHECK:      oneflow.cast: ab->ab{{$}}
// CHECK-NOT:    P
// CHECK:      oneflow.reduce_max: a_->a{{$}}
// CHECK-NOT:    P
// CHECK:      func
func.func @nonlinear(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = oneflow.relu %a : tensor<4x8xf32>
  %1 = oneflow.exp %0 : tensor<4x8xf32>
  %2 = oneflow.gelu %1 : tensor<4x8xf32>
  %3 = oneflow.pow %2, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = oneflow.max %3, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = oneflow.cast %4 : tensor<4x8xf32> to tensor<4x8xi32>
  %6 = oneflow.reduce_max %4 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  return %6 : tensor<4xf32>
}

// Terminates the last CHECK-NOT above.
func.func @end() {
  return
}

// -----

// A constant pad is linear only when it pads with zero.
// CHECK-LABEL: func @pad
// CHECK-NEXT: oneflow.pad: a_->a_ | partial: joint(0)
// CHECK:      oneflow.pad: a_->a_{{$}}
// CHECK:      oneflow.pad: a_->a_ | partial: joint(0)
func.func @pad(%a: tensor<4x8xf32>) -> tensor<4x10xf32> {
  %0 = oneflow.pad %a {pads = array<i64: 0, 1, 0, 1>} : tensor<4x8xf32> -> tensor<4x10xf32>
  %1 = oneflow.pad %a {pads = array<i64: 0, 1, 0, 1>, value = 1.0 : f64} : tensor<4x8xf32> -> tensor<4x10xf32>
  %2 = oneflow.pad %a {pads = array<i64: 0, 1, 0, 1>, mode = #oneflow.pad_mode<reflect>} : tensor<4x8xf32> -> tensor<4x10xf32>
  return %2 : tensor<4x10xf32>
}
