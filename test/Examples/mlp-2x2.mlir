// The example that scripts/demo.sh runs must stay valid, with its one
// all-reduce boxing after the row-parallel layer.
// RUN: oneflow-opt %S/../../examples/mlp-2x2.mlir --canonicalize | FileCheck %s
// RUN: oneflow-opt %S/../../examples/mlp-2x2.mlir --test-print-sbp-signatures -o /dev/null | FileCheck %s --check-prefix=SIGS

// CHECK: sbp.mesh @mesh shape = [2, 2] device = "cpu"
// CHECK: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<([S<0>, B], [B, S<1>]) -> ([S<0>, S<1>])>
// CHECK: oneflow.matmul {{.*}}sbp.sig = #sbp.sig<([S<0>, S<1>], [B, S<0>]) -> ([S<0>, P])>
// CHECK: sbp.boxing %{{.*}} from [S<0>, P] to [S<0>, B] on @mesh
// CHECK-NOT: sbp.boxing

// SIGS: func @main
// SIGS-COUNT-4: oneflow.variable
// SIGS: oneflow.matmul: ab,bc->ac | partial: each(0, 1)
