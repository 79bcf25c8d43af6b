// RUN: oneflow-opt %S/Inputs/unary.onnx | FileCheck %s --check-prefix=UNARY
// RUN: oneflow-opt %S/Inputs/binary_broadcast.onnx | FileCheck %s --check-prefix=BINARY
// RUN: oneflow-opt %S/Inputs/cast_clip.onnx | FileCheck %s --check-prefix=CAST

// Node names become locations.
// RUN: oneflow-opt %S/Inputs/unary.onnx --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// UNARY: oneflow.relu %arg0 : tensor<2x3x4xf32>
// UNARY: oneflow.sigmoid
// UNARY: oneflow.tanh
// UNARY: oneflow.exp
// UNARY: oneflow.log
// UNARY: oneflow.sqrt
// UNARY: oneflow.neg
// UNARY: oneflow.abs
// UNARY: oneflow.erf
// UNARY: oneflow.reciprocal
// UNARY: oneflow.ceil
// UNARY: oneflow.floor
// UNARY: oneflow.sin
// UNARY: oneflow.softplus
// UNARY: oneflow.softsign
// UNARY: oneflow.leaky_relu %arg0 {alpha = 0.10000000149011612 : f64}
// UNARY: oneflow.elu %arg0 {alpha = 5.000000e-01 : f64}
// UNARY: oneflow.selu %arg0 {alpha = 1.6732631921768188 : f64, gamma = 1.0507010221481323 : f64}
// UNARY: oneflow.hard_sigmoid %arg0 {alpha = 2.500000e-01 : f64, beta = 0.40000000596046448 : f64}
// UNARY: oneflow.sign
// UNARY: oneflow.not %arg1 : tensor<2x3x4xi1>

// LOC: oneflow.relu {{.*}} loc(#[[RELU:.*]])
// LOC: #[[RELU]] = loc("unary_relu"(

// Numpy broadcasting is kept as is; variadic Max folds left.
// BINARY: oneflow.add %arg0, %arg1 : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
// BINARY: oneflow.sub %arg0, %arg2 : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// BINARY: oneflow.mul %arg1, %arg2 : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// BINARY: oneflow.div
// BINARY: oneflow.pow %arg0, %{{.*}} : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
// BINARY: %[[M:.*]] = oneflow.max %arg0, %arg1
// BINARY: oneflow.max %[[M]], %arg2
// BINARY: oneflow.min
// BINARY: oneflow.and
// BINARY: oneflow.or
// BINARY: oneflow.xor
// BINARY: oneflow.equal {{.*}} -> tensor<2x3x4xi1>
// BINARY: oneflow.less
// BINARY: oneflow.less_equal
// BINARY: oneflow.greater {{.*}} -> tensor<3x4xi1>
// BINARY: oneflow.greater_equal
// BINARY: oneflow.where %arg3, %arg0, %arg2 : (tensor<2x3x4xi1>, tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// BINARY: oneflow.add %arg5, %arg6 : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>

// Integer and boolean initializers are constants, not parameters.
// CAST-NOT: oneflow.variable @clip_min
// Clip bounds known at import time become attributes.
// CAST: oneflow.cast %arg0 : tensor<2x3xf32> to tensor<2x3xi32>
// CAST: oneflow.cast %arg0 : tensor<2x3xf32> to tensor<2x3xf16>
// CAST: oneflow.cast %arg0 : tensor<2x3xf32> to tensor<2x3xi1>
// CAST: oneflow.cast %arg0 : tensor<2x3xf32> to tensor<2x3xf64>
// CAST: oneflow.cast %arg1 : tensor<2x3xi64> to tensor<2x3xf32>
// CAST: oneflow.clip %arg0 {max = 5.000000e-01 : f64, min = -5.000000e-01 : f64}
// CAST: oneflow.clip %arg0 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CAST: oneflow.clip %arg0 {min = -5.000000e-01 : f64}
// CAST: oneflow.clip %arg0 {max = 5.000000e-01 : f64}
