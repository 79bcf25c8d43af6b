// RUN: oneflow-opt %S/Inputs/recurrent_resize.onnx | FileCheck %s
// RUN: not oneflow-opt %S/Inputs/recurrent_bad.onnx 2>&1 | FileCheck %s --check-prefix=BAD

// LSTM: one input projection for all 5 steps with both biases summed, then
// per step the recurrent product, the iofc split and the peepholes on the
// input and forget gates (before their sigmoids).
// CHECK-LABEL: func.func @main
// CHECK: %[[XW:.*]] = oneflow.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<10x3xf32>, tensor<16x3xf32>) -> tensor<10x16xf32>
// CHECK: %[[BIAS:.*]] = oneflow.add %{{.*}}, %{{.*}} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
// CHECK: oneflow.add %[[XW]], %[[BIAS]] : (tensor<10x16xf32>, tensor<16xf32>) -> tensor<10x16xf32>
// CHECK: %[[HR:.*]] = oneflow.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<2x4xf32>, tensor<16x4xf32>) -> tensor<2x16xf32>
// CHECK: %[[PRE:.*]] = oneflow.add %{{.*}}, %[[HR]]
// CHECK: %[[G:.*]]:4 = oneflow.split %[[PRE]] {axis = 1 : i64, sizes = array<i64: 4, 4, 4, 4>}
// CHECK: %[[PI:.*]] = oneflow.mul %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<2x4xf32>)
// CHECK: %[[I:.*]] = oneflow.add %[[G]]#0, %[[PI]]
// CHECK: oneflow.sigmoid %[[I]]
// Y stacks 5 steps: [seq, dirs, batch, hidden].
// CHECK: oneflow.concat {{.*}} -> tensor<5x2x4xf32>
// CHECK: oneflow.reshape %{{.*}} : tensor<5x2x4xf32> to tensor<5x1x2x4xf32>

// GRU, bidirectional, with run-time sequence lengths: steps past a
// sequence's length keep its state and output zeros.
// CHECK: oneflow.cast %{{.*}} : tensor<2xi32> to tensor<2xi64>
// CHECK: oneflow.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<10x3xf32>, tensor<9x3xf32>) -> tensor<10x9xf32>
// CHECK: %[[MASK:.*]] = oneflow.less %{{.*}}, %{{.*}} : (tensor<i64>, tensor<2x1xi64>) -> tensor<2x1xi1>
// CHECK: oneflow.where %[[MASK]], %{{.*}}, %{{.*}} : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK: oneflow.where %[[MASK]], %{{.*}}, %{{.*}} : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: oneflow.concat {{.*}} -> tensor<5x2x2x3xf32>

// RNN, reverse, batch-first (layout 1), Relu.
// CHECK: oneflow.transpose %arg3 {perm = array<i64: 1, 0, 2>} : tensor<2x5x3xf32> -> tensor<5x2x3xf32>
// CHECK: oneflow.relu
// CHECK: oneflow.transpose %{{.*}} {perm = array<i64: 2, 0, 1, 3>} : tensor<5x1x2x2xf32> -> tensor<2x5x1x2xf32>

// Resize linear x2: the inner axis H through a broadcast batch_matmul, the
// last axis W through a matmul with the transposed weights.
// CHECK: oneflow.batch_matmul %{{.*}}, %{{.*}} : (tensor<8x4xf32>, tensor<2x4x4xf32>) -> tensor<2x8x4xf32>
// CHECK: oneflow.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<16x4xf32>, tensor<8x4xf32>) -> tensor<16x8xf32>
// Nearest to [8, 6] (asymmetric, floor): gathers of constant rows.
// CHECK: %[[ROWS:.*]] = oneflow.constant dense<[0, 0, 1, 1, 2, 2, 3, 3]> : tensor<8xi64>
// CHECK: oneflow.gather %arg2, %[[ROWS]] {axis = 2 : i64}
// CHECK: %[[COLS:.*]] = oneflow.constant dense<[0, 0, 1, 2, 2, 3]> : tensor<6xi64>
// CHECK: oneflow.gather %{{.*}}, %[[COLS]] {axis = 3 : i64} : (tensor<1x2x8x4xf32>, tensor<6xi64>) -> tensor<1x2x8x6xf32>
// Cubic, W halved, exclude_outside: only that axis.
// CHECK: oneflow.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>

// Einsum bti,ij (implicit output bjt): one matmul, then a transpose.
// CHECK: oneflow.matmul %{{.*}}, %arg4 : (tensor<10x3xf32>, tensor<3x3xf32>) -> tensor<10x3xf32>
// CHECK: oneflow.transpose %{{.*}} {perm = array<i64: 0, 2, 1>} : tensor<2x5x3xf32> -> tensor<2x3x5xf32>
// Einsum ii->i: the diagonal as a masked sum.
// CHECK: oneflow.mul %arg4, %{{.*}} : (tensor<3x3xf32>, tensor<3x3xf32>)
// CHECK: oneflow.reduce_sum %{{.*}} {axes = array<i64: 1>} : tensor<3x3xf32> -> tensor<3xf32>
// ReverseSequence (batch axis 0, time axis 1): per batch, step t reads step
// len - 1 - t while t < len, itself after; a GatherElements along time.
// CHECK: %[[T:.*]] = oneflow.constant dense<{{\[\[\[}}0], [1], [2], [3], [4]]]> : tensor<1x5x1xi64>
// CHECK: %[[LEN:.*]] = oneflow.reshape %arg5 : tensor<2xi64> to tensor<2x1x1xi64>
// CHECK: %[[LAST:.*]] = oneflow.sub %[[LEN]], %{{.*}}
// CHECK: %[[REV:.*]] = oneflow.sub %[[LAST]], %[[T]] : (tensor<2x1x1xi64>, tensor<1x5x1xi64>) -> tensor<2x5x1xi64>
// CHECK: %[[IN:.*]] = oneflow.less %[[T]], %[[LEN]]
// CHECK: %[[IDX:.*]] = oneflow.where %[[IN]], %[[REV]], %[[T]]
// CHECK: %[[FULL:.*]] = oneflow.expand %[[IDX]] : tensor<2x5x1xi64> to tensor<2x5x3xi64>
// CHECK: oneflow.gather_elements %arg3, %[[FULL]] {axis = 1 : i64} : (tensor<2x5x3xf32>, tensor<2x5x3xi64>) -> tensor<2x5x3xf32>

// BAD: recurrent_bad.onnx:0:0: error: LSTM node 'lstm_bad_w': W must be [1, 16, 3], got 'tensor<1x16x2xf32>'
