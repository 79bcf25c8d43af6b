// RUN: oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=4" --oneflow-optimizer --sbp-pipeline-stages="stages=2 schedule=interleaved virtual-stages=2 report=true" 2>%t.report | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// RUN: oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=4" --oneflow-optimizer --sbp-pipeline-stages="stages=2 schedule=1f1b report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONEF
// RUN: not oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=4" --oneflow-optimizer --sbp-pipeline-stages="stages=4 schedule=interleaved virtual-stages=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FEW
// RUN: oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=4" --oneflow-optimizer --sbp-pipeline-stages="stages=2 schedule=interleaved virtual-stages=2 memory-limit=5200" | FileCheck %s
// RUN: not oneflow-opt %s --oneflow-add-loss --oneflow-autodiff="microbatches=4" --oneflow-optimizer --sbp-pipeline-stages="stages=2 schedule=interleaved virtual-stages=2 memory-limit=5000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT

// Four equal layers, 2 stages of 2 chunks each: the cut makes 4 chunks of
// one layer; chunk c runs on stage c mod 2.
// CHECK-LABEL: func.func @main(
// CHECK: oneflow.matmul %{{.*}}, %{{.*}} {oneflow.stage = 0 : i64}
// CHECK: oneflow.matmul %{{.*}}, %{{.*}} {oneflow.stage = 1 : i64}
// CHECK: oneflow.matmul %{{.*}}, %{{.*}} {oneflow.stage = 2 : i64}
// CHECK: oneflow.matmul %{{.*}}, %{{.*}} {oneflow.stage = 3 : i64}

// The memory estimate of a chunk: its weight and gradient (2 x 1024 bytes)
// plus the activation its backward reads (128 bytes per micro-batch) times
// the most micro-batches it holds at once in the interleaved order. Stage 0
// runs F0 F1 F0' F1' F2 B0' F3 B1' F2' B0 ... (' = chunk 1): 4 of chunk 0
// (2048 + 512) and 2 of chunk 1; stage 1 runs F0 F1 F0' B0' F1' B1' F2 B0
// F3 ...: 3 of chunk 0 and 1 of chunk 1.
// REPORT: chunk 0 of stage 0: forward ops 0-0 (1 ops), cost {{.*}}, memory estimate 2560 bytes
// REPORT: chunk 0 of stage 1: forward ops 1-1 (1 ops), cost {{.*}}, memory estimate 2432 bytes
// REPORT: chunk 1 of stage 0: forward ops 2-2 (1 ops), cost {{.*}}, memory estimate 2304 bytes
// REPORT: chunk 1 of stage 1: forward ops 3-5 (3 ops), cost {{.*}}, memory estimate 2176 bytes

// 1F1B: 2 micro-batches in flight on stage 0, 1 on stage 1, of half the
// model each. Interleaving holds more on stage 0 (4864 bytes against 4608),
// as Megatron-LM's analysis says: the price of the smaller bubble.
// ONEF: stage 0: forward ops 0-1 (2 ops), cost {{.*}}, memory estimate 4608 bytes
// ONEF: stage 1: forward ops 2-5 (4 ops), cost {{.*}}, memory estimate 4352 bytes

// A rank's memory limit gives each of its 2 chunks half: 2600 bytes fits
// every chunk above, 2500 not chunk 0 of stage 0, and 3 stages cannot
// interleave 4 micro-batches.
// LIMIT: error: no cut into 2 pipeline stages keeps every stage under the memory limit of 5000 bytes per rank; none of up to 3 stages fits

// FEW: error: cannot cut the graph into 8 chunks: its forward program has only
func.func @main(%x: tensor<8x16xf32> {onnx.name = "x"}) -> (tensor<8x16xf32> {onnx.name = "logits"}) {
  %w1 = oneflow.variable @w1 {initial_value = dense<0.5> : tensor<16x16xf32>} : tensor<16x16xf32>
  %w2 = oneflow.variable @w2 {initial_value = dense<0.25> : tensor<16x16xf32>} : tensor<16x16xf32>
  %w3 = oneflow.variable @w3 {initial_value = dense<0.125> : tensor<16x16xf32>} : tensor<16x16xf32>
  %w4 = oneflow.variable @w4 {initial_value = dense<0.0625> : tensor<16x16xf32>} : tensor<16x16xf32>
  %h1 = oneflow.matmul %x, %w1 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %h2 = oneflow.matmul %h1, %w2 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %h3 = oneflow.matmul %h2, %w3 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %y = oneflow.matmul %h3, %w4 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
