// Every class of bad input gives a diagnostic and exit code 1.

// RUN: not oneflow-opt %S/Inputs/malformed.onnx 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: malformed.onnx:0:0: error: cannot parse '{{.*}}malformed.onnx' as an ONNX model (not a valid ModelProto)

// RUN: not oneflow-opt %S/Inputs/checker_fail.onnx 2>&1 | FileCheck %s --check-prefix=CHECKER
// CHECKER: error: the ONNX checker rejects the model: {{.*}}missing_value

// RUN: not oneflow-opt %S/Inputs/bad_dtype.onnx 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: graph input 'z' has element type COMPLEX64, which OneFlow-MLIR does not handle
// DTYPE-NOT: error

// All unsupported ops at once, with their counts and node names; the
// supported Relu and Hardmax import without complaint.
// RUN: not oneflow-opt %S/Inputs/unsupported_ops.onnx 2>&1 | FileCheck %s --check-prefix=UNSUP
// UNSUP: error: the model uses 2 unsupported ONNX op types (3 nodes):
// UNSUP-NEXT: Det x2: 'det_first', 'det_second'
// UNSUP-NEXT: Bernoulli x1: 'bernoulli_coins'
// UNSUP-NOT: error

// RUN: not oneflow-opt %S/Inputs/dynamic_batch.onnx 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: error: input 'x' has a dynamic dimension 0 ('batch'); pin it with --input-shape=x:<dims>

// RUN: not oneflow-opt %S/Inputs/dynamic_batch.onnx --input-shape=x:2 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: error: --input-shape for 'x' has 1 dimensions but the input has rank 2

// RUN: not oneflow-opt %S/Inputs/dynamic_batch.onnx --input-shape=x:2x16 2>&1 | FileCheck %s --check-prefix=FIXED
// FIXED: error: --input-shape for 'x' sets dimension 1 to 16 but the model fixes it to 32

// RUN: not oneflow-opt %S/Inputs/dynamic_batch.onnx --input-shape=x:2x32 --input-shape=nope:3 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: --input-shape names 'nope', which is not an input of the model

// RUN: not oneflow-opt %S/Inputs/dynamic_batch.onnx --input-shape=x2x32 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: error: --input-shape: expected NAME:DIMS (e.g. x:2x32), got 'x2x32'

// RUN: not oneflow-opt %S/Inputs/does_not_exist.onnx 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot read '{{.*}}does_not_exist.onnx': No such file or directory

// External data that is missing or too short.
// RUN: rm -rf %t && mkdir -p %t && cp %S/Inputs/external_data.onnx %t/
// RUN: not oneflow-opt %t/external_data.onnx 2>&1 | FileCheck %s --check-prefix=NODATA
// NODATA: error: external data of initializer 'ext_weight': cannot read '{{.*}}external_data.bin'
// RUN: head -c 100 %S/Inputs/external_data.bin > %t/external_data.bin
// RUN: not oneflow-opt %t/external_data.onnx 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: external data of initializer 'ext_weight': bytes [0, 512) lie outside '{{.*}}external_data.bin' (100 bytes)
