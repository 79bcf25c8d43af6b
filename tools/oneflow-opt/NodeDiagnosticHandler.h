//===- NodeDiagnosticHandler.h - Diagnostics that name their node -*- C++
//-*-===//
//
// An imported op's location is NameLoc(ONNX node name, file:0:0), and MLIR's
// source manager handler prints only the file part. This handler puts the
// node name in front of the message, so every error of a compile, from any
// pass, says which node of the model it is about.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_ONEFLOW_OPT_NODEDIAGNOSTICHANDLER_H
#define ONEFLOW_TOOLS_ONEFLOW_OPT_NODEDIAGNOSTICHANDLER_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

namespace mlir::oneflow {

class NodeDiagnosticHandler : public SourceMgrDiagnosticHandler {
public:
  NodeDiagnosticHandler(llvm::SourceMgr &sourceMgr, MLIRContext *context)
      : SourceMgrDiagnosticHandler(sourceMgr, context) {
    // Registered after the base's handler, so it sees diagnostics first.
    setHandler([this](Diagnostic &diag) {
      Diagnostic named(diag.getLocation(), diag.getSeverity());
      named << withNodeName(diag.getLocation(), diag.str());
      for (Diagnostic &note : diag.getNotes())
        named.attachNote(note.getLocation())
            << withNodeName(note.getLocation(), note.str());
      emitDiagnostic(named);
      return success();
    });
  }

private:
  /// The first name in `loc` (through fused and call-site locations).
  static StringRef nodeName(Location loc) {
    StringRef name;
    loc->walk([&](Location inner) {
      if (auto named = dyn_cast<NameLoc>(inner)) {
        name = named.getName().getValue();
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return name;
  }
  static std::string withNodeName(Location loc, std::string message) {
    StringRef name = nodeName(loc);
    if (name.empty() || StringRef(message).contains(("'" + name + "'").str()))
      return message;
    return ("node '" + name + "': " + message).str();
  }
};

} // namespace mlir::oneflow

#endif // ONEFLOW_TOOLS_ONEFLOW_OPT_NODEDIAGNOSTICHANDLER_H
