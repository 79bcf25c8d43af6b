// RUN: oneflow-opt %s -split-input-file | oneflow-opt | FileCheck %s

// CHECK-LABEL: func @corners
// CHECK: %{{.*}}, %{{.*}} = oneflow.non_max_suppression %arg0, %arg1, %arg2, %arg3, %arg4 {max_boxes_bound = 2 : i64} : (tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> (tensor<12x3xi64>, tensor<i64>)
func.func @corners(%boxes: tensor<2x5x4xf32>, %scores: tensor<2x3x5xf32>,
                   %max: tensor<1xi64>, %iou: tensor<1xf32>,
                   %threshold: tensor<1xf32>) -> (tensor<12x3xi64>, tensor<i64>) {
  %selected, %n = oneflow.non_max_suppression %boxes, %scores, %max, %iou, %threshold {max_boxes_bound = 2 : i64} : (tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> (tensor<12x3xi64>, tensor<i64>)
  return %selected, %n : tensor<12x3xi64>, tensor<i64>
}

// -----

// Without a bound every box of every class may survive; no score threshold.
// CHECK-LABEL: func @centers
// CHECK: oneflow.non_max_suppression %arg0, %arg1, %arg2, %arg3 {center_point_box} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<i64>, tensor<f32>) -> (tensor<6x3xi64>, tensor<i64>)
func.func @centers(%boxes: tensor<1x6x4xf32>, %scores: tensor<1x1x6xf32>,
                   %max: tensor<i64>, %iou: tensor<f32>) -> tensor<6x3xi64> {
  %selected, %n = oneflow.non_max_suppression %boxes, %scores, %max, %iou {center_point_box} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<i64>, tensor<f32>) -> (tensor<6x3xi64>, tensor<i64>)
  return %selected : tensor<6x3xi64>
}
