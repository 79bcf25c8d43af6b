// oneflow-opt --mesh distributes the graph: strategy, inference, boxing, and
// the report with --sbp-report.
// RUN: oneflow-opt %S/../../Import/ONNX/Inputs/torch/mlp_opset17.onnx --mesh=2x2 --sbp-strategy=data,tensor --sbp-report -o %t.mlir | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// REPORT: SBP report: mesh [2, 2] of cpu devices
// REPORT: oneflow.matmul (/fc1/Gemm): #sbp.sig<([S<0>, B], [B, S<0>]) -> ([S<0>, S<1>])>
// REPORT: total: {{[0-9]+}} boxings, {{[0-9]+}} bytes per device per step
// IR: sbp.mesh @mesh shape = [2, 2] device = "cpu"
// IR: func.func @main(%arg0: tensor<8x64xf32> {onnx.name = "x", sbp.nd = #sbp.nd<[S<0>, B]>})
// IR: sbp.boxing {{.*}} to [B, B] on @mesh : tensor<8x10xf32>

// The report names every boxing by its tensor's source and use (ONNX node,
// parameter, input, optimizer update), costliest first, with totals per
// collective kind.
// RUN: oneflow-opt %S/../../Import/ONNX/Inputs/torch/mlp_opset17.onnx --train --label=y --mesh=2x2 --sbp-strategy=data,tensor --sbp-report -o /dev/null | FileCheck %s --check-prefix=NAMES
// NAMES: boxings by cost (bytes each device sends):
// NAMES-NEXT: {{^ +}}16384 B  /fc2/Gemm (backward) -> update of fc2.weight: [S<0>, S<1>] -> [B, S<0>] of tensor<64x128xf32> (all-gather on axis 0, all-to-all on axis 1)
// NAMES: 8192 B  /fc1/Gemm (backward) -> update of fc1.weight: [S<1>, S<0>] -> [B, S<0>] of tensor<128x64xf32> (all-gather on axis 0)
// NAMES: 1024 B  /relu/Relu -> /fc2/Gemm: [S<0>, S<1>] -> [S<0>, B] of tensor<8x128xf32> (all-gather on axis 1)
// NAMES: 512 B  input x -> /fc1/Gemm (backward): [S<0>, B] -> [S<1>, B] of tensor<8x64xf32> (all-to-all on axis 0)
// NAMES: 512 B  /fc1/Gemm (backward) -> update of fc1.bias: [P, S<0>] -> [B, B] of tensor<128xf32> (all-reduce on axis 0, all-gather on axis 1)
// NAMES: 0 B  parameter fc1.bias -> /fc1/Gemm: [B, B] -> [B, S<0>] of tensor<128xf32> (local-slice on axis 1)
// NAMES: per kind: local-slice 5x, 0 B; all-gather 13x, 21684 B; reduce-scatter 2x, 1104 B; all-to-all 5x, 9336 B; all-reduce 5x, 412 B
// NAMES-NEXT: total: 22 boxings, 32536 bytes per device per step

// With a cluster file, every boxing also gets its predicted seconds (the
// collective of each mesh axis timed by the cost model over the link level
// the axis spans) and the lines are sorted by them: on the A100 file the
// loss's two all-reduces (2 x 4 alpha of NVLink) come first.
// RUN: oneflow-opt %S/../../Import/ONNX/Inputs/torch/mlp_opset17.onnx --train --label=y --mesh=2x2 --sbp-strategy=data,tensor --sbp-report --simulate=%S/../../../clusters/a100-80gb-sxm.json -o /dev/null | FileCheck %s --check-prefix=PRICED
// PRICED: boxings by cost (bytes each device sends, predicted seconds on 8x A100-80GB SXM4 per node, NVLink 3, 8x HDR InfiniBand):
// PRICED-NEXT: {{^ +}}8 B    8.00e-06 s  loss -> func.return: [P, P] -> [B, B] of tensor<f32> (all-reduce on axis 1, all-reduce on axis 0)
// PRICED: per kind: local-slice 5x, 0 B, 0.00e+00 s; all-gather 13x, 21684 B, {{.*}} s;
// PRICED: total: 22 boxings, 32536 bytes per device per step, {{.*}} s on 8x A100-80GB SXM4 per node
// A bad cluster file is an error before anything is compiled.
// RUN: not oneflow-opt %S/../../Import/ONNX/Inputs/torch/mlp_opset17.onnx --mesh=2 --sbp-report --simulate=%s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADCLUSTER
// BADCLUSTER: error: --simulate: {{.*}}cli.mlir

// Bad options are diagnostics with exit code 1.
// RUN: not oneflow-opt %S/../../Import/ONNX/Inputs/torch/mlp_opset17.onnx --mesh=2x2x2x2 2>&1 | FileCheck %s --check-prefix=MESH
// MESH: error: --mesh: unsupported mesh '2x2x2x2': 1 to 3 axes
// RUN: not oneflow-opt %S/../../Import/ONNX/Inputs/torch/mlp_opset17.onnx --mesh=2xq 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: error: --mesh: invalid mesh '2xq': expected N or RxC with positive sizes
// RUN: not oneflow-opt %S/../../Import/ONNX/Inputs/torch/mlp_opset17.onnx --mesh=2 --sbp-strategy=pipeline 2>&1 | FileCheck %s --check-prefix=STRATEGY
// STRATEGY: error: unknown SBP strategy 'pipeline' (expected data or tensor)
// RUN: not oneflow-opt %S/../../Import/ONNX/Inputs/torch/mlp_opset17.onnx --mesh=2 --device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: --device=tpu: expected cpu, cuda, or cuda:ARCH with ARCH one of sm_75,

// Under `tensor`, the fused QKV projection is split per piece and attention
// runs split by heads: scores are computed per head with no boxing.
// RUN: oneflow-opt %S/../../Import/ONNX/Inputs/torch/gpt_opset17.onnx --mesh=2 --sbp-strategy=tensor --sbp-report -o /dev/null | FileCheck %s --check-prefix=HEADS
// HEADS: oneflow.reshape (/blocks.0/attn/Reshape): #sbp.sig<(S<2>) -> (S<2>)>
// HEADS: oneflow.transpose (/blocks.0/attn/Transpose): #sbp.sig<(S<2>) -> (S<1>)>
// HEADS: oneflow.batch_matmul (/blocks.0/attn/MatMul): #sbp.sig<(S<1>, S<1>) -> (S<1>)>
// HEADS-NOT: boxing
// HEADS: oneflow.batch_matmul (/blocks.0/attn/MatMul_1): #sbp.sig<(S<1>, S<1>) -> (S<1>)>
