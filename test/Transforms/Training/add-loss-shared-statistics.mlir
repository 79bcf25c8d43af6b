// RUN: oneflow-opt %s -split-input-file --oneflow-add-loss="loss=mse label=target" | FileCheck %s

// PyTorch's exporter merges a fresh batch norm's running mean with every
// zero bias of its size and its running variance with every unit weight
// (the importer records the names the norm reads them under). Training
// gives each norm statistics of its own, named so and starting from the
// shared data; the parameters keep their variables and are not assigned.
// CHECK-LABEL: func.func @main(
// CHECK-DAG:   %[[W:.*]] = oneflow.variable @n0.weight {initial_value = dense<1.000000e+00> : tensor<3xf32>}
// CHECK-DAG:   %[[B:.*]] = oneflow.variable @n0.bias {initial_value = dense<0.000000e+00> : tensor<3xf32>}
// CHECK-DAG:   %[[M0:.*]] = oneflow.variable @n0.running_mean {initial_value = dense<0.000000e+00> : tensor<3xf32>}
// CHECK-DAG:   %[[V0:.*]] = oneflow.variable @n0.running_var {initial_value = dense<1.000000e+00> : tensor<3xf32>}
// CHECK-DAG:   %[[M1:.*]] = oneflow.variable @n1.running_mean {initial_value = dense<0.000000e+00> : tensor<3xf32>}
// CHECK-DAG:   %[[V1:.*]] = oneflow.variable @n1.running_var {initial_value = dense<1.000000e+00> : tensor<3xf32>}
// CHECK:       oneflow.batch_norm_train %{{.*}}, %[[W]], %[[B]], %[[M0]], %[[V0]]
// CHECK:       oneflow.assign @n0.running_mean
// CHECK-NEXT:  oneflow.assign @n0.running_var
// CHECK:       oneflow.batch_norm_train %{{.*}}, %[[W]], %[[B]], %[[M1]], %[[V1]]
// CHECK:       oneflow.assign @n1.running_mean
// CHECK-NEXT:  oneflow.assign @n1.running_var
// CHECK-NOT:   oneflow.assign @n0.weight
// CHECK-NOT:   oneflow.assign @n0.bias
func.func @main(%x: tensor<2x3x4x4xf32> {onnx.name = "x"}) -> (tensor<2x3x4x4xf32> {onnx.name = "y"}) {
  %w = oneflow.variable @n0.weight {initial_value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %b = oneflow.variable @n0.bias {initial_value = dense<0.0> : tensor<3xf32>} : tensor<3xf32>
  %n0 = oneflow.batch_norm %x, %w, %b, %b, %w {onnx.statistics = ["n0.running_mean", "n0.running_var"]} : tensor<2x3x4x4xf32>, tensor<3xf32>
  %n1 = oneflow.batch_norm %n0, %w, %b, %b, %w {onnx.statistics = ["n1.running_mean", "n1.running_var"]} : tensor<2x3x4x4xf32>, tensor<3xf32>
  return %n1 : tensor<2x3x4x4xf32>
}

// -----

// Statistics merged only with each other: the norm reading them under
// their own names keeps them; the other gets its own.
// CHECK-LABEL: func.func @main(
// CHECK-DAG:   %[[M0:.*]] = oneflow.variable @n0.running_mean
// CHECK-DAG:   %[[V0:.*]] = oneflow.variable @n0.running_var
// CHECK-DAG:   %[[M1:.*]] = oneflow.variable @n1.running_mean
// CHECK-DAG:   %[[V1:.*]] = oneflow.variable @n1.running_var
// CHECK:       oneflow.batch_norm_train %{{.*}}, %{{.*}}, %{{.*}}, %[[M0]], %[[V0]]
// CHECK:       oneflow.batch_norm_train %{{.*}}, %{{.*}}, %{{.*}}, %[[M1]], %[[V1]]
func.func @main(%x: tensor<2x3x4x4xf32> {onnx.name = "x"}) -> (tensor<2x3x4x4xf32> {onnx.name = "y"}) {
  %w = oneflow.variable @n0.weight {initial_value = dense<2.0> : tensor<3xf32>} : tensor<3xf32>
  %b = oneflow.variable @n0.bias {initial_value = dense<0.5> : tensor<3xf32>} : tensor<3xf32>
  %m = oneflow.variable @n0.running_mean {initial_value = dense<0.0> : tensor<3xf32>} : tensor<3xf32>
  %v = oneflow.variable @n0.running_var {initial_value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %n0 = oneflow.batch_norm %x, %w, %b, %m, %v : tensor<2x3x4x4xf32>, tensor<3xf32>
  %n1 = oneflow.batch_norm %n0, %w, %b, %m, %v {onnx.statistics = ["n1.running_mean", "n1.running_var"]} : tensor<2x3x4x4xf32>, tensor<3xf32>
  return %n1 : tensor<2x3x4x4xf32>
}

// -----

// Without recorded names, a private statistic is named after the norm's
// node.
// CHECK-LABEL: func.func @main(
// CHECK-DAG:   %[[M:.*]] = oneflow.variable @"/bn/BatchNormalization.running_mean"
// CHECK-DAG:   %[[V:.*]] = oneflow.variable @"/bn/BatchNormalization.running_var"
// CHECK:       oneflow.batch_norm_train %{{.*}}, %{{.*}}, %{{.*}}, %[[M]], %[[V]]
func.func @main(%x: tensor<2x3x4x4xf32> {onnx.name = "x"}) -> (tensor<2x3x4x4xf32> {onnx.name = "y"}) {
  %w = oneflow.variable @bn.weight {initial_value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %b = oneflow.variable @bn.bias {initial_value = dense<0.0> : tensor<3xf32>} : tensor<3xf32>
  %n = oneflow.batch_norm %x, %w, %b, %b, %w : tensor<2x3x4x4xf32>, tensor<3xf32> loc("/bn/BatchNormalization")
  return %n : tensor<2x3x4x4xf32>
}

// -----

// Shared variables drawn from initializers: each private copy draws the
// same values as the variable it copies (its stream, the FNV-1a hash of
// "n0.bias", is spelled out), so it starts from the shared data.
// CHECK-LABEL: func.func @main(
// CHECK-DAG:   oneflow.variable @n0.running_mean {initializer = #oneflow.init<uniform, a = 0.000000e+00, b = 1.000000e+00, seed = 4, stream = 18409818602635747518>}
// CHECK-DAG:   oneflow.variable @n1.running_mean {initializer = #oneflow.init<uniform, a = 0.000000e+00, b = 1.000000e+00, seed = 4, stream = 18409818602635747518>}
// CHECK-DAG:   oneflow.variable @n1.running_var {initializer = #oneflow.init<ones>}
// CHECK-DAG:   oneflow.variable @n0.bias {initializer = #oneflow.init<uniform, a = 0.000000e+00, b = 1.000000e+00, seed = 4>}
func.func @main(%x: tensor<2x3x4x4xf32> {onnx.name = "x"}) -> (tensor<2x3x4x4xf32> {onnx.name = "y"}) {
  %w = oneflow.variable @n0.weight {initializer = #oneflow.init<ones>} : tensor<3xf32>
  %b = oneflow.variable @n0.bias {initializer = #oneflow.init<uniform, seed = 4>} : tensor<3xf32>
  %n0 = oneflow.batch_norm %x, %w, %b, %b, %w {onnx.statistics = ["n0.running_mean", "n0.running_var"]} : tensor<2x3x4x4xf32>, tensor<3xf32>
  %n1 = oneflow.batch_norm %n0, %w, %b, %b, %w {onnx.statistics = ["n1.running_mean", "n1.running_var"]} : tensor<2x3x4x4xf32>, tensor<3xf32>
  return %n1 : tensor<2x3x4x4xf32>
}
