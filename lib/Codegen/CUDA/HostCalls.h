//===- HostCalls.h - Library calls in kernel host code ----------*- C++ -*-===//
//
// Host code calls library functions (the CPU kernel library's, the CUDA
// ABI's) with buffers passed as their int64 addresses; the CUDA passes that
// add or rewrite such calls share these.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_CODEGEN_CUDA_HOSTCALLS_H
#define ONEFLOW_LIB_CODEGEN_CUDA_HOSTCALLS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::oneflow {

/// The private declaration `name` of `module`, added with `type` if absent.
inline func::FuncOp declareHostFunction(ModuleOp module, StringRef name,
                                        FunctionType type) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto func = func::FuncOp::create(b, module.getLoc(), name, type);
  func.setPrivate();
  return func;
}

/// The aligned address of `buffer` as an int64 (what library calls take;
/// the bare-pointer convention passes the same pointer).
inline Value bufferAddress(OpBuilder &b, Location loc, Value buffer) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

/// The buffer whose address `value` is (an index_cast of
/// memref.extract_aligned_pointer_as_index), or null.
inline Value bufferOfAddress(Value value) {
  auto cast = value.getDefiningOp<arith::IndexCastOp>();
  if (!cast)
    return {};
  auto extract =
      cast.getIn().getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>();
  return extract ? extract.getSource() : Value();
}

} // namespace mlir::oneflow

#endif // ONEFLOW_LIB_CODEGEN_CUDA_HOSTCALLS_H
