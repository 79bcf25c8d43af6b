// RUN: oneflow-opt %s -split-input-file | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | oneflow-opt -split-input-file | FileCheck %s
// RUN: oneflow-opt %s -split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Float unary ops with attributes. The custom form elides an attribute that
// equals its default; the generic form shows the defaults as properties.

// CHECK-LABEL: func @gelu_default(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>
// CHECK-NEXT:    oneflow.gelu %[[X]] : tensor<4x8xf32>{{$}}
// GENERIC-LABEL: sym_name = "gelu_default"
// GENERIC:       "oneflow.gelu"(%{{.*}}) <{approximate = #oneflow.gelu_approximation<none>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @gelu_default(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = oneflow.gelu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// An explicit default value is elided when printed.
// CHECK-LABEL: func @gelu_none(
// CHECK-NEXT:    oneflow.gelu %{{.*}} : tensor<4x8xf16>{{$}}
func.func @gelu_none(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = oneflow.gelu %x {approximate = #oneflow.gelu_approximation<none>} : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// CHECK-LABEL: func @gelu_tanh(
// CHECK-NEXT:    oneflow.gelu %{{.*}} {approximate = #oneflow.gelu_approximation<tanh>} : tensor<2x3xbf16>{{$}}
// GENERIC-LABEL: sym_name = "gelu_tanh"
// GENERIC:       <{approximate = #oneflow.gelu_approximation<tanh>}>
func.func @gelu_tanh(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %0 = oneflow.gelu %x {approximate = #oneflow.gelu_approximation<tanh>} : tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}

// -----

// CHECK-LABEL: func @leaky_relu(
// CHECK-NEXT:    oneflow.leaky_relu %{{.*}} : tensor<8xf64>{{$}}
// CHECK-NEXT:    oneflow.leaky_relu %{{.*}} : tensor<8xf64>{{$}}
// CHECK-NEXT:    oneflow.leaky_relu %{{.*}} {alpha = 2.000000e-01 : f64} : tensor<8xf64>{{$}}
// GENERIC-LABEL: sym_name = "leaky_relu"
// GENERIC:       "oneflow.leaky_relu"(%{{.*}}) <{alpha = 1.000000e-02 : f64}>
// GENERIC:       "oneflow.leaky_relu"(%{{.*}}) <{alpha = 1.000000e-02 : f64}>
// GENERIC:       "oneflow.leaky_relu"(%{{.*}}) <{alpha = 2.000000e-01 : f64}>
func.func @leaky_relu(%x: tensor<8xf64>) -> (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) {
  %0 = oneflow.leaky_relu %x : tensor<8xf64>
  %1 = oneflow.leaky_relu %x {alpha = 0.01} : tensor<8xf64>
  %2 = oneflow.leaky_relu %x {alpha = 0.2} : tensor<8xf64>
  return %0, %1, %2 : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
}

// -----

// CHECK-LABEL: func @elu(
// CHECK-NEXT:    oneflow.elu %{{.*}} : tensor<f32>{{$}}
// CHECK-NEXT:    oneflow.elu %{{.*}} {alpha = -1.000000e+00 : f64} : tensor<f32>{{$}}
// GENERIC-LABEL: sym_name = "elu"
// GENERIC:       "oneflow.elu"(%{{.*}}) <{alpha = 1.000000e+00 : f64}>
func.func @elu(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = oneflow.elu %x : tensor<f32>
  %1 = oneflow.elu %x {alpha = -1.0} : tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}

// -----

// CHECK-LABEL: func @selu(
// CHECK-NEXT:    oneflow.selu %{{.*}} : tensor<3x3xf32>{{$}}
// CHECK-NEXT:    oneflow.selu %{{.*}} {gamma = 2.000000e+00 : f64} : tensor<3x3xf32>{{$}}
// CHECK-NEXT:    oneflow.selu %{{.*}} {alpha = 1.500000e+00 : f64, gamma = 2.000000e+00 : f64} : tensor<3x3xf32>{{$}}
// GENERIC-LABEL: sym_name = "selu"
// GENERIC:       <{alpha = 1.6732632423543772 : f64, gamma = 1.0507009873554805 : f64}>
func.func @selu(%x: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>) {
  %0 = oneflow.selu %x : tensor<3x3xf32>
  %1 = oneflow.selu %x {gamma = 2.0} : tensor<3x3xf32>
  %2 = oneflow.selu %x {alpha = 1.5, gamma = 2.0} : tensor<3x3xf32>
  return %0, %1, %2 : tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>
}

// -----

// CHECK-LABEL: func @hard_sigmoid(
// CHECK-NEXT:    oneflow.hard_sigmoid %{{.*}} : tensor<5xbf16>{{$}}
// CHECK-NEXT:    oneflow.hard_sigmoid %{{.*}} {beta = 0.000000e+00 : f64} : tensor<5xbf16>{{$}}
// CHECK-NEXT:    oneflow.hard_sigmoid %{{.*}} {alpha = 0.16666666666666666 : f64} : tensor<5xbf16>{{$}}
// GENERIC-LABEL: sym_name = "hard_sigmoid"
// GENERIC:       <{alpha = 2.000000e-01 : f64, beta = 5.000000e-01 : f64}>
func.func @hard_sigmoid(%x: tensor<5xbf16>) -> (tensor<5xbf16>, tensor<5xbf16>, tensor<5xbf16>) {
  %0 = oneflow.hard_sigmoid %x {alpha = 0.2, beta = 0.5} : tensor<5xbf16>
  %1 = oneflow.hard_sigmoid %x {beta = 0.0} : tensor<5xbf16>
  %2 = oneflow.hard_sigmoid %x {alpha = 0.16666666666666666, beta = 0.5} : tensor<5xbf16>
  return %0, %1, %2 : tensor<5xbf16>, tensor<5xbf16>, tensor<5xbf16>
}
