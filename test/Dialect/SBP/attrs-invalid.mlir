// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{split axis must be non-negative, got -1}}
func.func @negative_split() attributes {s = #sbp.S<-1>} {
  return
}

// -----

// expected-error @+1 {{an nd-SBP has 1 to 3 entries (one per mesh axis), got 4}}
func.func @too_long() attributes {s = #sbp.nd<[B, B, B, B]>} {
  return
}

// -----

// expected-error @+1 {{all nd-SBPs of a signature must have the same length (the mesh rank)}}
func.func @ragged_signature() attributes {s = #sbp.sig<([S<0>, B], B) -> (B)>} {
  return
}

// -----

// expected-error @+1 {{expected an SBP (S<axis>, B or P), got 'X'}}
func.func @unknown_entry() attributes {s = #sbp.nd<[X]>} {
  return
}

// -----

// expected-error @+1 {{expected '->'}}
func.func @missing_arrow() attributes {s = #sbp.sig<(B) (B)>} {
  return
}
