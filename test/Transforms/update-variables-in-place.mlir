// RUN: oneflow-opt %s --oneflow-update-variables-in-place -split-input-file | FileCheck %s

// The update kernel reads @w and @m and its results are assigned to them,
// after every other read: both results overwrite their argument. The third
// result is assigned to @v, which the kernel does not read. The decision is
// the call's; kernels are left alone (oneflow-share-kernels records it on
// them).
// CHECK-LABEL: func.func private @kernel_1_update
// CHECK-NOT:     oneflow.updates_in_place
// CHECK-LABEL: func.func @main
// CHECK:         call @kernel_0_read(%{{[^)]*}}) : (
// CHECK:         call @kernel_1_update(%{{[^)]*}}) {oneflow.updates_in_place = array<i64: 0, 1, -1>} : (
func.func private @kernel_0_read(%w: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  return %w : tensor<4xf32>
}
func.func private @kernel_1_update(%w: tensor<4xf32>, %m: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) attributes {oneflow.kernel} {
  return %w, %m, %g : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
func.func @main(%g: tensor<4xf32>) -> tensor<4xf32> {
  %w = oneflow.variable @w : tensor<4xf32>
  %m = oneflow.variable @m : tensor<4xf32>
  %v = oneflow.variable @v : tensor<4xf32>
  %y = call @kernel_0_read(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %r:3 = call @kernel_1_update(%w, %m, %g) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  oneflow.assign @w, %r#0 : tensor<4xf32>
  oneflow.assign @m, %r#1 : tensor<4xf32>
  oneflow.assign @v, %r#2 : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Not in place for @w: the old value of @w is read after the update
// kernel, and the new value is used besides its assign. The same kernel
// updating @u, read by nothing else, writes over it: each call decides.
// CHECK-LABEL: func.func @main
// CHECK:         call @kernel_0_update(%{{[^)]*}}) : (
// CHECK:         call @kernel_1_read(%{{[^)]*}}) : (
// CHECK:         call @kernel_0_update(%{{[^)]*}}) {oneflow.updates_in_place = array<i64: 0>} : (
func.func private @kernel_0_update(%w: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  return %w : tensor<4xf32>
}
func.func private @kernel_1_read(%w: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  return %w : tensor<4xf32>
}
func.func @main() -> (tensor<4xf32>, tensor<4xf32>) {
  %w = oneflow.variable @w : tensor<4xf32>
  %u = oneflow.variable @u : tensor<4xf32>
  %w1 = call @kernel_0_update(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %y = call @kernel_1_read(%w) : (tensor<4xf32>) -> tensor<4xf32>
  oneflow.assign @w, %w1 : tensor<4xf32>
  %u1 = call @kernel_0_update(%u) : (tensor<4xf32>) -> tensor<4xf32>
  oneflow.assign @u, %u1 : tensor<4xf32>
  return %y, %w1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A parameter read by several ops, through two reads of @w: the update
// kernel comes after the kernels reading the first, but a kernel reading
// the second follows it, so its result is not written over @w.
// CHECK-LABEL: func.func @main
// CHECK-NOT:     oneflow.updates_in_place
// CHECK:         return
func.func private @kernel_0_read(%w: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  return %w : tensor<4xf32>
}
func.func private @kernel_1_update(%w: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  return %g : tensor<4xf32>
}
func.func @main(%g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %w = oneflow.variable @w : tensor<4xf32>
  %w2 = oneflow.variable @w : tensor<4xf32>
  %a = call @kernel_0_read(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %n = call @kernel_1_update(%w, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = call @kernel_0_read(%w2) : (tensor<4xf32>) -> tensor<4xf32>
  oneflow.assign @w, %n : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// Three kernels read @w before the update kernel: it writes over @w.
// CHECK-LABEL: func.func @main
// CHECK:         call @kernel_1_update(%{{[^)]*}}) {oneflow.updates_in_place = array<i64: 0>} : (
func.func private @kernel_0_read(%w: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  return %w : tensor<4xf32>
}
func.func private @kernel_1_update(%w: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> attributes {oneflow.kernel} {
  return %g : tensor<4xf32>
}
func.func @main(%g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %w = oneflow.variable @w : tensor<4xf32>
  %w2 = oneflow.variable @w : tensor<4xf32>
  %a = call @kernel_0_read(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %b = call @kernel_0_read(%w2) : (tensor<4xf32>) -> tensor<4xf32>
  %c = call @kernel_0_read(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %n = call @kernel_1_update(%w, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  oneflow.assign @w, %n : tensor<4xf32>
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
