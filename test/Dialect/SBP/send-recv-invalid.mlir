// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

func.func @send_peer(%x: tensor<4xf32>) {
  // expected-error @below {{'sbp.send' op peer must be a global rank (>= 0), got -1}}
  sbp.send %x to -1 {tag = 0} : tensor<4xf32>
  return
}

// -----

func.func @send_tag(%x: tensor<4xf32>) {
  // expected-error @below {{'sbp.send' op tag must be non-negative, got -2}}
  sbp.send %x to 1 {tag = -2} : tensor<4xf32>
  return
}

// -----

func.func @recv_peer() -> tensor<4xf32> {
  // expected-error @below {{'sbp.recv' op peer must be a global rank (>= 0), got -3}}
  %y = sbp.recv from -3 {tag = 0} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @recv_tag() -> tensor<4xf32> {
  // expected-error @below {{'sbp.recv' op tag must be non-negative, got -1}}
  %y = sbp.recv from 0 {tag = -1} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @recv_no_tag() -> tensor<4xf32> {
  // expected-error @below {{'sbp.recv' op requires attribute 'tag'}}
  %y = sbp.recv from 0 : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @recv_dynamic() -> tensor<?xf32> {
  // expected-error @below {{'sbp.recv' op result #0 must be statically shaped tensor of any type values, but got 'tensor<?xf32>'}}
  %y = sbp.recv from 0 {tag = 0} : tensor<?xf32>
  return %y : tensor<?xf32>
}
