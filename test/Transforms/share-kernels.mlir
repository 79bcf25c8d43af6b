// RUN: oneflow-opt %s --oneflow-share-kernels -split-input-file | FileCheck %s
// RUN: oneflow-opt %s --oneflow-update-variables-in-place --oneflow-share-kernels -split-input-file | FileCheck %s --check-prefix=DECIDE

// Two layers' kernels with the same body (their locations differ) become
// one; a body that differs (another op) stays its own.
// CHECK-LABEL: func.func private @kernel_0_add
// CHECK-NOT:   func.func private @kernel_1_add
// CHECK:       func.func private @kernel_2_mul
// CHECK-LABEL: func.func @main
// CHECK:         call @kernel_0_add(%{{[^)]*}}) : (
// CHECK:         call @kernel_0_add(%{{[^)]*}}) : (
// CHECK:         call @kernel_2_mul(%{{[^)]*}}) : (
func.func private @kernel_0_add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  %0 = oneflow.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("layer0")
  return %0 : tensor<4xf32>
}
func.func private @kernel_1_add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  %0 = oneflow.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("layer1")
  return %0 : tensor<4xf32>
}
func.func private @kernel_2_mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  %0 = oneflow.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @kernel_0_add(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = call @kernel_1_add(%0, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = call @kernel_2_mul(%1, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// An SGD step under --no-fuse (`w - lr * g` as two kernels) and an
// ordinary subtraction have one body. The update writes over @w, the
// ordinary call must not write over its operand: they get a kernel each,
// and only the update's records the decision. Two updates in place (@w and
// @u) share theirs.
// DECIDE-LABEL: func.func private @kernel_1_sub
// DECIDE-SAME:    oneflow.updates_in_place = array<i64: 0>
// DECIDE:       func.func private @kernel_2_sub
// DECIDE-NOT:     oneflow.updates_in_place
// DECIDE-SAME:    {
// DECIDE-NOT:   func.func private @kernel_3_sub
// DECIDE-LABEL: func.func @main
// DECIDE:         %[[SCALED:.*]] = call @kernel_0_mul
// DECIDE:         %[[NEW:.*]] = call @kernel_1_sub(%{{.*}}, %[[SCALED]]) {oneflow.updates_in_place = array<i64: 0>}
// DECIDE:         call @kernel_2_sub(%{{[^)]*}}) : (
// DECIDE:         call @kernel_1_sub(%{{[^)]*}}) {oneflow.updates_in_place = array<i64: 0>}
// DECIDE:         oneflow.assign @w, %[[NEW]]
func.func private @kernel_0_mul(%a: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  %lr = oneflow.constant dense<1.000000e-01> : tensor<f32>
  %0 = oneflow.mul %a, %lr : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @kernel_1_sub(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  %0 = oneflow.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @kernel_2_sub(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  %0 = oneflow.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @kernel_3_sub(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  %0 = oneflow.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @main(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %w = oneflow.variable @w : tensor<4xf32>
  %u = oneflow.variable @u : tensor<4xf32>
  %s = call @kernel_0_mul(%g) : (tensor<4xf32>) -> tensor<4xf32>
  %w1 = call @kernel_1_sub(%w, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = call @kernel_2_sub(%x, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %u1 = call @kernel_3_sub(%u, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  oneflow.assign @w, %w1 : tensor<4xf32>
  oneflow.assign @u, %u1 : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// One kernel whose calls decide differently (an update in place, and the
// same arithmetic on a value that is not assigned) is split: each copy has
// one decision, shared by all its calls.
// CHECK-LABEL: func.func private @kernel_0_sub
// CHECK-SAME:    oneflow.updates_in_place = array<i64: 0>
// CHECK:       func.func private @kernel_0_sub_0
// CHECK-NOT:     oneflow.updates_in_place
// CHECK-SAME:    {
// CHECK-LABEL: func.func @main
// CHECK:         call @kernel_0_sub(%{{[^)]*}}) {oneflow.updates_in_place = array<i64: 0>}
// CHECK:         call @kernel_0_sub_0(%{{[^)]*}}) : (
// CHECK:         call @kernel_0_sub(%{{[^)]*}}) {oneflow.updates_in_place = array<i64: 0>}
func.func private @kernel_0_sub(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  %0 = oneflow.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @main(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %w = oneflow.variable @w : tensor<4xf32>
  %u = oneflow.variable @u : tensor<4xf32>
  %w1 = call @kernel_0_sub(%w, %g) {oneflow.updates_in_place = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = call @kernel_0_sub(%x, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %u1 = call @kernel_0_sub(%u, %g) {oneflow.updates_in_place = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  oneflow.assign @w, %w1 : tensor<4xf32>
  oneflow.assign @u, %u1 : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// Ranks with the same local shapes share kernels across their programs.
// CHECK-LABEL: func.func private @kernel_0_neg
// CHECK-LABEL: func.func @main_rank0
// CHECK:         call @kernel_0_neg(
// CHECK-NOT:   func.func private @kernel_0_neg_0
// CHECK-LABEL: func.func @main_rank1
// CHECK:         call @kernel_0_neg(
func.func private @kernel_0_neg(%a: tensor<2xf32>) -> tensor<2xf32> attributes {oneflow.kernel} {
  %0 = oneflow.neg %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @main_rank0(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = call @kernel_0_neg(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @kernel_0_neg_0(%a: tensor<2xf32>) -> tensor<2xf32> attributes {oneflow.kernel} {
  %0 = oneflow.neg %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @main_rank1(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = call @kernel_0_neg_0(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
