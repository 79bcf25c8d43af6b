// RUN: oneflow-opt %s | oneflow-opt | FileCheck %s
// RUN: oneflow-opt %s --canonicalize --cse | FileCheck %s --check-prefix=KEEP

// CHECK-LABEL: func @transfers
// CHECK: sbp.send %{{.*}} to 1 {tag = 0 : i64} : tensor<4x6xf32>
// CHECK: %[[A:.*]] = sbp.recv from 1 {tag = 1 : i64} : tensor<4x6xf32>
// CHECK: %[[B:.*]] = sbp.recv from 2 {tag = 2 : i64} : tensor<2xi64>
// CHECK: sbp.send %[[A]] to 3 {tag = 3 : i64} : tensor<4x6xf32>
// CHECK: return %[[A]], %[[B]]
func.func @transfers(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<2xi64>) {
  sbp.send %x to 1 {tag = 0} : tensor<4x6xf32>
  %a = sbp.recv from 1 {tag = 1} : tensor<4x6xf32>
  %b = sbp.recv from 2 {tag = 2} : tensor<2xi64>
  sbp.send %a to 3 {tag = 3} : tensor<4x6xf32>
  return %a, %b : tensor<4x6xf32>, tensor<2xi64>
}

// Neither a send nor a receive whose result is unused is dead code (its
// peer's half must be matched), and two receives are never merged (these
// two are identical to test that; a real program's tags are unique).
// KEEP-LABEL: func @kept
// KEEP-NEXT: sbp.send %{{.*}} to 1 {tag = 4 : i64}
// KEEP-NEXT: sbp.recv from 1 {tag = 5 : i64}
// KEEP-NEXT: %[[R1:.*]] = sbp.recv from 1 {tag = 6 : i64}
// KEEP-NEXT: %[[R2:.*]] = sbp.recv from 1 {tag = 6 : i64}
// KEEP-NEXT: return %[[R1]], %[[R2]]
func.func @kept(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  sbp.send %x to 1 {tag = 4} : tensor<4xf32>
  %unused = sbp.recv from 1 {tag = 5} : tensor<4xf32>
  %r1 = sbp.recv from 1 {tag = 6} : tensor<4xf32>
  %r2 = sbp.recv from 1 {tag = 6} : tensor<4xf32>
  return %r1, %r2 : tensor<4xf32>, tensor<4xf32>
}
