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
