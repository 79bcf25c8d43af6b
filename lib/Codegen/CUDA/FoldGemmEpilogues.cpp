//===- FoldGemmEpilogues.cpp - Products as single cuBLASLt calls ----------===//
//
// The CPU lowering gives a product whose only user adds a per-column bias an
// output buffer that starts at the broadcast bias and an accumulating call
// (beta = 1); a ReLU may follow in place. On the GPU the broadcast and the
// ReLU would be kernels of their own, each a pass over the output: cuBLASLt
// does both in the product's epilogue. On the bufferized kernel:
//
// - a batched product whose A is contiguous and not transposed and whose B
//   is shared by every batch (a linear layer on a 3-d input) is one product
//   of batch * m rows;
// - `linalg.generic` broadcasting a bias vector over the rows of C, then
//   `oneflow_gemm_acc_f32(a, b, c, ...)`, becomes
//   `oneflow_gemm_bias_f32(a, b, bias, c, ...)`; a ReLU of C in place right
//   after it makes that `oneflow_gemm_bias_relu_f32`.
//
//===----------------------------------------------------------------------===//

#include "HostCalls.h"

#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_FOLDGEMMEPILOGUES
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// Ops that neither touch buffers nor matter to the order around a call.
bool isBookkeeping(Operation *op) {
  return isa<arith::ConstantOp, arith::IndexCastOp,
             memref::ExtractAlignedPointerAsIndexOp>(op);
}

Operation *previousWork(Operation *op) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
    if (!isBookkeeping(prev))
      return prev;
  return nullptr;
}

Operation *nextWork(Operation *op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (!isBookkeeping(next))
      return next;
  return nullptr;
}

/// A generic that only copies its one input into `out` (same element
/// type), with the given input map and an identity output map.
bool isCopyInto(linalg::GenericOp generic, Value out, AffineMap inputMap) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getDpsInits()[0] != out)
    return false;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (maps[0] != inputMap || !maps[1].isIdentity())
    return false;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  return body.getOperations().size() == 1 &&
         yield.getOperand(0) == body.getArgument(0);
}

/// An in-place `out = max(out, 0)` (the ReLU's lowering).
bool isReluInPlace(Operation *op, Value out) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getDpsInputs()[0] != out ||
      generic.getDpsInits()[0] != out ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block &body = generic.getRegion().front();
  if (body.getOperations().size() != 2)
    return false;
  auto max = dyn_cast<arith::MaximumFOp>(body.front());
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (!max || yield.getOperand(0) != max.getResult())
    return false;
  Value other = max.getLhs() == body.getArgument(0)   ? max.getRhs()
                : max.getRhs() == body.getArgument(0) ? max.getLhs()
                                                      : Value();
  return other && matchPattern(other, m_AnyZeroFloat());
}

/// `void name(i64 x numArgs)`, declared once.
func::FuncOp declare(ModuleOp module, StringRef name, unsigned numArgs) {
  Type i64 = IntegerType::get(module.getContext(), 64);
  return declareHostFunction(module, name,
                             FunctionType::get(module.getContext(),
                                               SmallVector<Type>(numArgs, i64),
                                               {}));
}

std::optional<int64_t> constantOf(Value value) {
  return getConstantIntValue(value);
}

/// batch_gemm(a, b, c, batch, m, n, k, 0, tb, m * k, 0) -> gemm(a, b, c,
/// batch * m, n, k, 0, tb).
void flattenSharedWeightProduct(func::CallOp call, ModuleOp module) {
  StringRef callee = call.getCallee();
  if (!callee.starts_with("oneflow_batch_gemm_") || call.getNumOperands() != 11)
    return;
  SmallVector<std::optional<int64_t>> scalars;
  for (Value operand : call.getOperands().drop_front(3))
    scalars.push_back(constantOf(operand));
  if (llvm::any_of(scalars, [](auto v) { return !v; }))
    return;
  int64_t batch = *scalars[0], m = *scalars[1], n = *scalars[2],
          k = *scalars[3], ta = *scalars[4], tb = *scalars[5],
          strideA = *scalars[6], strideB = *scalars[7];
  if (ta != 0 || strideB != 0 || strideA != m * k)
    return;
  OpBuilder b(call);
  Location loc = call.getLoc();
  std::string name =
      ("oneflow_gemm_" + callee.drop_front(strlen("oneflow_batch_gemm_")))
          .str();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  };
  func::CallOp::create(b, loc, declare(module, name, 8),
                       ValueRange{call.getOperand(0), call.getOperand(1),
                                  call.getOperand(2), constant(batch * m),
                                  constant(n), constant(k), constant(0),
                                  constant(tb)});
  call.erase();
}

/// broadcast(bias) into c; gemm_acc(a, b, c) [; relu(c)] -> one call.
void foldBias(func::CallOp call, ModuleOp module) {
  if (call.getCallee() != "oneflow_gemm_acc_f32")
    return;
  Value c = bufferOfAddress(call.getOperand(2));
  auto cType = c ? dyn_cast<MemRefType>(c.getType()) : MemRefType();
  // C is contiguous: a 3-d C (a linear layer on a 3-d input) is the
  // product's rows all the same.
  if (!cType || cType.getRank() < 2 || !cType.getLayout().isIdentity())
    return;
  auto fill = dyn_cast_or_null<linalg::GenericOp>(previousWork(call));
  MLIRContext *context = call.getContext();
  int64_t rank = cType.getRank();
  AffineMap columns =
      AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, context));
  if (!fill || !isCopyInto(fill, c, columns))
    return;
  Value bias = fill.getDpsInputs()[0];
  if (cast<MemRefType>(bias.getType()).getRank() != 1)
    return;
  Operation *relu = nextWork(call);
  bool withRelu = isReluInPlace(relu, c);
  OpBuilder b(call);
  Location loc = call.getLoc();
  SmallVector<Value> operands = {call.getOperand(0), call.getOperand(1),
                                 bufferAddress(b, loc, bias),
                                 call.getOperand(2)};
  operands.append(call.getOperands().begin() + 3, call.getOperands().end());
  StringRef name =
      withRelu ? "oneflow_gemm_bias_relu_f32" : "oneflow_gemm_bias_f32";
  func::CallOp::create(b, loc, declare(module, name, operands.size()),
                       operands);
  call.erase();
  fill.erase();
  if (withRelu)
    relu->erase();
}

struct FoldGemmEpiloguesPass
    : public oneflow::impl::FoldGemmEpiloguesBase<FoldGemmEpiloguesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) { calls.push_back(call); });
    for (func::CallOp call : calls)
      flattenSharedWeightProduct(call, module);
    calls.clear();
    module.walk([&](func::CallOp call) { calls.push_back(call); });
    for (func::CallOp call : calls)
      foldBias(call, module);
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func.isDeclaration() &&
          SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();
  }
};

} // namespace
