// Optimizer updates write each variable in place: the out-parameter of an
// updated result is the buffer of the argument it updates. Where the loops
// run over rows of a vector (16 f32 or more), the kernel compiler gives the
// stores the argument's pointer, so that every buffer of the kernel body
// stays noalias; with two pointers that are equal at run time, LLVM's
// run-time alias check would always pick the scalar loop (AdamW's update
// ran 6x slower). fc2's weight has rows of 10, but its update is one loop
// over all 1,280 elements (oneflow-collapse-contiguous-loops), so it keeps
// noalias too. (Loops over rows shorter than a vector that cannot merge
// keep both pointers without noalias: LLVM would vectorize an outer loop
// with gathers and scatters, slower than the scalar loop.)
// RUN: env ONEFLOW_DUMP_KERNELS_LL=%t.adamw.ll oneflow-opt %s --train --label=labels --optimizer=adamw --emit=plan -o %t.adamw
// RUN: grep '^define.*_body(' %t.adamw.ll | FileCheck %s --check-prefix=ADAMW
// RUN: not grep '^define.*_body(.*ptr %' %t.adamw.ll
// RUN: env ONEFLOW_DUMP_KERNELS_LL=%t.sgd.ll oneflow-opt %s --train --label=labels --optimizer=sgd --momentum=0.9 --emit=plan -o %t.sgd
// RUN: grep '^define.*_body(' %t.sgd.ll | FileCheck %s --check-prefix=SGD
// RUN: not grep '^define.*_body(.*ptr %' %t.sgd.ll

// The updates of fc1's and fc2's weights and both AdamW moments, each fused
// with its gradient's product (and the step counter, a scalar): every
// buffer noalias.
// ADAMW-DAG: define internal void @kernel_{{[0-9]+}}_fused_matmul_body(ptr noalias %0, ptr noalias %1, ptr noalias %2, ptr noalias %3, ptr noalias %4, ptr noalias %5, ptr noalias %6, ptr noalias %7, ptr noalias %8, ptr noalias %9, ptr noalias %10, ptr noalias %11, ptr noalias %12, ptr noalias %13, ptr noalias %14, ptr noalias %15)
// ADAMW-DAG: define internal void @kernel_{{[0-9]+}}_fused_matmul_body(ptr noalias %0, ptr noalias %1, ptr noalias %2, ptr noalias %3, ptr noalias %4, ptr noalias %5, ptr noalias %6, ptr noalias %7, ptr noalias %8, ptr noalias %9)
// SGD with momentum: fc1's and fc2's weights and buffers noalias.
// SGD-DAG: define internal void @kernel_{{[0-9]+}}_fused_matmul_body(ptr noalias %0, ptr noalias %1, ptr noalias %2, ptr noalias %3, ptr noalias %4, ptr noalias %5) #0

func.func @main(%x: tensor<64x96xf32> {onnx.name = "x"}) -> (tensor<64x10xf32> {onnx.name = "logits"}) {
  %w1 = oneflow.variable @fc1.weight {initializer = #oneflow.init<normal, mean = 0.0, std = 0.02, seed = 1>} : tensor<96x128xf32>
  %b1 = oneflow.variable @fc1.bias {initializer = #oneflow.init<zeros>} : tensor<128xf32>
  %w2 = oneflow.variable @fc2.weight {initializer = #oneflow.init<normal, mean = 0.0, std = 0.02, seed = 2>} : tensor<128x10xf32>
  %h1 = oneflow.matmul %x, %w1 : (tensor<64x96xf32>, tensor<96x128xf32>) -> tensor<64x128xf32>
  %a1 = oneflow.add %h1, %b1 : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %r1 = oneflow.relu %a1 : tensor<64x128xf32>
  %y = oneflow.matmul %r1, %w2 : (tensor<64x128xf32>, tensor<128x10xf32>) -> tensor<64x10xf32>
  return %y : tensor<64x10xf32>
}
