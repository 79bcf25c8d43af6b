// The stage partitioner on the GPT-style decoder: a contiguous cut of its
// forward program with balanced cost (each of 2 stages between 40% and 60%,
// no stage of 4 above 35%), all ops covered in order.

// RUN: oneflow-opt %S/../../Import/ONNX/Inputs/torch/gpt_opset17.onnx --oneflow-add-loss="label=targets" --oneflow-autodiff --sbp-pipeline-stages="stages=2 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: stage 0: forward ops 0-[[END0:[0-9]+]] ({{[0-9]+}} ops), cost {{.*}} ({{4[0-9]|5[0-9]}}.{{[0-9]}}%)
// TWO-NEXT: stage 1: forward ops {{[0-9]+}}-67 ({{[0-9]+}} ops), cost {{.*}} ({{4[0-9]|5[0-9]}}.{{[0-9]}}%)

// RUN: oneflow-opt %S/../../Import/ONNX/Inputs/torch/gpt_opset17.onnx --oneflow-add-loss="label=targets" --oneflow-autodiff --sbp-pipeline-stages="stages=4 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FOUR
// FOUR: stage 0: forward ops 0-{{[0-9]+}} ({{[0-9]+}} ops), cost {{.*}} ({{[0-9]|[12][0-9]|3[0-4]}}.{{[0-9]}}%)
// FOUR-NEXT: stage 1: {{.*}} ({{[0-9]|[12][0-9]|3[0-4]}}.{{[0-9]}}%)
// FOUR-NEXT: stage 2: {{.*}} ({{[0-9]|[12][0-9]|3[0-4]}}.{{[0-9]}}%)
// FOUR-NEXT: stage 3: forward ops {{[0-9]+}}-67 ({{[0-9]+}} ops), cost {{.*}} ({{[0-9]|[12][0-9]|3[0-4]}}.{{[0-9]}}%)
