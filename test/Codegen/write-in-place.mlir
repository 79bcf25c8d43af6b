// RUN: oneflow-opt %s --oneflow-write-in-place -split-input-file | FileCheck %s

#map = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d1)>

// An epilogue writes over the product it reads (used nowhere else); the
// kernel's arguments are read-only for bufferization.
// CHECK-LABEL: func.func @epilogue(
// CHECK-SAME:    %{{.*}}: tensor<4x8xf32> {bufferization.writable = false}, %{{.*}}: tensor<8xf32> {bufferization.writable = false})
// CHECK:         %[[P:.*]] = linalg.generic
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<4x8xf32>, tensor<8xf32>) outs(%[[P]] : tensor<4x8xf32>)
func.func @epilogue(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#map, #bcast, #map], iterator_types = ["parallel", "parallel"]}
      ins(%p, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>

// Not over a value read again later, nor over a kernel argument.
// CHECK-LABEL: func.func @still_read
// CHECK:         %[[E:.*]] = tensor.empty
// CHECK:         linalg.generic {{.*}} outs(%[[E]] : tensor<4x8xf32>)
// CHECK:         %[[E2:.*]] = tensor.empty
// CHECK:         linalg.generic {{.*}} outs(%[[E2]] : tensor<4x8xf32>)
func.func @still_read(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %p, %y : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Reads before the generic do not matter (a softmax writes over its input
// after reducing it); the exponentials then go over the same buffer.
// CHECK-LABEL: func.func @after_reduction
// CHECK:         %[[P:.*]] = linalg.generic
// CHECK:         %[[M:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %[[M]] : tensor<4x8xf32>, tensor<4xf32>) outs(%[[P]] : tensor<4x8xf32>)
func.func @after_reduction(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%p, %m : tensor<4x8xf32>, tensor<4xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %d = arith.divf %in, %sum : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>

// A generic with two results gives each its own dead input; the second
// result finds none left and keeps its own buffer.
// CHECK-LABEL: func.func @two_results
// CHECK:         %[[A:.*]] = linalg.generic
// CHECK:         %[[E:.*]] = tensor.empty
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : tensor<4x8xf32>) outs(%[[A]], %[[E]] : tensor<4x8xf32>, tensor<4x8xf32>)
func.func @two_results(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %y:2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e1, %e2 : tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%in: f32, %o0: f32, %o1: f32):
    %s = arith.mulf %in, %in : f32
    %t = math.exp %in : f32
    linalg.yield %s, %t : f32, f32
  } -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %y#0, %y#1 : tensor<4x8xf32>, tensor<4x8xf32>
}
