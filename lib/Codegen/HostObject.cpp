//===- HostObject.cpp - Kernel host code to a shared library --------------===//

#include "HostObject.h"
#include "KernelExtraction.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace mlir;
using namespace mlir::oneflow;

/// Adds `void name(void **args)` calling `name_body(args[0], args[1], ...)`.
LogicalResult mlir::oneflow::addEntryPoints(ModuleOp module,
                                            ArrayRef<std::string> names) {
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());
  auto ptrType = LLVM::LLVMPointerType::get(module.getContext());
  auto voidType = LLVM::LLVMVoidType::get(module.getContext());
  for (const std::string &name : names) {
    auto body =
        module.lookupSymbol<LLVM::LLVMFuncOp>(name + kKernelBodySuffix.str());
    if (!body ||
        !isa<LLVM::LLVMVoidType>(body.getFunctionType().getReturnType()))
      return module.emitError() << "kernel " << name
                                << " did not lower to a void function of "
                                   "buffer pointers";
    Location loc = body.getLoc();
    auto entry = LLVM::LLVMFuncOp::create(
        builder, loc, name, LLVM::LLVMFunctionType::get(voidType, {ptrType}));
    Block *block = entry.addEntryBlock(builder);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(block);
    SmallVector<Value> args;
    for (unsigned i = 0, e = body.getNumArguments(); i < e; ++i) {
      Value slot = LLVM::GEPOp::create(builder, loc, ptrType, ptrType,
                                       block->getArgument(0),
                                       ArrayRef<LLVM::GEPArg>{(int32_t)i});
      args.push_back(LLVM::LoadOp::create(builder, loc, ptrType, slot));
    }
    LLVM::CallOp::create(builder, loc, body, args);
    LLVM::ReturnOp::create(builder, loc, ValueRange());
    // The body is only reached through its entry: let LLVM inline it.
    body.setLinkage(LLVM::Linkage::Internal);
  }
  return success();
}

LogicalResult mlir::oneflow::emitHostObject(ModuleOp module,
                                            StringRef objectPath) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  registerOpenMPDialectTranslation(*module.getContext());

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "kernels");
  if (!llvmModule)
    return module.emitError() << "cannot translate the kernels to LLVM IR";

  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError()
           << "no LLVM target for " << triple.str() << ": " << error;
  llvm::SubtargetFeatures features;
  bool hasAvx512 = false;
  for (const auto &[feature, enabled] : llvm::sys::getHostCPUFeatures()) {
    features.AddFeature(feature, enabled);
    hasAvx512 |= feature == "avx512f" && enabled;
  }
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(),
      llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  // LLVM's x86 tuning prefers 256-bit vectors even where AVX-512 exists;
  // the kernels' elementwise and row loops run 1-2% of the GPT training
  // step faster with 512-bit ones (A/B, alternating runs).
  if (hasAvx512)
    for (llvm::Function &function : *llvmModule)
      if (!function.isDeclaration())
        function.addFnAttr("prefer-vector-width", "512");
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);
  if (const char *dump = std::getenv("ONEFLOW_DUMP_KERNELS_LL")) {
    std::error_code ec;
    llvm::raw_fd_ostream os(dump, ec, llvm::sys::fs::OF_None);
    if (!ec)
      llvmModule->print(os, nullptr);
  }

  auto optimize =
      makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return module.emitError()
           << "LLVM optimization failed: " << llvm::toString(std::move(err));

  std::error_code ec;
  llvm::raw_fd_ostream os(objectPath, ec, llvm::sys::fs::OF_None);
  if (ec)
    return module.emitError()
           << "cannot write " << objectPath << ": " << ec.message();
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return module.emitError() << "the host target cannot emit object files";
  codegen.run(*llvmModule);
  os.flush();
  return success();
}

LogicalResult mlir::oneflow::linkSharedLibrary(Location loc,
                                               StringRef objectPath,
                                               StringRef libraryPath,
                                               ArrayRef<StringRef> extraArgs) {
  std::string compiler = ONEFLOW_CXX_COMPILER;
  SmallVector<StringRef> args = {compiler, "-shared", "-o", libraryPath,
                                 objectPath};
  args.append(extraArgs.begin(), extraArgs.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(compiler, args, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0)
    return emitError(loc) << "linking " << libraryPath << " failed (" << rc
                          << ")" << (message.empty() ? "" : ": " + message);
  return success();
}
