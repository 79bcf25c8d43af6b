// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{unique axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'oneflow.unique' op failed to infer returned types}}
  %y, %i, %v, %c, %n = oneflow.unique %x {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<i64>
  return
}

// -----

func.func @flattened_needs_every_element(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<6xf32>', 'tensor<6xi64>', 'tensor<6xi64>', 'tensor<6xi64>', 'tensor<i64>' are incompatible with return type(s) of operation 'tensor<3xf32>', 'tensor<3xi64>', 'tensor<3xi64>', 'tensor<3xi64>', 'tensor<i64>'}}
  // expected-error @+1 {{'oneflow.unique' op failed to infer returned types}}
  %y, %i, %v, %c, %n = oneflow.unique %x : tensor<2x3xf32> -> tensor<3xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<i64>
  return
}
