// RUN: not oneflow-opt %s --sbp-apply-strategy="mesh=2,2,2,2" 2>&1 | FileCheck %s --check-prefix=MESH
// MESH: error: unsupported mesh: 1 to 3 axes of at least one device each
// RUN: not oneflow-opt %s --sbp-apply-strategy="mesh=2,2 strategy=data" 2>&1 | FileCheck %s --check-prefix=AXES
// AXES: error: strategy 'data' names 1 mesh axes but the mesh has 2
// RUN: not oneflow-opt %s --sbp-apply-strategy="mesh=2 strategy=pipeline" 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: error: unknown SBP strategy 'pipeline' (expected data or tensor)
// RUN: not oneflow-opt %s --sbp-apply-strategy="mesh=0" 2>&1 | FileCheck %s --check-prefix=MESH
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
