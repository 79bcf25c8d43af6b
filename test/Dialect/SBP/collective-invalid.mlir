// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{unknown kind 'broadcast' (expected all_reduce, all_gather, reduce_scatter or all_to_all)}}
  %y = sbp.collective "broadcast" %x group = [0, 1] {tag = 0} : tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @group(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{group holds rank 1 twice or negative}}
  %y = sbp.collective "all_reduce" %x group = [1, 1] {tag = 0} : tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @shape(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{result type 'tensor<4xf32>' does not match the all_gather of 'tensor<4xf32>' over 2 ranks}}
  %y = sbp.collective "all_gather" %x group = [0, 1] {tag = 0} : tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @divisible(%x: tensor<5xf32>) -> tensor<2xf32> {
  // expected-error @below {{axis 0 of size 5 does not divide among 2 ranks}}
  %y = sbp.collective "reduce_scatter" %x group = [0, 1] {tag = 0} : tensor<5xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @axis(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @below {{axis 1 is out of range}}
  %y = sbp.collective "all_gather" %x group = [0, 1] {axis = 1, tag = 0} : tensor<4xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{has an empty group}}
  %y = sbp.collective "all_reduce" %x group = [] {tag = 0} : tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
