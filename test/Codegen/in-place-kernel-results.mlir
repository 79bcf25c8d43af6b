// RUN: oneflow-opt %s --oneflow-in-place-kernel-results -split-input-file | FileCheck %s

// An elementwise update writes into the variable it reads (w - 0.1 * g):
// its outs become the argument, which is made writable.
// CHECK-LABEL: func.func @sgd(
// CHECK-SAME:    %[[W:.*]]: tensor<8xf32> {bufferization.writable = true}, %[[G:.*]]: tensor<8xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[W]], %[[G]] : tensor<8xf32>, tensor<8xf32>) outs(%[[W]] : tensor<8xf32>)
// CHECK:         return %[[R]]
#id = affine_map<(d0) -> (d0)>
func.func @sgd(%w: tensor<8xf32>, %g: tensor<8xf32>) -> tensor<8xf32> attributes {oneflow.updates_in_place = array<i64: 0>} {
  %lr = arith.constant 0.1 : f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%w, %g : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %b, %lr : f32
    %d = arith.subf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// The result reads the argument transposed: the kernel works on a copy of
// the argument taken on entry, so writing the result cannot change it.
// CHECK-LABEL: func.func @transposed(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<4x4xf32>)
// CHECK-NEXT:    %[[E:.*]] = tensor.empty()
// CHECK-NEXT:    %[[C:.*]] = linalg.copy ins(%[[W]] : tensor<4x4xf32>) outs(%[[E]] : tensor<4x4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[C]] : tensor<4x4xf32>)
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @transposed(%w: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {oneflow.updates_in_place = array<i64: 0>} {
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
