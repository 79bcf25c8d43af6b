// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

sbp.mesh @m shape = [2] device = "cpu"
func.func @axis_out_of_range(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{target SBP: split axis 2 is out of range for a tensor of rank 2}}
  %0 = sbp.boxing %x from [B] to [S<2>] on @m : tensor<8x16xf32>
  return
}

// -----

sbp.mesh @m shape = [2] device = "cpu"
func.func @source_axis_out_of_range(%x: tensor<8xf32>) {
  // expected-error @+1 {{source SBP: split axis 1 is out of range for a tensor of rank 1}}
  %0 = sbp.boxing %x from [S<1>] to [B] on @m : tensor<8xf32>
  return
}

// -----

sbp.mesh @m shape = [2, 2] device = "cpu"
func.func @lengths_differ(%x: tensor<8xf32>) {
  // expected-error @+1 {{source and target nd-SBP lengths differ (2 vs 1)}}
  %0 = sbp.boxing %x from [S<0>, B] to [B] on @m : tensor<8xf32>
  return
}

// -----

sbp.mesh @m shape = [2, 2] device = "cpu"
func.func @mesh_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{nd-SBP has 1 entries but mesh @m has 2 axes}}
  %0 = sbp.boxing %x from [S<0>] to [B] on @m : tensor<8xf32>
  return
}

// -----

func.func @no_mesh(%x: tensor<8xf32>) {
  // expected-error @+1 {{'@nowhere' does not name an sbp.mesh}}
  %0 = sbp.boxing %x from [S<0>] to [B] on @nowhere : tensor<8xf32>
  return
}

// -----

sbp.mesh @m shape = [2] device = "cpu"
func.func @bad_sbp(%x: tensor<8xf32>) {
  // expected-error @+1 {{expected an SBP (S<axis>, B or P), got 'Q'}}
  %0 = sbp.boxing %x from [Q] to [B] on @m : tensor<8xf32>
  return
}

// -----

sbp.mesh @m shape = [2] device = "cpu"
func.func @type_changes(%x: tensor<8xf32>) {
  // expected-error @+1 {{all of {input, output} have same type}}
  %0 = "sbp.boxing"(%x) <{from = #sbp.nd<[S<0>]>, to = #sbp.nd<[B]>, mesh = @m}> : (tensor<8xf32>) -> tensor<8xf16>
  return
}
