// RUN: oneflow-opt %s -split-input-file | oneflow-opt | FileCheck %s

// CHECK-LABEL: func @collectives
func.func @collectives(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<8x6xf32>, tensor<2x6xf32>, tensor<8x3xf32>) {
  // CHECK: sbp.collective "all_reduce" %{{.*}} group = [0, 1] {tag = 0 : i64}
  %a = sbp.collective "all_reduce" %x group = [0, 1] {tag = 0} : tensor<4x6xf32> -> tensor<4x6xf32>
  // CHECK: sbp.collective "all_gather" %{{.*}} group = [2, 3] {tag = 1 : i64}
  %b = sbp.collective "all_gather" %x group = [2, 3] {tag = 1} : tensor<4x6xf32> -> tensor<8x6xf32>
  // CHECK: sbp.collective "reduce_scatter"
  %c = sbp.collective "reduce_scatter" %x group = [0, 1] {tag = 2} : tensor<4x6xf32> -> tensor<2x6xf32>
  // CHECK: sbp.collective "all_to_all" %{{.*}} group = [0, 1] {axis = 1 : i64, tag = 3 : i64}
  %d = sbp.collective "all_to_all" %x group = [0, 1] {axis = 1, concat_axis = 0, tag = 3} : tensor<4x6xf32> -> tensor<8x3xf32>
  return %a, %b, %c, %d : tensor<4x6xf32>, tensor<8x6xf32>, tensor<2x6xf32>, tensor<8x3xf32>
}
