// RUN: oneflow-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{mesh must have 1 to 3 axes, got 4}}
sbp.mesh @m shape = [2, 2, 2, 2] device = "cpu"

// -----

// expected-error @+1 {{mesh must have 1 to 3 axes, got 0}}
sbp.mesh @m shape = [] device = "cpu"

// -----

// expected-error @+1 {{mesh axis sizes must be positive, got 0}}
sbp.mesh @m shape = [2, 0] device = "cpu"

// -----

// expected-error @+1 {{device must be "cpu" or "cuda", got "tpu"}}
sbp.mesh @m shape = [2] device = "tpu"

// -----

// expected-error @+1 {{mesh of 4 devices lists 3 ranks}}
sbp.mesh @m shape = [2, 2] ranks = [0, 1, 2] device = "cpu"

// -----

// expected-error @+1 {{rank 1 appears twice}}
sbp.mesh @m shape = [2] ranks = [1, 1] device = "cpu"

// -----

// expected-error @+1 {{ranks must be non-negative, got -1}}
sbp.mesh @m shape = [2] ranks = [0, -1] device = "cpu"

// -----

// expected-note @+1 {{see existing symbol definition here}}
sbp.mesh @m shape = [2] device = "cpu"
// expected-error @+1 {{redefinition of symbol named 'm'}}
sbp.mesh @m shape = [4] device = "cpu"
