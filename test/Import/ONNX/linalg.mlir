// RUN: oneflow-opt %S/Inputs/matmul.onnx | FileCheck %s --check-prefix=MATMUL
// RUN: oneflow-opt %S/Inputs/gemm.onnx | FileCheck %s --check-prefix=GEMM
// RUN: oneflow-opt %S/Inputs/conv.onnx | FileCheck %s --check-prefix=CONV
// RUN: oneflow-opt %S/Inputs/pooling.onnx | FileCheck %s --check-prefix=POOL

// 2-D MatMul is matmul; N-D is batch_matmul with broadcast batch dims; a
// vector operand gains and then loses a unit dimension.
// MATMUL: oneflow.matmul %arg0, %{{.*}} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// MATMUL: oneflow.batch_matmul %arg1, %arg2 : (tensor<2x3x4x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x4x5xf32>
// MATMUL: oneflow.batch_matmul %arg1, %{{.*}} : (tensor<2x3x4x8xf32>, tensor<8x6xf32>) -> tensor<2x3x4x6xf32>
// MATMUL: oneflow.batch_matmul %arg3, %arg4 : (tensor<3x4x8xf32>, tensor<2x1x8x5xf32>) -> tensor<2x3x4x5xf32>
// MATMUL: %[[V:.*]] = oneflow.reshape %{{.*}} : tensor<8xf32> to tensor<8x1xf32>
// MATMUL: %[[MV:.*]] = oneflow.matmul %arg0, %[[V]]
// MATMUL: oneflow.reshape %[[MV]] : tensor<4x1xf32> to tensor<4xf32>

// Gemm: transposes become flags, alpha and beta multiplications.
// GEMM: %[[Y:.*]] = oneflow.matmul %arg0, %{{.*}} {transpose_b} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
// GEMM-NEXT: oneflow.add %[[Y]], %{{.*}} : (tensor<4x16xf32>, tensor<16xf32>)
// GEMM: %[[T:.*]] = oneflow.matmul %arg1, %{{.*}} {transpose_a}
// GEMM: %[[HALF:.*]] = oneflow.constant dense<5.000000e-01> : tensor<f32>
// GEMM: oneflow.mul %[[T]], %[[HALF]]
// GEMM: oneflow.constant dense<2.000000e+00> : tensor<f32>
// GEMM: oneflow.matmul %arg0, %{{.*}} : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
// GEMM-NOT: oneflow.add {{.*}} tensor<4x3xf32>

// CONV: oneflow.conv2d %arg0, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x10x10xf32>
// CONV: oneflow.conv2d {{.*}}dilations = array<i64: 2, 2>, groups = 2 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 2, 2>{{.*}} -> tensor<1x8x5x5xf32>
// Asymmetric pads in [top, left, bottom, right] order; depthwise groups.
// CONV: oneflow.conv2d {{.*}}groups = 4 : i64, pads = array<i64: 0, 1, 1, 0>{{.*}} -> tensor<1x4x9x9xf32>
// CONV: oneflow.conv2d {{.*}}strides = array<i64: 2, 2>{{.*}} -> tensor<1x6x5x5xf32>
// auto_pad SAME_UPPER puts the odd padding at the end.
// CONV: oneflow.conv2d {{.*}}pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>{{.*}} -> tensor<1x2x5x5xf32>

// POOL: oneflow.max_pool2d %arg0 {dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
// POOL: oneflow.max_pool2d {{.*}}pads = array<i64: 1, 1, 1, 1>{{.*}} -> tensor<1x3x8x8xf32>
// POOL: oneflow.avg_pool2d %arg0 {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
// POOL: oneflow.avg_pool2d
// POOL: oneflow.global_avg_pool2d %arg0 : tensor<1x3x8x8xf32> -> tensor<1x3x1x1xf32>
// POOL: oneflow.global_max_pool2d %arg0 : tensor<1x3x8x8xf32> -> tensor<1x3x1x1xf32>
