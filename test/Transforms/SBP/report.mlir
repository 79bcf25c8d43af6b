// RUN: oneflow-opt %s --sbp-infer --sbp-insert-boxing --sbp-print-report -o /dev/null | FileCheck %s

// CHECK: SBP report: mesh [2] of cpu devices
// CHECK: oneflow.matmul: #sbp.sig<(B, S<1>) -> (S<1>)>
// CHECK: oneflow.matmul: #sbp.sig<(S<1>, S<0>) -> (P)>
// An all-reduce of 8 x 64 f32 (2048 bytes) over 2 devices sends 2048 bytes.
// CHECK: 2048 B  oneflow.matmul -> func.return: [P] -> [B] of tensor<8x64xf32> (all-reduce on axis 0)
// CHECK-NEXT: per kind: all-reduce 1x, 2048 B
// CHECK: total: 1 boxings, 2048 bytes per device per step
sbp.mesh @mesh shape = [2] device = "cpu"
func.func @main(%x: tensor<8x64xf32>) -> tensor<8x64xf32> attributes {sbp.placement = @mesh} {
  %w1 = oneflow.variable @fc1 {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> (S<1>)>} : tensor<64x256xf32>
  %w2 = oneflow.variable @fc2 {sbp.placement = @mesh, sbp.sig = #sbp.sig<() -> (S<0>)>} : tensor<256x64xf32>
  %h = oneflow.matmul %x, %w1 : (tensor<8x64xf32>, tensor<64x256xf32>) -> tensor<8x256xf32>
  %y = oneflow.matmul %h, %w2 : (tensor<8x256xf32>, tensor<256x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
