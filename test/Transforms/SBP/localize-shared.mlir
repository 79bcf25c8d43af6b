// RUN: oneflow-opt %s -split-input-file --sbp-localize="share-programs=true" | FileCheck %s

// One program for the four devices of a 2x2 mesh: the input is cut by the
// rank's coordinates, the split weight keeps its whole data for each rank
// to load its piece, the collectives name their mesh axis and carry the
// first device's group and tag.

sbp.mesh @mesh shape = [2, 2] device = "cpu"
func.func @main(%x: tensor<4x6xf32> {sbp.nd = #sbp.nd<[S<0>, B]>}) -> tensor<4x2xf32>
    attributes {sbp.placement = @mesh} {
  %w1 = oneflow.variable @w1 {initial_value = dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]> : tensor<6x4xf32>, sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> ([B, S<1>])>} : tensor<6x4xf32>
  %w2 = oneflow.variable @w2 {initial_value = dense<0.0> : tensor<4x2xf32>, sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> ([B, S<0>])>} : tensor<4x2xf32>
  %h = oneflow.matmul %x, %w1 {sbp.placement = @mesh, sbp.sig = #sbp.sig<([S<0>, B], [B, S<1>]) -> ([S<0>, S<1>])>} : (tensor<4x6xf32>, tensor<6x4xf32>) -> tensor<4x4xf32>
  %y = oneflow.matmul %h, %w2 {sbp.placement = @mesh, sbp.sig = #sbp.sig<([S<0>, S<1>], [B, S<0>]) -> ([S<0>, P])>} : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %r = sbp.boxing %y from [S<0>, P] to [B, B] on @mesh : tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// CHECK: module attributes {sbp.num_ranks = 4 : i64, sbp.role_mesh_shape = array<i64: 2, 2>}
// CHECK-LABEL: func.func @main_rank0(
// CHECK-SAME: %[[X:.*]]: tensor<4x6xf32>) -> tensor<4x2xf32>
// CHECK-SAME: attributes {sbp.role_members = array<i64: 0, 1, 2, 3>}
// CHECK: %[[C:.*]] = oneflow.variable @mesh.coordinates {initializer = #oneflow.init<mesh_coordinates>} : tensor<2xi64>
// CHECK: oneflow.coordinate_slice %[[X]], %[[C]] {axis = 0 : i64, mesh_axis = 0 : i64, step = 2 : i64} : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<2x6xf32>
// CHECK: oneflow.variable @w1 {oneflow.logical_name = "w1", oneflow.logical_offsets = array<i64: 0, 0>, oneflow.logical_shape = array<i64: 6, 4>,
// CHECK-SAME{LITERAL}: oneflow.mesh_splits = [array<i64>, array<i64: 1>], oneflow.whole_value = dense<[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00],
// CHECK-SAME: } : tensor<6x2xf32>
// A splat is the same piece everywhere.
// CHECK: oneflow.variable @w2 {initial_value = dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-SAME{LITERAL}: oneflow.mesh_splits = [array<i64: 1>, array<i64>]
// CHECK: oneflow.matmul {{.*}} -> tensor<2x2xf32>
// CHECK: %[[Y:.*]] = oneflow.matmul {{.*}} -> tensor<2x2xf32>
// CHECK: %[[R:.*]] = sbp.collective "all_reduce" %[[Y]] group = [0, 1] {mesh_axis = 1 : i64, tag = 0 : i64}
// CHECK: %[[G:.*]] = sbp.collective "all_gather" %[[R]] group = [0, 2] {mesh_axis = 0 : i64, tag = 4 : i64}
// CHECK: return %[[G]]
// CHECK-NOT: func.func @main_rank1

// -----

// Broadcast-to-partial keeps the value where the coordinate is 0; split to
// partial places the piece by the coordinate (a negative step).

sbp.mesh @m shape = [2] device = "cpu"
func.func @main(%x: tensor<4x6xf32> {sbp.nd = #sbp.nd<[S<0>]>}) -> (tensor<4x6xf32>, tensor<4x6xf32>)
    attributes {sbp.placement = @m} {
  %b = sbp.boxing %x from [S<0>] to [P] on @m : tensor<4x6xf32>
  %w = sbp.boxing %b from [P] to [B] on @m : tensor<4x6xf32>
  %c = oneflow.constant {sbp.placement = @m, sbp.sig = #sbp.sig<() -> ([P])>} dense<1.0> : tensor<4x6xf32>
  %v = sbp.boxing %c from [P] to [B] on @m : tensor<4x6xf32>
  return %w, %v : tensor<4x6xf32>, tensor<4x6xf32>
}

// CHECK-LABEL: func.func @main_rank0(
// CHECK: %[[C:.*]] = oneflow.variable @mesh.coordinates
// CHECK: %[[S:.*]] = oneflow.coordinate_slice %{{.*}}, %[[C]] {axis = 0 : i64, mesh_axis = 0 : i64, step = 2 : i64}
// CHECK: oneflow.coordinate_slice %[[S]], %[[C]] {axis = 0 : i64, mesh_axis = 0 : i64, step = -2 : i64} : (tensor<2x6xf32>, tensor<1xi64>) -> tensor<4x6xf32>
// CHECK: sbp.collective "all_reduce" {{.*}}mesh_axis = 0
// CHECK: %[[K:.*]] = oneflow.constant dense<1.000000e+00> : tensor<4x6xf32>
// CHECK: %[[AT:.*]] = oneflow.slice %[[C]] {limits = array<i64: 1>, starts = array<i64: 0>
// CHECK: %[[CO:.*]] = oneflow.reshape %[[AT]] : tensor<1xi64> to tensor<i64>
// CHECK: %[[FIRST:.*]] = oneflow.equal %[[CO]], %{{.*}}
// CHECK: oneflow.where %[[FIRST]], %[[K]], %{{.*}} : (tensor<i1>, tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
