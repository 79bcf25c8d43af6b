//===- OnnxExport.h - Trained weights back into an ONNX model ---*- C++ -*-===//
//
// After training, the variables of a plan that came from an ONNX model's
// initializers hold the trained weights: this writes them back into (a copy
// of) the model, so that it can be compiled for inference or used anywhere
// else ONNX is read.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_ONNXEXPORT_H
#define ONEFLOW_RUNTIME_ONNXEXPORT_H

#include "oneflow/Runtime/Variables.h"

#include <map>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

struct OnnxExportSummary {
  /// Initializers replaced by a variable's value.
  std::vector<std::string> replaced;
  /// Variables that are optimizer state, not model parameters.
  std::vector<std::string> optimizerState;
};

/// Reads the ONNX model `sourceModel`, replaces every top-level initializer
/// whose name is a variable's with the variable's full tensor from
/// `tensors` (converted to the initializer's element type: float, double,
/// float16, bfloat16, int32, int64 or bool; the dims must match), stored as
/// raw_data (typed fields and external data cleared), and writes the model
/// to `path` atomically. Initializers with external data that are not
/// replaced are inlined (their files are relative to `sourceModel`).
/// A variable named after the output of an Identity node of an initializer
/// (a value an exporter merged with the initializer, which training kept
/// apart) becomes a new initializer that replaces the Identity node.
/// Other variables without an initializer are an error, listing them all,
/// unless they are optimizer state: "optimizer.step", or "P.<state>" where P is
/// a variable that has an initializer (e.g. "fc1.weight.exp_avg").
Expected<OnnxExportSummary>
exportOnnx(const std::string &sourceModel, const std::string &path,
           const std::vector<Variable> &variables,
           const std::map<std::string, HostTensor> &tensors);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_ONNXEXPORT_H
