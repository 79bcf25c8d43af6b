// Models found by fuzzing that crashed ONNX's own shape inference: the
// importer validates every attribute first and reports them.
// RUN: not oneflow-opt %S/Inputs/regressions/maxpool_stride0.onnx 2>&1 | FileCheck %s --check-prefix=STRIDE
// STRIDE: error: MaxPool node 'MaxPool_0': 'strides' entries must be >= 1, got 0
// RUN: not oneflow-opt %S/Inputs/regressions/layernorm_axis.onnx 2>&1 | FileCheck %s --check-prefix=AXIS
// AXIS: error: LayerNormalization node 'LayerNormalization_0': axis -5 is out of range for rank 4
// An opset-1 model whose graph output no node produces: ONNX's checker
// accepts it and its version converter dereferenced the missing value.
// RUN: not oneflow-opt %S/Inputs/regressions/undefined_graph_output.onnx 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: error: graph output 'not' is not produced by any node, input or initializer
// A Split of a scalar: a scalar has no axis 0 to split.
// RUN: not oneflow-opt %S/Inputs/regressions/split_scalar.onnx 2>&1 | FileCheck %s --check-prefix=SPLIT
// SPLIT: error: Split node 'Split_0': axis 0 is out of range for rank 0
// An LRN of int64 values: its float constants do not fit the element type.
// RUN: not oneflow-opt %S/Inputs/regressions/lrn_int64.onnx 2>&1 | FileCheck %s --check-prefix=LRN
// LRN: error: LRN node 'LRN_0': input must be a floating-point tensor
// A SpaceToDepth of 2^62 channels: channels * blocksize^2 overflowed.
// RUN: not oneflow-opt %S/Inputs/regressions/depthspace_blocksize.onnx 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK-DAG: error: TopK node 'topk_smallest': k = 67108866 is out of range [0, 3]
// BLOCK-DAG: error: SpaceToDepth node 'space_to_depth': channels times blocksize^2 overflow
// A Reshape to 2^62 x 4 elements: the product of the requested dims
// overflowed before it was compared with the input's.
// RUN: not oneflow-opt %S/Inputs/regressions/reshape_overflow.onnx 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RESHAPE: error: Reshape node 'reshape_infer_4': shape has more than 2^48 elements
// A Trilu whose k (a float tensor here) is 9.2e18: the cast to int64 was
// undefined; it saturates, and the later nodes' errors are all reported.
// RUN: not oneflow-opt %S/Inputs/regressions/trilu_k_range.onnx 2>&1 | FileCheck %s --check-prefix=TRILU
// TRILU: error: Expand node 'expand_bcast_3x5': cannot broadcast
// A OneHot of depth 2^30: its index constant (8 GiB) was built at import.
// RUN: not oneflow-opt %S/Inputs/regressions/onehot_depth.onnx 2>&1 | FileCheck %s --check-prefix=ONEHOT
// ONEHOT: error: OneHot node 'onehot': depth 1073741829 is out of range
// A Clip whose max bound is an empty constant: its first value was read.
// RUN: not oneflow-opt %S/Inputs/regressions/clip_empty_bound.onnx 2>&1 | FileCheck %s --check-prefix=CLIP
// CLIP: error: Clip node 'clip_oax_only': the max bound must be a scalar
// A OneHot of depth 16,449,541: a 128 MiB constant, built too slowly.
// RUN: not oneflow-opt %S/Inputs/regressions/onehot_depth_slow.onnx 2>&1 | FileCheck %s --check-prefix=ONEHOT2
// ONEHOT2: error: OneHot node 'onehot': depth 16449541 is out of range
// A Range of 89 million elements: its constant was built too slowly.
// RUN: not oneflow-opt %S/Inputs/regressions/range_count_slow.onnx 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: Range node 'range_int64': range of 89478145 elements is too large to fold (at most 4194304)
