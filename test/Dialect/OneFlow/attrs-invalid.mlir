// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown attribute `reduction_mode` in dialect `oneflow`}}
func.func @unknown_mnemonic() attributes {a = #oneflow.reduction_mode<mean>} {
  return
}

// -----

// Case names are lower case.
// expected-error @+2 {{expected ::mlir::oneflow::LossReduction to be one of: none, mean, sum}}
// expected-error @+1 {{failed to parse OneFlow_LossReductionAttr parameter 'value'}}
func.func @upper_case() attributes {a = #oneflow.reduction<MEAN>} {
  return
}

// -----

// expected-error @+1 {{expected '<'}}
func.func @missing_value() attributes {a = #oneflow.pad_mode} {
  return
}

// -----

// expected-error @+2 {{expected valid keyword or string}}
// expected-error @+1 {{failed to parse OneFlow_GeluApproximationAttr parameter 'value'}}
func.func @empty_value() attributes {a = #oneflow.gelu_approximation<>} {
  return
}

// -----

// Enum values are spelled by name, not by number.
// expected-error @+2 {{expected valid keyword or string}}
// expected-error @+1 {{failed to parse OneFlow_PadModeAttr parameter 'value'}}
func.func @numeric_value() attributes {a = #oneflow.pad_mode<1>} {
  return
}

// -----

// expected-error @+1 {{expected '>'}}
func.func @two_values() attributes {a = #oneflow.reduction<mean, sum>} {
  return
}
