// RUN: oneflow-opt %s --convert-oneflow-to-linalg -split-input-file | FileCheck %s

// Broadcasting becomes indexing maps: the size-1 dimension of %b reads
// index 0, the missing leading one is dropped.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func @add_broadcast
// CHECK:       linalg.generic {indexing_maps = [#[[ID]], #[[B]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:    ins(%arg0, %arg1 : tensor<2x3x4xf32>, tensor<3x1xf32>)
// CHECK:         arith.addf
func.func @add_broadcast(%a: tensor<2x3x4xf32>, %b: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = oneflow.add %a, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Integer ops use the signed integer arith ops; comparisons produce i1.
// CHECK-LABEL: func @integers
// CHECK: arith.divsi
// CHECK: arith.maxsi
// CHECK: arith.cmpi slt
// CHECK: arith.cmpf une
func.func @integers(%a: tensor<4xi64>, %b: tensor<4xi64>, %f: tensor<4xf32>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi1>, tensor<4xi1>) {
  %0 = oneflow.div %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = oneflow.max %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = oneflow.less %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %3 = oneflow.not_equal %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0, %1, %2, %3 : tensor<4xi64>, tensor<4xi64>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Activation bodies.
// CHECK-LABEL: func @activations
// relu: max(x, 0).
// CHECK: arith.maximumf
// gelu (erf form): 0.5 x (1 + erf(x / sqrt(2))).
// CHECK: arith.constant 0.707106769 : f32
// CHECK: math.erf
// sigmoid: 1 / (1 + exp(-x)).
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.divf
// softplus, stable: max(x, 0) + log1p(exp(-|x|)).
// CHECK: math.absf
// CHECK: math.log1p
func.func @activations(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = oneflow.relu %x : tensor<8xf32>
  %1 = oneflow.gelu %x : tensor<8xf32>
  %2 = oneflow.sigmoid %x : tensor<8xf32>
  %3 = oneflow.softplus %x : tensor<8xf32>
  return %0, %1, %2, %3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Casts pick the arith conversion by source and target type; where selects.
// CHECK-LABEL: func @casts
// CHECK: arith.fptosi {{.*}} : f32 to i32
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: arith.cmpf une
// CHECK: arith.uitofp {{.*}} : i1 to f32
// CHECK: arith.select
func.func @casts(%x: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xf16>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) {
  %0 = oneflow.cast %x : tensor<4xf32> to tensor<4xi32>
  %1 = oneflow.cast %x : tensor<4xf32> to tensor<4xf16>
  %2 = oneflow.cast %x : tensor<4xf32> to tensor<4xi1>
  %3 = oneflow.cast %c : tensor<4xi1> to tensor<4xf32>
  %4 = oneflow.where %c, %x, %3 : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xf16>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A constant condition is stored as bytes and compared with zero: a vector
// of i1 would be loaded bit by bit. A splat or computed condition stays i1.
// CHECK-LABEL: func @where_constant_mask
// CHECK:       %[[MASK:.*]] = arith.constant dense<{{\[}}[1, 0], [1, 1]]> : tensor<2x2xi8>
// CHECK:       linalg.generic {{.*}} ins(%[[MASK]], %{{.*}}, %{{.*}} : tensor<2x2xi8>, tensor<f32>, tensor<2x2xf32>)
// CHECK:         %[[BIT:.*]] = arith.cmpi ne, %{{.*}}, %c0_i8 : i8
// CHECK:         arith.select %[[BIT]]
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x2xi1>, tensor<f32>, tensor<2x2xf32>)
// CHECK-NOT:     arith.cmpi
// CHECK:         arith.select
func.func @where_constant_mask(%x: tensor<2x2xf32>, %c: tensor<2x2xi1>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %mask = oneflow.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
  %inf = oneflow.constant dense<0xFF800000> : tensor<f32>
  %0 = oneflow.where %mask, %inf, %x : (tensor<2x2xi1>, tensor<f32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = oneflow.where %c, %inf, %x : (tensor<2x2xi1>, tensor<f32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<2x2xf32>
}
