// Optimizer updates write each variable in place: the out-parameter of an
// updated result is the buffer of the argument it updates. The kernel
// compiler gives the stores the argument's pointer, so that every buffer of
// every kernel body stays noalias; with two pointers that are equal at run
// time, LLVM's run-time alias check would always pick the scalar loop
// (AdamW's update ran 6x slower).
// RUN: env ONEFLOW_DUMP_KERNELS_LL=%t.adamw.ll oneflow-opt %s --train --label=labels --optimizer=adamw --emit=plan -o %t.adamw
// RUN: grep '^define.*_body(' %t.adamw.ll | FileCheck %s --check-prefix=ADAMW --implicit-check-not='ptr %'
// RUN: env ONEFLOW_DUMP_KERNELS_LL=%t.sgd.ll oneflow-opt %s --train --label=labels --optimizer=sgd --momentum=0.9 --emit=plan -o %t.sgd
// RUN: grep '^define.*_body(' %t.sgd.ll | FileCheck %s --check-prefix=SGD --implicit-check-not='ptr %'

// The update of fc1's weight, its bias and both AdamW moments: 9 inputs and
// 7 results (the step counter's too), every one noalias.
// ADAMW: define internal void @kernel_{{[0-9]+}}_fused_{{[a-z_]+}}_body(ptr noalias %0, ptr noalias %1, ptr noalias %2, ptr noalias %3, ptr noalias %4, ptr noalias %5, ptr noalias %6, ptr noalias %7, ptr noalias %8, ptr noalias %9, ptr noalias %10, ptr noalias %11, ptr noalias %12, ptr noalias %13, ptr noalias %14, ptr noalias %15)
// SGD: define internal void @kernel_{{[0-9]+}}_fused_{{[a-z_]+}}_body(ptr noalias

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
