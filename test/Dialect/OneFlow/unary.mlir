// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s

// Attribute-free float unary ops: each over a different float type or
// shape (rank 0, zero-size, rank 4).

// CHECK-LABEL: func @relu(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.relu %[[X]] : tensor<4x8xf32>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<4x8xf32>
func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.relu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func @tanh(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf16>) -> tensor<4x8xf16>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.tanh %[[X]] : tensor<4x8xf16>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<4x8xf16>
func.func @tanh(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = oneflow.tanh %x : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// CHECK-LABEL: func @sigmoid(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xbf16>) -> tensor<4x8xbf16>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.sigmoid %[[X]] : tensor<4x8xbf16>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<4x8xbf16>
func.func @sigmoid(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = oneflow.sigmoid %x : tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// CHECK-LABEL: func @exp(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf64>) -> tensor<4x8xf64>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.exp %[[X]] : tensor<4x8xf64>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<4x8xf64>
func.func @exp(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %0 = oneflow.exp %x : tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}

// -----

// CHECK-LABEL: func @log(
// CHECK-SAME:    %[[X:.*]]: tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.log %[[X]] : tensor<f32>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<f32>
func.func @log(%x: tensor<f32>) -> tensor<f32> {
  %0 = oneflow.log %x : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func @sqrt(
// CHECK-SAME:    %[[X:.*]]: tensor<0x3xf32>) -> tensor<0x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.sqrt %[[X]] : tensor<0x3xf32>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<0x3xf32>
func.func @sqrt(%x: tensor<0x3xf32>) -> tensor<0x3xf32> {
  %0 = oneflow.sqrt %x : tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// -----

// CHECK-LABEL: func @rsqrt(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4x5xf16>) -> tensor<2x3x4x5xf16>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.rsqrt %[[X]] : tensor<2x3x4x5xf16>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<2x3x4x5xf16>
func.func @rsqrt(%x: tensor<2x3x4x5xf16>) -> tensor<2x3x4x5xf16> {
  %0 = oneflow.rsqrt %x : tensor<2x3x4x5xf16>
  return %0 : tensor<2x3x4x5xf16>
}

// -----

// CHECK-LABEL: func @erf(
// CHECK-SAME:    %[[X:.*]]: tensor<16xbf16>) -> tensor<16xbf16>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.erf %[[X]] : tensor<16xbf16>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<16xbf16>
func.func @erf(%x: tensor<16xbf16>) -> tensor<16xbf16> {
  %0 = oneflow.erf %x : tensor<16xbf16>
  return %0 : tensor<16xbf16>
}

// -----

// CHECK-LABEL: func @reciprocal(
// CHECK-SAME:    %[[X:.*]]: tensor<16xf64>) -> tensor<16xf64>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.reciprocal %[[X]] : tensor<16xf64>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<16xf64>
func.func @reciprocal(%x: tensor<16xf64>) -> tensor<16xf64> {
  %0 = oneflow.reciprocal %x : tensor<16xf64>
  return %0 : tensor<16xf64>
}

// -----

// CHECK-LABEL: func @sin(
// CHECK-SAME:    %[[X:.*]]: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.sin %[[X]] : tensor<3xf32>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<3xf32>
func.func @sin(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = oneflow.sin %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @cos(
// CHECK-SAME:    %[[X:.*]]: tensor<3xf16>) -> tensor<3xf16>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.cos %[[X]] : tensor<3xf16>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<3xf16>
func.func @cos(%x: tensor<3xf16>) -> tensor<3xf16> {
  %0 = oneflow.cos %x : tensor<3xf16>
  return %0 : tensor<3xf16>
}

// -----

// CHECK-LABEL: func @softplus(
// CHECK-SAME:    %[[X:.*]]: tensor<2x2xbf16>) -> tensor<2x2xbf16>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.softplus %[[X]] : tensor<2x2xbf16>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<2x2xbf16>
func.func @softplus(%x: tensor<2x2xbf16>) -> tensor<2x2xbf16> {
  %0 = oneflow.softplus %x : tensor<2x2xbf16>
  return %0 : tensor<2x2xbf16>
}

// -----

// CHECK-LABEL: func @softsign(
// CHECK-SAME:    %[[X:.*]]: tensor<2x2xf64>) -> tensor<2x2xf64>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.softsign %[[X]] : tensor<2x2xf64>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<2x2xf64>
func.func @softsign(%x: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %0 = oneflow.softsign %x : tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}

// -----

// CHECK-LABEL: func @silu(
// CHECK-SAME:    %[[X:.*]]: tensor<1x1xf32>) -> tensor<1x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.silu %[[X]] : tensor<1x1xf32>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<1x1xf32>
func.func @silu(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %0 = oneflow.silu %x : tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func @ceil(
// CHECK-SAME:    %[[X:.*]]: tensor<5xf16>) -> tensor<5xf16>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.ceil %[[X]] : tensor<5xf16>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<5xf16>
func.func @ceil(%x: tensor<5xf16>) -> tensor<5xf16> {
  %0 = oneflow.ceil %x : tensor<5xf16>
  return %0 : tensor<5xf16>
}

// -----

// CHECK-LABEL: func @floor(
// CHECK-SAME:    %[[X:.*]]: tensor<5xbf16>) -> tensor<5xbf16>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.floor %[[X]] : tensor<5xbf16>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<5xbf16>
func.func @floor(%x: tensor<5xbf16>) -> tensor<5xbf16> {
  %0 = oneflow.floor %x : tensor<5xbf16>
  return %0 : tensor<5xbf16>
}

// -----

// CHECK-LABEL: func @round(
// CHECK-SAME:    %[[X:.*]]: tensor<5xf64>) -> tensor<5xf64>
// CHECK-NEXT:    %[[Y:.*]] = oneflow.round %[[X]] : tensor<5xf64>{{$}}
// CHECK-NEXT:    return %[[Y]] : tensor<5xf64>
func.func @round(%x: tensor<5xf64>) -> tensor<5xf64> {
  %0 = oneflow.round %x : tensor<5xf64>
  return %0 : tensor<5xf64>
}
