// RUN: oneflow-opt %s --oneflow-fuse-elementwise-loops -split-input-file | FileCheck %s

#map = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d1)>

// GELU's forward keeps its pre-activation and erf term for the backward
// pass: one loop nest computes and stores all three values.
// CHECK-LABEL: func.func @kept_values
// CHECK:         %[[R:.*]]:3 = linalg.generic
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>)
// CHECK:           %[[PRE:.*]] = arith.addf
// CHECK:           %[[ERF:.*]] = math.erf %[[PRE]]
// CHECK:           %[[Y:.*]] = arith.mulf %[[PRE]], %[[ERF]]
// CHECK:           linalg.yield %[[Y]], %[[ERF]], %[[PRE]]
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]#0, %[[R]]#2, %[[R]]#1
func.func @kept_values(%x: tensor<4x8xf32>, %b: tensor<8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %pre = linalg.generic {indexing_maps = [#map, #bcast, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %erf = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%pre : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.erf %in : f32
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%pre, %erf : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %y, %pre, %erf : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// A consumer reading the shared value transposed still reads each element
// once: the producer's loops are permuted into the consumer's.
// CHECK-LABEL: func.func @transposed_reader
// CHECK:         %[[R:.*]]:2 = linalg.generic
// CHECK-SAME:      indexing_maps = [#[[T:.*]], #[[ID:.*]], #[[T]]]
// CHECK-SAME:      ins(%arg0 : tensor<4x8xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]#0, %[[R]]#1
func.func @transposed_reader(%x: tensor<4x8xf32>) -> (tensor<8x4xf32>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [#t, #map], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x8xf32>) outs(%e1 : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<8x4xf32>
  return %y, %p : tensor<8x4xf32>, tensor<4x8xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#bcast = affine_map<(d0, d1) -> (d1)>

// Not into a reduction (the value would be stored inside its loops) nor into
// a consumer that reads it broadcast (it would be computed and stored again
// for every broadcast index): three loop nests stay.
// CHECK-LABEL: func.func @not_merged
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     linalg.generic
func.func @not_merged(%x: tensor<8xf32>, %z: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = math.exp %in : f32
    linalg.yield %n : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#bcast, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%p, %z : tensor<8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %m = arith.mulf %in, %w : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
      ins(%b : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %s, %b, %p : tensor<4xf32>, tensor<4x8xf32>, tensor<8xf32>
}
