// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @boxes_not_corners(%boxes: tensor<1x6x5xf32>, %scores: tensor<1x1x6xf32>, %max: tensor<1xi64>, %iou: tensor<1xf32>) {
  // expected-error @+2 {{boxes must be [batches, boxes, 4], not 'tensor<1x6x5xf32>'}}
  // expected-error @+1 {{'oneflow.non_max_suppression' op failed to infer returned types}}
  %s, %n = oneflow.non_max_suppression %boxes, %scores, %max, %iou : (tensor<1x6x5xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>) -> (tensor<6x3xi64>, tensor<i64>)
  return
}

// -----

func.func @scores_other_boxes(%boxes: tensor<1x6x4xf32>, %scores: tensor<1x1x5xf32>, %max: tensor<1xi64>, %iou: tensor<1xf32>) {
  // expected-error @+2 {{scores must be [1, classes, 6], not 'tensor<1x1x5xf32>'}}
  // expected-error @+1 {{'oneflow.non_max_suppression' op failed to infer returned types}}
  %s, %n = oneflow.non_max_suppression %boxes, %scores, %max, %iou : (tensor<1x6x4xf32>, tensor<1x1x5xf32>, tensor<1xi64>, tensor<1xf32>) -> (tensor<6x3xi64>, tensor<i64>)
  return
}

// -----

func.func @threshold_not_scalar(%boxes: tensor<1x6x4xf32>, %scores: tensor<1x1x6xf32>, %max: tensor<1xi64>, %iou: tensor<2xf32>) {
  // expected-error @+2 {{hold one value each, not 'tensor<2xf32>'}}
  // expected-error @+1 {{'oneflow.non_max_suppression' op failed to infer returned types}}
  %s, %n = oneflow.non_max_suppression %boxes, %scores, %max, %iou : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<2xf32>) -> (tensor<6x3xi64>, tensor<i64>)
  return
}

// -----

func.func @wrong_bound(%boxes: tensor<1x6x4xf32>, %scores: tensor<1x2x6xf32>, %max: tensor<1xi64>, %iou: tensor<1xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x3xi64>', 'tensor<i64>' are incompatible with return type(s) of operation 'tensor<12x3xi64>', 'tensor<i64>'}}
  // expected-error @+1 {{'oneflow.non_max_suppression' op failed to infer returned types}}
  %s, %n = oneflow.non_max_suppression %boxes, %scores, %max, %iou {max_boxes_bound = 2 : i64} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xf32>) -> (tensor<12x3xi64>, tensor<i64>)
  return
}

// -----

func.func @negative_bound(%boxes: tensor<1x6x4xf32>, %scores: tensor<1x2x6xf32>, %max: tensor<1xi64>, %iou: tensor<1xf32>) {
  // expected-error @+1 {{attribute 'max_boxes_bound' failed to satisfy constraint}}
  %s, %n = oneflow.non_max_suppression %boxes, %scores, %max, %iou {max_boxes_bound = -1 : i64} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xf32>) -> (tensor<12x3xi64>, tensor<i64>)
  return
}
