// RUN: oneflow-opt %s --oneflow-fold-gemm-aux-epilogues -split-input-file | FileCheck %s

// Fragments of training steps as oneflow-autodiff writes them (phases in
// the locations): a linear layer with its activation, the next layer's
// forward product, and the backward product computing the gradient that
// flows into the activation, then the activation's gradient.

#fwd = loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["fc1"])
#bwd = loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["fc1"])

// ReLU with its bias gradient next to it: the forward keeps the bit mask
// (RELU_AUX_BIAS; 128 columns are one 128-bit row of four i32 words), the
// backward product reads it (DRELU_BGRAD) and the column sum of dpre is
// its second result. The comparison, cast and product are gone.
// CHECK-LABEL: func.func @relu_bgrad
// CHECK-NOT:  oneflow.constant
// CHECK:      %[[H:.*]], %[[MASK:.*]] = oneflow.matmul_act_aux %arg0, %arg1, %arg2 {activation = #oneflow.epilogue_activation<relu>, transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> (tensor<8x128xf32>, tensor<8x4xi32>)
// CHECK-NEXT: %[[Y:.*]] = oneflow.matmul %[[H]], %arg3 {transpose_b}
// CHECK-NEXT: %[[DPRE:.*]], %[[DB:.*]] = oneflow.matmul_act_grad %arg4, %arg3, %[[MASK]] {activation = #oneflow.epilogue_activation<relu>} : (tensor<8x32xf32>, tensor<32x128xf32>, tensor<8x4xi32>) -> (tensor<8x128xf32>, tensor<128xf32>)
// CHECK-NEXT: %[[DW:.*]] = oneflow.matmul %[[DPRE]], %arg0 {transpose_a}
// CHECK-NEXT: return %[[Y]], %[[DW]], %[[DB]]
func.func @relu_bgrad(%x: tensor<8x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<32x128xf32>, %dy: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<128x64xf32>, tensor<128xf32>) {
  %zero = oneflow.constant dense<0.0> : tensor<f32> loc(#bwd)
  %0 = oneflow.matmul %x, %w1 {transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>) -> tensor<8x128xf32> loc(#fwd)
  %1 = oneflow.add %0, %b1 : (tensor<8x128xf32>, tensor<128xf32>) -> tensor<8x128xf32> loc(#fwd)
  %2 = oneflow.relu %1 : tensor<8x128xf32> loc(#fwd)
  %3 = oneflow.matmul %2, %w2 {transpose_b} : (tensor<8x128xf32>, tensor<32x128xf32>) -> tensor<8x32xf32> loc(#fwd)
  %4 = oneflow.matmul %dy, %w2 : (tensor<8x32xf32>, tensor<32x128xf32>) -> tensor<8x128xf32> loc(#bwd)
  %5 = oneflow.greater %1, %zero : (tensor<8x128xf32>, tensor<f32>) -> tensor<8x128xi1> loc(#bwd)
  %6 = oneflow.cast %5 : tensor<8x128xi1> to tensor<8x128xf32> loc(#bwd)
  %7 = oneflow.mul %4, %6 : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32> loc(#bwd)
  %8 = oneflow.reduce_sum %7 {axes = array<i64: 0>} : tensor<8x128xf32> -> tensor<128xf32> loc(#bwd)
  %9 = oneflow.matmul %7, %x {transpose_a} : (tensor<8x128xf32>, tensor<8x64xf32>) -> tensor<128x64xf32> loc(#bwd)
  return %3, %9, %8 : tensor<8x32xf32>, tensor<128x64xf32>, tensor<128xf32>
}

// -----

#fwd = loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["fc1"])
#bwd = loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["fc1"])

// Without the bias gradient next to it (here a sum over the rows, which is
// not one: cuBLASLt's sums the columns of its output), DRELU alone; the
// mask of 130 columns takes two 128-bit rows. The row sum stays.
// CHECK-LABEL: func.func @relu_without_bias_gradient
// CHECK:      %[[H:.*]], %[[MASK:.*]] = oneflow.matmul_act_aux {{.*}} -> (tensor<8x130xf32>, tensor<8x8xi32>)
// CHECK:      %[[DPRE:.*]] = oneflow.matmul_act_grad %arg4, %arg3, %[[MASK]] {activation = #oneflow.epilogue_activation<relu>, transpose_a} : (tensor<32x8xf32>, tensor<32x130xf32>, tensor<8x8xi32>) -> tensor<8x130xf32>
// CHECK-NEXT: %[[ROWS:.*]] = oneflow.reduce_sum %[[DPRE]] {axes = array<i64: 1>}
// CHECK-NOT:  oneflow.greater
func.func @relu_without_bias_gradient(%x: tensor<8x64xf32>, %w1: tensor<130x64xf32>, %b1: tensor<130xf32>, %w2: tensor<32x130xf32>, %dyT: tensor<32x8xf32>) -> (tensor<8x32xf32>, tensor<8xf32>) {
  %zero = oneflow.constant dense<0.0> : tensor<f32> loc(#bwd)
  %0 = oneflow.matmul %x, %w1 {transpose_b} : (tensor<8x64xf32>, tensor<130x64xf32>) -> tensor<8x130xf32> loc(#fwd)
  %1 = oneflow.add %b1, %0 : (tensor<130xf32>, tensor<8x130xf32>) -> tensor<8x130xf32> loc(#fwd)
  %2 = oneflow.relu %1 : tensor<8x130xf32> loc(#fwd)
  %3 = oneflow.matmul %2, %w2 {transpose_b} : (tensor<8x130xf32>, tensor<32x130xf32>) -> tensor<8x32xf32> loc(#fwd)
  %4 = oneflow.matmul %dyT, %w2 {transpose_a} : (tensor<32x8xf32>, tensor<32x130xf32>) -> tensor<8x130xf32> loc(#bwd)
  %5 = oneflow.greater %1, %zero : (tensor<8x130xf32>, tensor<f32>) -> tensor<8x130xi1> loc(#bwd)
  %6 = oneflow.cast %5 : tensor<8x130xi1> to tensor<8x130xf32> loc(#bwd)
  %7 = oneflow.mul %6, %4 : (tensor<8x130xf32>, tensor<8x130xf32>) -> tensor<8x130xf32> loc(#bwd)
  %8 = oneflow.reduce_sum %7 {axes = array<i64: 1>} : tensor<8x130xf32> -> tensor<8xf32> loc(#bwd)
  return %3, %8 : tensor<8x32xf32>, tensor<8xf32>
}

// -----

#fwd = loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["fc1"])
#bwd = loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["fc1"])

// GELU in tanh form as PyTorch exports it, and the backward oneflow-autodiff
// derives from that arithmetic (reading tanh(u), 1 + tanh(u) and x^2 kept by
// the forward): GELU_AUX_BIAS keeps the pre-activation instead (12 columns
// padded to 16), DGELU_BGRAD reads it, and none of the arithmetic is left
// (nor the constants only it read).
// CHECK-LABEL: func.func @tanh_gelu_arithmetic
// CHECK-NOT:  oneflow.constant
// CHECK-NOT:  oneflow.tanh
// CHECK:      %[[H:.*]], %[[PRE:.*]] = oneflow.matmul_act_aux %arg0, %arg1, %arg2 {activation = #oneflow.epilogue_activation<gelu_tanh>, transpose_b} : (tensor<4x6xf32>, tensor<12x6xf32>, tensor<12xf32>) -> (tensor<4x12xf32>, tensor<4x16xf32>)
// CHECK-NEXT: oneflow.matmul %[[H]], %arg3 {transpose_b}
// CHECK-NEXT: %[[DPRE:.*]], %[[DB:.*]] = oneflow.matmul_act_grad %arg4, %arg3, %[[PRE]] {activation = #oneflow.epilogue_activation<gelu_tanh>} : (tensor<4x5xf32>, tensor<5x12xf32>, tensor<4x16xf32>) -> (tensor<4x12xf32>, tensor<12xf32>)
// CHECK-NEXT: oneflow.matmul %[[DPRE]], %arg0 {transpose_a}
// CHECK-NOT:  oneflow.tanh
func.func @tanh_gelu_arithmetic(%x: tensor<4x6xf32>, %w1: tensor<12x6xf32>, %b1: tensor<12xf32>, %w2: tensor<5x12xf32>, %dy: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<12x6xf32>, tensor<12xf32>) {
  %c = oneflow.constant dense<4.471500e-02> : tensor<f32> loc(#fwd)
  %k = oneflow.constant dense<0.797884583> : tensor<f32> loc(#fwd)
  %one = oneflow.constant dense<1.000000e+00> : tensor<f32> loc(#fwd)
  %half = oneflow.constant dense<5.000000e-01> : tensor<f32> loc(#fwd)
  %0 = oneflow.matmul %x, %w1 {transpose_b} : (tensor<4x6xf32>, tensor<12x6xf32>) -> tensor<4x12xf32> loc(#fwd)
  %1 = oneflow.add %0, %b1 : (tensor<4x12xf32>, tensor<12xf32>) -> tensor<4x12xf32> loc(#fwd)
  %2 = oneflow.mul %1, %1 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#fwd)
  %3 = oneflow.mul %1, %2 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#fwd)
  %4 = oneflow.mul %c, %3 : (tensor<f32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#fwd)
  %5 = oneflow.add %1, %4 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#fwd)
  %6 = oneflow.mul %k, %5 : (tensor<f32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#fwd)
  %7 = oneflow.tanh %6 : tensor<4x12xf32> loc(#fwd)
  %8 = oneflow.add %one, %7 : (tensor<f32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#fwd)
  %9 = oneflow.mul %1, %8 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#fwd)
  %10 = oneflow.mul %half, %9 : (tensor<f32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#fwd)
  %11 = oneflow.matmul %10, %w2 {transpose_b} : (tensor<4x12xf32>, tensor<5x12xf32>) -> tensor<4x5xf32> loc(#fwd)
  %12 = oneflow.matmul %dy, %w2 : (tensor<4x5xf32>, tensor<5x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %13 = oneflow.mul %12, %half : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %14 = oneflow.mul %13, %8 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %15 = oneflow.mul %13, %1 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %16 = oneflow.mul %7, %7 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %17 = oneflow.sub %one, %16 : (tensor<f32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %18 = oneflow.mul %15, %17 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %19 = oneflow.mul %18, %k : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %20 = oneflow.add %14, %19 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %21 = oneflow.mul %19, %c : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %22 = oneflow.mul %21, %2 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %23 = oneflow.mul %21, %1 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %24 = oneflow.add %20, %22 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %25 = oneflow.mul %23, %1 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %26 = oneflow.mul %23, %1 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %27 = oneflow.add %24, %25 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %28 = oneflow.add %27, %26 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %29 = oneflow.reduce_sum %28 {axes = array<i64: 0>} : tensor<4x12xf32> -> tensor<12xf32> loc(#bwd)
  %30 = oneflow.matmul %28, %x {transpose_a} : (tensor<4x12xf32>, tensor<4x6xf32>) -> tensor<12x6xf32> loc(#bwd)
  return %11, %30, %29 : tensor<4x5xf32>, tensor<12x6xf32>, tensor<12xf32>
}

// -----

#fwd = loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["fc1"])
#bwd = loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["fc1"])

// oneflow.gelu in tanh form (ONNX Gelu, opset 20) and its gradient rule,
// which recomputes tanh(u) from x: the same fold. The rule's constants are
// f64 values rounded to f32 (within the 1e-6 the check allows).
// CHECK-LABEL: func.func @tanh_gelu_op
// CHECK:      oneflow.matmul_act_aux {{.*}}activation = #oneflow.epilogue_activation<gelu_tanh>{{.*}} -> (tensor<4x12xf32>, tensor<4x16xf32>)
// CHECK:      oneflow.matmul_act_grad {{.*}} -> tensor<4x12xf32>
// CHECK-NOT:  oneflow.gelu
// CHECK-NOT:  oneflow.tanh
func.func @tanh_gelu_op(%x: tensor<4x6xf32>, %w1: tensor<12x6xf32>, %b1: tensor<12xf32>, %w2: tensor<5x12xf32>, %dy: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<12x6xf32>) {
  %c = oneflow.constant dense<4.471500e-02> : tensor<f32> loc(#bwd)
  %c3 = oneflow.constant dense<1.341450e-01> : tensor<f32> loc(#bwd)
  %k = oneflow.constant dense<0.797884583> : tensor<f32> loc(#bwd)
  %one = oneflow.constant dense<1.000000e+00> : tensor<f32> loc(#bwd)
  %half = oneflow.constant dense<5.000000e-01> : tensor<f32> loc(#bwd)
  %0 = oneflow.matmul %x, %w1 {transpose_b} : (tensor<4x6xf32>, tensor<12x6xf32>) -> tensor<4x12xf32> loc(#fwd)
  %1 = oneflow.add %0, %b1 : (tensor<4x12xf32>, tensor<12xf32>) -> tensor<4x12xf32> loc(#fwd)
  %2 = oneflow.gelu %1 {approximate = #oneflow.gelu_approximation<tanh>} : tensor<4x12xf32> loc(#fwd)
  %3 = oneflow.matmul %2, %w2 {transpose_b} : (tensor<4x12xf32>, tensor<5x12xf32>) -> tensor<4x5xf32> loc(#fwd)
  %4 = oneflow.matmul %dy, %w2 : (tensor<4x5xf32>, tensor<5x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  // 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2), t = tanh(k (x + c x^3))
  %x2 = oneflow.mul %1, %1 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %x3 = oneflow.mul %x2, %1 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %cx3 = oneflow.mul %x3, %c : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %s = oneflow.add %1, %cx3 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %u = oneflow.mul %s, %k : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %t = oneflow.tanh %u : tensor<4x12xf32> loc(#bwd)
  %a = oneflow.mul %x2, %c3 : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %b = oneflow.add %one, %a : (tensor<f32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %du = oneflow.mul %b, %k : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %opt = oneflow.add %one, %t : (tensor<f32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %left = oneflow.mul %opt, %half : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %t2 = oneflow.mul %t, %t : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %omt2 = oneflow.sub %one, %t2 : (tensor<f32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %r0 = oneflow.mul %1, %omt2 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %r1 = oneflow.mul %r0, %du : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %right = oneflow.mul %r1, %half : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %deriv = oneflow.add %left, %right : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %5 = oneflow.mul %4, %deriv : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %6 = oneflow.matmul %5, %x {transpose_a} : (tensor<4x12xf32>, tensor<4x6xf32>) -> tensor<12x6xf32> loc(#bwd)
  return %3, %6 : tensor<4x5xf32>, tensor<12x6xf32>
}

// -----

#fwd = loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["fc1"])
#bwd = loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["fc1"])

// Erf GELU (nn.GELU()'s default) and its exact derivative: cuBLASLt's GELU
// is the tanh form, so nothing folds.
// CHECK-LABEL: func.func @erf_gelu_is_left_alone
// CHECK-NOT:  oneflow.matmul_act
// CHECK:      oneflow.gelu
// CHECK-NOT:  oneflow.matmul_act
func.func @erf_gelu_is_left_alone(%x: tensor<4x6xf32>, %w1: tensor<12x6xf32>, %b1: tensor<12xf32>, %w2: tensor<5x12xf32>, %dy: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x12xf32>) {
  %r = oneflow.constant dense<0.707106769> : tensor<f32> loc(#bwd)
  %p = oneflow.constant dense<0.398942292> : tensor<f32> loc(#bwd)
  %mhalf = oneflow.constant dense<-5.000000e-01> : tensor<f32> loc(#bwd)
  %one = oneflow.constant dense<1.000000e+00> : tensor<f32> loc(#bwd)
  %half = oneflow.constant dense<5.000000e-01> : tensor<f32> loc(#bwd)
  %0 = oneflow.matmul %x, %w1 {transpose_b} : (tensor<4x6xf32>, tensor<12x6xf32>) -> tensor<4x12xf32> loc(#fwd)
  %1 = oneflow.add %0, %b1 : (tensor<4x12xf32>, tensor<12xf32>) -> tensor<4x12xf32> loc(#fwd)
  %2 = oneflow.gelu %1 : tensor<4x12xf32> loc(#fwd)
  %3 = oneflow.matmul %2, %w2 {transpose_b} : (tensor<4x12xf32>, tensor<5x12xf32>) -> tensor<4x5xf32> loc(#fwd)
  %4 = oneflow.matmul %dy, %w2 : (tensor<4x5xf32>, tensor<5x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  // Phi(x) + x phi(x)
  %z = oneflow.mul %1, %r : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %e = oneflow.erf %z : tensor<4x12xf32> loc(#bwd)
  %ope = oneflow.add %one, %e : (tensor<f32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %cdf = oneflow.mul %ope, %half : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %x2 = oneflow.mul %1, %1 : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %hx2 = oneflow.mul %x2, %mhalf : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %ex = oneflow.exp %hx2 : tensor<4x12xf32> loc(#bwd)
  %pdf = oneflow.mul %ex, %p : (tensor<4x12xf32>, tensor<f32>) -> tensor<4x12xf32> loc(#bwd)
  %xp = oneflow.mul %1, %pdf : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %deriv = oneflow.add %cdf, %xp : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  %5 = oneflow.mul %4, %deriv : (tensor<4x12xf32>, tensor<4x12xf32>) -> tensor<4x12xf32> loc(#bwd)
  return %3, %5 : tensor<4x5xf32>, tensor<4x12xf32>
}

// -----

#fwd = loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["fc1"])
#bwd = loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["fc1"])

// A backward product with k = 1 (a next layer of one output): cuBLASLt
// runs no DRELU product with k = 1, so nothing folds.
// CHECK-LABEL: func.func @k_of_one
// CHECK-NOT:  oneflow.matmul_act
// CHECK:      oneflow.relu
// CHECK-NOT:  oneflow.matmul_act
func.func @k_of_one(%x: tensor<8x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<1x128xf32>, %dy: tensor<8x1xf32>) -> (tensor<8x1xf32>, tensor<128xf32>) {
  %zero = oneflow.constant dense<0.0> : tensor<f32> loc(#bwd)
  %0 = oneflow.matmul %x, %w1 {transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>) -> tensor<8x128xf32> loc(#fwd)
  %1 = oneflow.add %0, %b1 : (tensor<8x128xf32>, tensor<128xf32>) -> tensor<8x128xf32> loc(#fwd)
  %2 = oneflow.relu %1 : tensor<8x128xf32> loc(#fwd)
  %3 = oneflow.matmul %2, %w2 {transpose_b} : (tensor<8x128xf32>, tensor<1x128xf32>) -> tensor<8x1xf32> loc(#fwd)
  %4 = oneflow.matmul %dy, %w2 : (tensor<8x1xf32>, tensor<1x128xf32>) -> tensor<8x128xf32> loc(#bwd)
  %5 = oneflow.greater %1, %zero : (tensor<8x128xf32>, tensor<f32>) -> tensor<8x128xi1> loc(#bwd)
  %6 = oneflow.cast %5 : tensor<8x128xi1> to tensor<8x128xf32> loc(#bwd)
  %7 = oneflow.mul %4, %6 : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32> loc(#bwd)
  %8 = oneflow.reduce_sum %7 {axes = array<i64: 0>} : tensor<8x128xf32> -> tensor<128xf32> loc(#bwd)
  return %3, %8 : tensor<8x1xf32>, tensor<128xf32>
}

// -----

#fwd = loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["fc1"])
#bwd = loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["fc1"])

// The backward product writes dh transposed ([n, m], which cuBLASLt's D
// cannot be: the mask is in the forward's layout) and a transpose brings
// it back: nothing folds.
// CHECK-LABEL: func.func @transposed_gradient
// CHECK-NOT:  oneflow.matmul_act
// CHECK:      oneflow.transpose
// CHECK-NOT:  oneflow.matmul_act
func.func @transposed_gradient(%x: tensor<8x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<32x128xf32>, %dy: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x128xf32>) {
  %zero = oneflow.constant dense<0.0> : tensor<f32> loc(#bwd)
  %0 = oneflow.matmul %x, %w1 {transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>) -> tensor<8x128xf32> loc(#fwd)
  %1 = oneflow.add %0, %b1 : (tensor<8x128xf32>, tensor<128xf32>) -> tensor<8x128xf32> loc(#fwd)
  %2 = oneflow.relu %1 : tensor<8x128xf32> loc(#fwd)
  %3 = oneflow.matmul %2, %w2 {transpose_b} : (tensor<8x128xf32>, tensor<32x128xf32>) -> tensor<8x32xf32> loc(#fwd)
  %4 = oneflow.matmul %w2, %dy {transpose_a, transpose_b} : (tensor<32x128xf32>, tensor<8x32xf32>) -> tensor<128x8xf32> loc(#bwd)
  %5 = oneflow.transpose %4 {perm = array<i64: 1, 0>} : tensor<128x8xf32> -> tensor<8x128xf32> loc(#bwd)
  %6 = oneflow.greater %1, %zero : (tensor<8x128xf32>, tensor<f32>) -> tensor<8x128xi1> loc(#bwd)
  %7 = oneflow.cast %6 : tensor<8x128xi1> to tensor<8x128xf32> loc(#bwd)
  %8 = oneflow.mul %5, %7 : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32> loc(#bwd)
  return %3, %8 : tensor<8x32xf32>, tensor<8x128xf32>
}

// -----

#fwd = loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["fc1"])
#bwd = loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["fc1"])

// The backward is not ReLU's derivative (it keeps the gradient where the
// pre-activation exceeds 0.5): the evaluation at sample points tells, and
// nothing folds.
// CHECK-LABEL: func.func @not_the_derivative
// CHECK-NOT:  oneflow.matmul_act
// CHECK:      oneflow.greater
// CHECK-NOT:  oneflow.matmul_act
func.func @not_the_derivative(%x: tensor<8x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<32x128xf32>, %dy: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x128xf32>) {
  %threshold = oneflow.constant dense<0.5> : tensor<f32> loc(#bwd)
  %0 = oneflow.matmul %x, %w1 {transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>) -> tensor<8x128xf32> loc(#fwd)
  %1 = oneflow.add %0, %b1 : (tensor<8x128xf32>, tensor<128xf32>) -> tensor<8x128xf32> loc(#fwd)
  %2 = oneflow.relu %1 : tensor<8x128xf32> loc(#fwd)
  %3 = oneflow.matmul %2, %w2 {transpose_b} : (tensor<8x128xf32>, tensor<32x128xf32>) -> tensor<8x32xf32> loc(#fwd)
  %4 = oneflow.matmul %dy, %w2 : (tensor<8x32xf32>, tensor<32x128xf32>) -> tensor<8x128xf32> loc(#bwd)
  %5 = oneflow.greater %1, %threshold : (tensor<8x128xf32>, tensor<f32>) -> tensor<8x128xi1> loc(#bwd)
  %6 = oneflow.cast %5 : tensor<8x128xi1> to tensor<8x128xf32> loc(#bwd)
  %7 = oneflow.mul %4, %6 : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32> loc(#bwd)
  return %3, %7 : tensor<8x32xf32>, tensor<8x128xf32>
}

// -----

#fwd = loc(fused<{oneflow.provenance = ["forward", 0, 0]}>["fc1"])
#bwd = loc(fused<{oneflow.provenance = ["backward", 0, 0]}>["fc1"])

// The pre-activation is an output too: it must still be computed, so the
// forward keeps its product; nothing folds. Nor without a bias (no
// RELU_AUX), nor in an inference graph (no backward).
// CHECK-LABEL: func.func @pre_activation_used
// CHECK-NOT:  oneflow.matmul_act
// CHECK-LABEL: func.func @no_bias
// CHECK-NOT:  oneflow.matmul_act
// CHECK-LABEL: func.func @inference
// CHECK-NOT:  oneflow.matmul_act
func.func @pre_activation_used(%x: tensor<8x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>, %w2: tensor<32x128xf32>, %dy: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x128xf32>, tensor<8x128xf32>) {
  %zero = oneflow.constant dense<0.0> : tensor<f32> loc(#bwd)
  %0 = oneflow.matmul %x, %w1 {transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>) -> tensor<8x128xf32> loc(#fwd)
  %1 = oneflow.add %0, %b1 : (tensor<8x128xf32>, tensor<128xf32>) -> tensor<8x128xf32> loc(#fwd)
  %2 = oneflow.relu %1 : tensor<8x128xf32> loc(#fwd)
  %3 = oneflow.matmul %2, %w2 {transpose_b} : (tensor<8x128xf32>, tensor<32x128xf32>) -> tensor<8x32xf32> loc(#fwd)
  %4 = oneflow.matmul %dy, %w2 : (tensor<8x32xf32>, tensor<32x128xf32>) -> tensor<8x128xf32> loc(#bwd)
  %5 = oneflow.greater %1, %zero : (tensor<8x128xf32>, tensor<f32>) -> tensor<8x128xi1> loc(#bwd)
  %6 = oneflow.cast %5 : tensor<8x128xi1> to tensor<8x128xf32> loc(#bwd)
  %7 = oneflow.mul %4, %6 : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32> loc(#bwd)
  return %3, %7, %1 : tensor<8x32xf32>, tensor<8x128xf32>, tensor<8x128xf32>
}
func.func @no_bias(%x: tensor<8x64xf32>, %w1: tensor<128x64xf32>, %w2: tensor<32x128xf32>, %dy: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x128xf32>) {
  %zero = oneflow.constant dense<0.0> : tensor<f32> loc(#bwd)
  %1 = oneflow.matmul %x, %w1 {transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>) -> tensor<8x128xf32> loc(#fwd)
  %2 = oneflow.relu %1 : tensor<8x128xf32> loc(#fwd)
  %3 = oneflow.matmul %2, %w2 {transpose_b} : (tensor<8x128xf32>, tensor<32x128xf32>) -> tensor<8x32xf32> loc(#fwd)
  %4 = oneflow.matmul %dy, %w2 : (tensor<8x32xf32>, tensor<32x128xf32>) -> tensor<8x128xf32> loc(#bwd)
  %5 = oneflow.greater %1, %zero : (tensor<8x128xf32>, tensor<f32>) -> tensor<8x128xi1> loc(#bwd)
  %6 = oneflow.cast %5 : tensor<8x128xi1> to tensor<8x128xf32> loc(#bwd)
  %7 = oneflow.mul %4, %6 : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32> loc(#bwd)
  return %3, %7 : tensor<8x32xf32>, tensor<8x128xf32>
}
func.func @inference(%x: tensor<8x64xf32>, %w1: tensor<128x64xf32>, %b1: tensor<128xf32>) -> tensor<8x128xf32> {
  %0 = oneflow.matmul %x, %w1 {transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>) -> tensor<8x128xf32>
  %1 = oneflow.add %0, %b1 : (tensor<8x128xf32>, tensor<128xf32>) -> tensor<8x128xf32>
  %2 = oneflow.relu %1 : tensor<8x128xf32>
  return %2 : tensor<8x128xf32>
}
