// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func @batch_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4x4xf32>, %[[S:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %[[M:.*]]: tensor<3xf32>, %[[V:.*]]: tensor<3xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.batch_norm %[[X]], %[[S]], %[[B]], %[[M]], %[[V]] : tensor<2x3x4x4xf32>, tensor<3xf32>{{$}}
// CHECK-NEXT:    oneflow.batch_norm %[[X]], %[[S]], %[[B]], %[[M]], %[[V]] {epsilon = 1.000000e-03 : f64} : tensor<2x3x4x4xf32>, tensor<3xf32>{{$}}
// GENERIC-LABEL: sym_name = "batch_norm"
// GENERIC:       "oneflow.batch_norm"({{.*}}) <{epsilon = 1.000000e-05 : f64}> : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
func.func @batch_norm(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %0 = oneflow.batch_norm %x, %s, %b, %m, %v : tensor<2x3x4x4xf32>, tensor<3xf32>
  %1 = oneflow.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-3} : tensor<2x3x4x4xf32>, tensor<3xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

// Any rank >= 2 with channels on axis 1; the parameters may have another
// float type than the input (mixed precision).
// CHECK-LABEL: func @batch_norm_ranks(
// CHECK-NEXT:    oneflow.batch_norm %{{.*}} : tensor<8x16xf16>, tensor<16xf32>{{$}}
// CHECK-NEXT:    oneflow.batch_norm %{{.*}} : tensor<2x4x3x3x3xbf16>, tensor<4xbf16>{{$}}
// CHECK-NEXT:    oneflow.batch_norm %{{.*}} : tensor<2x5x7xf64>, tensor<5xf64>{{$}}
func.func @batch_norm_ranks(%a: tensor<8x16xf16>, %pa: tensor<16xf32>, %b: tensor<2x4x3x3x3xbf16>, %pb: tensor<4xbf16>,
                            %c: tensor<2x5x7xf64>, %pc: tensor<5xf64>) {
  %0 = oneflow.batch_norm %a, %pa, %pa, %pa, %pa : tensor<8x16xf16>, tensor<16xf32>
  %1 = oneflow.batch_norm %b, %pb, %pb, %pb, %pb : tensor<2x4x3x3x3xbf16>, tensor<4xbf16>
  %2 = oneflow.batch_norm %c, %pc, %pc, %pc, %pc : tensor<2x5x7xf64>, tensor<5xf64>
  return
}

// -----

// Five results: y, the new running statistics and the saved batch
// statistics, all but y shaped like the parameters.
// CHECK-LABEL: func @batch_norm_train(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8x2x2xf32>, %[[P:.*]]: tensor<8xf32>
// CHECK-NEXT:    %[[Y:.*]], %[[NM:.*]], %[[NV:.*]], %[[SM:.*]], %[[SI:.*]] = oneflow.batch_norm_train %[[X]], %[[P]], %[[P]], %[[P]], %[[P]] : tensor<4x8x2x2xf32>, tensor<8xf32>{{$}}
// CHECK-NEXT:    oneflow.batch_norm_train %[[X]], %[[P]], %[[P]], %[[P]], %[[P]] {epsilon = 1.000000e-03 : f64, momentum = 0.000000e+00 : f64} : tensor<4x8x2x2xf32>, tensor<8xf32>{{$}}
// CHECK-NEXT:    return %[[Y]], %[[NM]], %[[NV]], %[[SM]], %[[SI]] : tensor<4x8x2x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
// GENERIC-LABEL: sym_name = "batch_norm_train"
// GENERIC:       "oneflow.batch_norm_train"({{.*}}) <{epsilon = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64}> : (tensor<4x8x2x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8x2x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
func.func @batch_norm_train(%x: tensor<4x8x2x2xf32>, %p: tensor<8xf32>)
    -> (tensor<4x8x2x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %y, %nm, %nv, %sm, %si = oneflow.batch_norm_train %x, %p, %p, %p, %p : tensor<4x8x2x2xf32>, tensor<8xf32>
  %0:5 = oneflow.batch_norm_train %x, %p, %p, %p, %p {epsilon = 1.0e-3, momentum = 0.0} : tensor<4x8x2x2xf32>, tensor<8xf32>
  return %y, %nm, %nv, %sm, %si : tensor<4x8x2x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// CHECK-LABEL: func @batch_norm_train_f16(
// CHECK-NEXT:    oneflow.batch_norm_train %{{.*}} : tensor<2x3xf16>, tensor<3xf32>{{$}}
func.func @batch_norm_train_f16(%x: tensor<2x3xf16>, %p: tensor<3xf32>) {
  %0:5 = oneflow.batch_norm_train %x, %p, %p, %p, %p : tensor<2x3xf16>, tensor<3xf32>
  return
}
