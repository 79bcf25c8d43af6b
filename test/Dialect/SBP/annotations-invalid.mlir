// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

// The signature of an op has one entry per operand and result.
func.func @arity(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{SBP signature has 1 operand and 1 result entries, but the op has 2 operands and 1 results}}
  %c = oneflow.matmul %a, %b {sbp.sig = #sbp.sig<(S<0>) -> (S<0>)>} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

// Split axes must exist in the tensor they describe.
func.func @split_axis(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{SBP of result #0: split axis 2 is out of range for a tensor of rank 2}}
  %c = oneflow.matmul %a, %b {sbp.sig = #sbp.sig<(S<0>, B) -> (S<2>)>} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// -----

// nd-SBP length must equal the rank of the placement's mesh.
sbp.mesh @m shape = [2, 2] device = "cpu"
func.func @mesh_rank(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{SBP of operand #0: nd-SBP has 1 entries but mesh @m has 2 axes}}
  %0 = oneflow.relu %x {sbp.placement = @m, sbp.sig = #sbp.sig<(S<0>) -> (S<0>)>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @no_mesh(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'sbp.placement' names @nowhere, which is not an sbp.mesh}}
  %0 = oneflow.relu %x {sbp.placement = @nowhere} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @placement_kind(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'sbp.placement' must be a symbol reference to an sbp.mesh}}
  %0 = oneflow.relu %x {sbp.placement = "m"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @sig_kind(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'sbp.sig' must be an #sbp.sig attribute}}
  %0 = oneflow.relu %x {sbp.sig = #sbp.B} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @nd_on_op(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'sbp.nd' belongs on function arguments and results}}
  %0 = oneflow.relu %x {sbp.nd = #sbp.nd<[B]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @unknown(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{unknown sbp attribute 'sbp.colour'}}
  %0 = oneflow.relu %x {sbp.colour = 1} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Function arguments: an out-of-range split (the "invalid pinned SBP").
// expected-error @+1 {{SBP of argument #0: split axis 1 is out of range for a tensor of rank 1}}
func.func @pinned_arg(%x: tensor<8xf32> {sbp.nd = #sbp.nd<[S<1>]>}) {
  return
}

// -----

sbp.mesh @m shape = [2, 2] device = "cpu"
// expected-error @+1 {{SBP of result #0: nd-SBP has 1 entries but mesh @m has 2 axes}}
func.func @pinned_result(%x: tensor<8xf32>) -> (tensor<8xf32> {sbp.nd = #sbp.nd<[S<0>]>}) attributes {sbp.placement = @m} {
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{'sbp.nd' of argument #0 must be an #sbp.nd}}
func.func @arg_kind(%x: tensor<8xf32> {sbp.nd = [#sbp.S<0>]}) {
  return
}

// -----

// expected-error @+1 {{unknown sbp attribute 'sbp.sig' on argument #0}}
func.func @arg_unknown(%x: tensor<8xf32> {sbp.sig = #sbp.sig<() -> ()>}) {
  return
}
