//===- GpuLaunchesToRuntimeCalls.cpp - Host code of CUDA kernels ----------===//
//
// Once the GPU module is a binary, the host side of each kernel is plain
// code calling oneflow-run's CUDA ABI (include/oneflow/Runtime/CUDA/
// KernelABI.h) on the task's stream:
//
// - `gpu.launch_func` becomes `oneflow_cuda_launch(index, grid, block,
//   shared bytes, args, count)`: the GPU function's index in the module's
//   `oneflow.gpu_kernels` list (the plan's gpu_kernels, resolved once when
//   the plan is loaded), and its arguments as 8-byte slots in a stack array;
// - calls of the CPU kernel library's products and convolutions become the
//   ABI's cuBLASLt and cuDNN entry points (same arguments); any other
//   library call has no device version and is reported, all at once;
// - the GPU binary is dropped (it ships as the plan's fatbin).
//
// Scratch allocations stay memref.alloc/dealloc: the CUDA host lowering
// points their malloc/free at oneflow_cuda_alloc/free.
//
//===----------------------------------------------------------------------===//

#include "HostCalls.h"

#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_GPULAUNCHESTORUNTIMECALLS
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

constexpr llvm::StringLiteral kLaunchFunction = "oneflow_cuda_launch";

/// The CPU library calls that have a device version `oneflow_cuda_<name>`.
bool hasDeviceVersion(StringRef callee) {
  for (StringRef prefix : {"oneflow_gemm_", "oneflow_batch_gemm_",
                           "oneflow_conv2d_", "oneflow_conv_transpose2d_"})
    if (callee.starts_with(prefix))
      return true;
  return false;
}

/// `value` as the bits of an 8-byte kernel parameter slot.
FailureOr<Value> toSlot(OpBuilder &b, Location loc, Value value) {
  Type i64 = b.getI64Type();
  Type type = value.getType();
  // The bare-pointer convention passes the aligned pointer; the kernel
  // applies the type's static offset itself.
  if (isa<MemRefType>(type))
    return bufferAddress(b, loc, value);
  if (type.isIndex())
    return Value(arith::IndexCastOp::create(b, loc, i64, value));
  if (auto floatType = dyn_cast<FloatType>(type)) {
    Type bits = b.getIntegerType(floatType.getWidth());
    value = arith::BitcastOp::create(b, loc, bits, value);
    type = bits;
  }
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer || integer.getWidth() > 64)
    return failure();
  if (integer.getWidth() == 64)
    return value;
  // Narrower values sit in the slot's low bytes (little endian).
  return Value(arith::ExtUIOp::create(b, loc, i64, value));
}

struct GpuLaunchesToRuntimeCallsPass
    : public oneflow::impl::GpuLaunchesToRuntimeCallsBase<
          GpuLaunchesToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    OpBuilder b(context);
    Type i64 = b.getI64Type();

    // Library calls first: every one without a device version is an error.
    bool failedCalls = false;
    llvm::StringSet<> renamed;
    module.walk([&](func::CallOp call) {
      StringRef callee = call.getCallee();
      if (!callee.starts_with("oneflow_") ||
          callee.starts_with("oneflow_cuda_"))
        return;
      if (!hasDeviceVersion(callee)) {
        call.emitError() << "kernel '"
                         << call->getParentOfType<func::FuncOp>().getName()
                         << "' calls '" << callee
                         << "', which has no CUDA version";
        failedCalls = true;
        return;
      }
      std::string device = ("oneflow_cuda_" + callee.drop_front(8)).str();
      declareHostFunction(
          module, device,
          cast<func::FuncOp>(module.lookupSymbol(callee)).getFunctionType());
      call.setCallee(device);
      renamed.insert(callee);
    });
    if (failedCalls)
      return signalPassFailure();
    for (const auto &entry : renamed)
      if (auto old = module.lookupSymbol<func::FuncOp>(entry.getKey()))
        if (SymbolTable::symbolKnownUseEmpty(old, module))
          old.erase();

    // Launches.
    SmallVector<Attribute> names;
    llvm::StringMap<int64_t> indexOf;
    func::FuncOp launchFn = declareHostFunction(
        module, kLaunchFunction,
        FunctionType::get(context, SmallVector<Type>(10, i64), {}));
    WalkResult walk = module.walk([&](gpu::LaunchFuncOp launch) {
      Location loc = launch.getLoc();
      StringRef name = launch.getKernelName().getValue();
      auto [it, inserted] = indexOf.try_emplace(name, names.size());
      if (inserted)
        names.push_back(b.getStringAttr(name));
      b.setInsertionPoint(launch);
      ValueRange args = launch.getKernelOperands();
      SmallVector<Value> slots;
      for (Value arg : args) {
        FailureOr<Value> slot = toSlot(b, loc, arg);
        if (failed(slot)) {
          launch.emitOpError() << "passes a " << arg.getType()
                               << ", which does not fit an 8-byte parameter";
          return WalkResult::interrupt();
        }
        slots.push_back(*slot);
      }
      auto arrayType =
          MemRefType::get({std::max<int64_t>(1, slots.size())}, i64);
      Value array = memref::AllocaOp::create(b, loc, arrayType);
      for (auto [index, slot] : llvm::enumerate(slots))
        memref::StoreOp::create(
            b, loc, slot, array,
            ValueRange{arith::ConstantIndexOp::create(b, loc, index)});
      Value arrayAddress = bufferAddress(b, loc, array);
      auto asI64 = [&](Value v) -> Value {
        return arith::IndexCastOp::create(b, loc, i64, v);
      };
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      Value shared = launch.getDynamicSharedMemorySize();
      Value sharedBytes =
          shared ? Value(arith::ExtUIOp::create(b, loc, i64, shared))
                 : Value(arith::ConstantIntOp::create(b, loc, i64, 0));
      SmallVector<Value> operands = {
          arith::ConstantIntOp::create(b, loc, i64, it->second),
          asI64(grid.x),
          asI64(grid.y),
          asI64(grid.z),
          asI64(block.x),
          asI64(block.y),
          asI64(block.z),
          sharedBytes,
          arrayAddress,
          arith::ConstantIntOp::create(b, loc, i64, slots.size())};
      func::CallOp::create(b, loc, launchFn, operands);
      launch.erase();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    module->setAttr("oneflow.gpu_kernels", b.getArrayAttr(names));
    for (Operation &op : llvm::make_early_inc_range(*module.getBody()))
      if (isa<gpu::BinaryOp, gpu::GPUModuleOp>(op))
        op.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
