// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @yield_types(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'oneflow.fused' op yields 1 values whose types differ from its 1 results}}
  %0 = oneflow.fused -> tensor<4xf64> {
    %1 = oneflow.neg %x : tensor<4xf32>
    oneflow.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf64>
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) {
  // expected-error @+1 {{'oneflow.yield' op expects parent op 'oneflow.fused'}}
  oneflow.yield %x : tensor<4xf32>
  return
}
