// Models found by fuzzing that crashed ONNX's own shape inference: the
// importer validates every attribute first and reports them.
// RUN: not oneflow-opt %S/Inputs/regressions/maxpool_stride0.onnx 2>&1 | FileCheck %s --check-prefix=STRIDE
// STRIDE: error: MaxPool node 'MaxPool_0': 'strides' entries must be >= 1, got 0
// RUN: not oneflow-opt %S/Inputs/regressions/layernorm_axis.onnx 2>&1 | FileCheck %s --check-prefix=AXIS
// AXIS: error: LayerNormalization node 'LayerNormalization_0': axis -5 is out of range for rank 4
