// RUN: oneflow-opt %s --convert-oneflow-to-linalg -split-input-file | FileCheck %s

// A reduction is a generic with reduction iterators over a filled init;
// mean divides by the count; keepdims reshapes back.
// CHECK-LABEL: func @reduce_mean
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       linalg.fill ins(%[[ZERO]] : f32)
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:         arith.addf
// CHECK:       arith.constant 8.000000e+00 : f32
// CHECK:       arith.divf
// CHECK:       tensor.expand_shape
func.func @reduce_mean(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = oneflow.reduce_mean %x {axes = array<i64: 1>, keepdims} : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Max starts from -inf.
// CHECK-LABEL: func @reduce_max
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
func.func @reduce_max(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = oneflow.reduce_max %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// argmax keeps the best value and its index; the first element always
// wins its slot so an all -inf row gives 0.
// CHECK-LABEL: func @argmax
// CHECK: linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xi64>)
// CHECK:   linalg.index 1
// CHECK:   arith.cmpf ogt
// CHECK:   arith.ori
func.func @argmax(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %0 = oneflow.argmax %x {axis = 1 : i64} : tensor<4x8xf32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Softmax subtracts the max before exp and divides by the sum: one divide
// per row (1 / sum), a multiply per element.
// CHECK-LABEL: func @softmax
// CHECK: arith.maximumf
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x1xf32>)
// CHECK:   arith.divf
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[INV]] : tensor<4x8xf32>, tensor<4x1xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   arith.mulf
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Layer norm: mean, centered variance, rsqrt(var + eps), scale and bias.
// CHECK-LABEL: func @layer_norm
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: math.rsqrt
// CHECK-COUNT-2: arith.mulf
// CHECK: arith.addf
func.func @layer_norm(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = oneflow.layer_norm %x, %s, %b {axis = 1 : i64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Cross-entropy: log-softmax, then the negated log-probability of each label
// picked by comparing the class index with it, then the mean.
// CHECK-LABEL: func @cross_entropy
// CHECK: math.log
// CHECK: linalg.index 1
// CHECK: arith.index_cast {{.*}} : i64 to index
// CHECK: arith.cmpi eq
// CHECK: arith.constant 2.500000e-01 : f32
func.func @cross_entropy(%logits: tensor<4x10xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  %0 = oneflow.softmax_cross_entropy %logits, %labels : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}
