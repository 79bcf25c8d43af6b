// RUN: oneflow-opt %S/Inputs/detection.onnx | FileCheck %s
// RUN: not oneflow-opt %S/Inputs/detection_bad.onnx 2>&1 | FileCheck %s --check-prefix=BAD

// NonMaxSuppression's selection (and Unique's distinct entries) is padded to its bound (2 classes x 3 boxes
// from the constant max_output_boxes_per_class) and its valid length rides
// along: each output of data-dependent length is followed by a hidden
// result, its extent.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: -> (tensor<6x3xi64> {onnx.name = "selected"}, tensor<6x4xf32> {onnx.name = "kept_boxes"}, tensor<6xf32> {onnx.name = "kept_max"}, tensor<6x4xf32> {onnx.name = "kept_softmax"}, tensor<4xf32> {onnx.name = "first4_scaled"}, tensor<16x3xi64> {onnx.name = "selected_center"},
// CHECK-SAME: tensor<1x2x8xf32> {onnx.name = "unique_y"}, tensor<8xi64> {onnx.name = "unique_inverse"}, tensor<8xi64> {onnx.name = "unique_counts"}, tensor<16xf32> {onnx.name = "high_scores"},
// CHECK-SAME: tensor<i64> {oneflow.extent_axis = 0 : i64, oneflow.extent_of = "selected", onnx.name = "selected#extent"}
// CHECK-SAME: tensor<i64> {oneflow.extent_axis = 0 : i64, oneflow.extent_of = "kept_boxes", onnx.name = "kept_boxes#extent"}
// CHECK-SAME: tensor<i64> {oneflow.extent_axis = 0 : i64, oneflow.extent_of = "kept_max", onnx.name = "kept_max#extent"}
// CHECK-SAME: tensor<i64> {oneflow.extent_axis = 0 : i64, oneflow.extent_of = "kept_softmax", onnx.name = "kept_softmax#extent"}
// CHECK-SAME: tensor<i64> {oneflow.extent_axis = 0 : i64, oneflow.extent_of = "first4_scaled", onnx.name = "first4_scaled#extent"}
// CHECK-SAME: tensor<i64> {oneflow.extent_axis = 0 : i64, oneflow.extent_of = "selected_center", onnx.name = "selected_center#extent"}
// The distinct slices along axis 2 have their extent on that axis; the
// inverse (one entry per slice of the input) has none.
// CHECK-SAME: tensor<i64> {oneflow.extent_axis = 2 : i64, oneflow.extent_of = "unique_y", onnx.name = "unique_y#extent"}
// CHECK-SAME: tensor<i64> {oneflow.extent_axis = 0 : i64, oneflow.extent_of = "unique_counts", onnx.name = "unique_counts#extent"}
// The non-zero coordinates [3, 16] count along axis 1, their transpose's
// along 0, and so do the scores GatherND picks by them.
// CHECK-SAME: tensor<i64> {oneflow.extent_axis = 0 : i64, oneflow.extent_of = "high_scores", onnx.name = "high_scores#extent"})
// CHECK: %[[MAX:.*]] = oneflow.constant dense<3> : tensor<1xi64>
// CHECK: %[[SEL:.*]], %[[N:.*]] = oneflow.non_max_suppression %arg0, %arg1, %[[MAX]], %{{.*}}, %{{.*}} {max_boxes_bound = 3 : i64} : (tensor<1x8x4xf32>, tensor<1x2x8xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> (tensor<6x3xi64>, tensor<i64>)
// The box column and the boxes gathered by it keep the extent.
// CHECK: %[[COL:.*]] = oneflow.gather %[[SEL]], %{{.*}} {axis = 1 : i64} : (tensor<6x3xi64>, tensor<i64>) -> tensor<6xi64>
// CHECK: %[[KEPT:.*]] = oneflow.gather %{{.*}}, %[[COL]] : (tensor<8x4xf32>, tensor<6xi64>) -> tensor<6x4xf32>
// A slice of the first 4 keeps min(extent, 4).
// CHECK: oneflow.slice %[[COL]] {{.*}} -> tensor<4xi64>
// CHECK: %[[FOUR:.*]] = oneflow.constant dense<4> : tensor<i64>
// CHECK: %[[N4:.*]] = oneflow.min %[[N]], %[[FOUR]]
// CHECK: %[[SCALED:.*]] = oneflow.mul
// A reduction and a softmax along the other axis keep it.
// CHECK: %[[KMAX:.*]] = oneflow.reduce_max %[[KEPT]] {axes = array<i64: 1>} : tensor<6x4xf32> -> tensor<6xf32>
// CHECK: %[[KSOFT:.*]] = oneflow.softmax %[[KEPT]] {axis = 1 : i64} : tensor<6x4xf32>
// A run-time max_output_boxes_per_class: the bound is every box, absent
// score_threshold stays absent.
// CHECK: %[[CSEL:.*]], %[[CN:.*]] = oneflow.non_max_suppression %arg0, %arg1, %arg2, %{{.*}} {center_point_box} : (tensor<1x8x4xf32>, tensor<1x2x8xf32>, tensor<1xi64>, tensor<1xf32>) -> (tensor<16x3xi64>, tensor<i64>)
// CHECK: %[[UY:.*]], %{{.*}}, %[[UINV:.*]], %[[UC:.*]], %[[UN:.*]] = oneflow.unique %arg1 {axis = 2 : i64} : tensor<1x2x8xf32> -> tensor<1x2x8xf32>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<i64>
// CHECK: %[[MASK:.*]] = oneflow.cast %{{.*}} : tensor<1x2x8xi1> to tensor<1x2x8xf64>
// CHECK: %[[COORDS:.*]], %[[NZ:.*]] = oneflow.non_zero %[[MASK]] : tensor<1x2x8xf64> -> tensor<3x16xi64>, tensor<i64>
// CHECK: oneflow.transpose %[[COORDS]] {perm = array<i64: 1, 0>} : tensor<3x16xi64> -> tensor<16x3xi64>
// CHECK: %[[HIGH:.*]] = oneflow.gather %{{.*}}, %{{.*}} : (tensor<16xf32>, tensor<16xi64>) -> tensor<16xf32>
// CHECK: return %[[SEL]], %[[KEPT]], %[[KMAX]], %[[KSOFT]], %[[SCALED]], %[[CSEL]], %[[UY]], %[[UINV]], %[[UC]], %[[HIGH]], %[[N]], %[[N]], %[[N]], %[[N]], %[[N4]], %[[CN]], %[[UN]], %[[UN]], %[[NZ]]

// Every op that would see the padding is named, with the op the length
// comes from.
// BAD: error: ReduceSum node 'bad_sum': input 'selected' has a length along axis 0 that depends on the data (from NonMaxSuppression node 'nms'): it works along that axis
// BAD: error: Shape node 'bad_shape': input 'selected' has a length along axis 0 that depends on the data (from NonMaxSuppression node 'nms'): only elementwise ops, Gather, GatherND, Slice from the start
// BAD: error: Concat node 'bad_concat': {{.*}}: it is concatenated along that axis
// BAD: error: Add node 'bad_add': {{.*}}: it is combined entry by entry with 'fixed', whose length along that axis is fixed
