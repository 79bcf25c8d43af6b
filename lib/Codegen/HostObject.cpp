//===- HostObject.cpp - Kernel host code to a shared library --------------===//

#include "HostObject.h"
#include "KernelExtraction.h"
#include "ObjectCache.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
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
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <algorithm>
#include <numeric>
#include <thread>

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

unsigned mlir::oneflow::codegenThreads(unsigned requested) {
  if (requested)
    return requested;
  if (const char *env = std::getenv("ONEFLOW_COMPILE_THREADS")) {
    unsigned threads = 0;
    if (!StringRef(env).getAsInteger(10, threads) && threads > 0)
      return threads;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

namespace {
/// The host target, created once per object (a TargetMachine is not shared
/// between threads).
struct HostTarget {
  llvm::Triple triple;
  const llvm::Target *target = nullptr;
  std::string cpu, features;
  bool hasAvx512 = false;

  LogicalResult init(Operation *anchor) {
    triple = llvm::Triple(llvm::sys::getDefaultTargetTriple());
    std::string error;
    target = llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return anchor->emitError()
             << "no LLVM target for " << triple.str() << ": " << error;
    llvm::SubtargetFeatures subtarget;
    for (const auto &[feature, enabled] : llvm::sys::getHostCPUFeatures()) {
      subtarget.AddFeature(feature, enabled);
      hasAvx512 |= feature == "avx512f" && enabled;
    }
    cpu = llvm::sys::getHostCPUName().str();
    features = subtarget.getString();
    return success();
  }

  std::unique_ptr<llvm::TargetMachine> createMachine() const {
    return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
        triple, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_,
        std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  }

  /// Gives `llvmModule` the host's layout and triple and the kernels' vector
  /// width preference.
  void prepare(llvm::Module &llvmModule, llvm::TargetMachine &machine) const {
    // LLVM's x86 tuning prefers 256-bit vectors even where AVX-512 exists;
    // the kernels' elementwise and row loops run 1-2% of the GPT training
    // step faster with 512-bit ones (A/B, alternating runs).
    if (hasAvx512)
      for (llvm::Function &function : llvmModule)
        if (!function.isDeclaration())
          function.addFnAttr("prefer-vector-width", "512");
    llvmModule.setDataLayout(machine.createDataLayout());
    llvmModule.setTargetTriple(triple);
  }
};
} // namespace

/// Translates one chunk of the host code, optimizes it at O3 and writes its
/// object file, or copies the object `cache` has for the same IR and target
/// (`fromCache`). Runs on a worker thread: everything LLVM here (context,
/// module, target machine) is the chunk's own.
static LogicalResult emitChunk(ModuleOp chunk, const HostTarget &host,
                               const ObjectCache &cache, StringRef objectPath,
                               bool &fromCache) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(chunk, llvmContext, "kernels");
  if (!llvmModule)
    return chunk.emitError() << "cannot translate the kernels to LLVM IR";
  std::unique_ptr<llvm::TargetMachine> machine = host.createMachine();
  host.prepare(*llvmModule, *machine);

  std::string key;
  if (cache.enabled()) {
    key = ObjectCache::key(*llvmModule, *machine);
    fromCache = cache.fetch(key, objectPath);
    if (fromCache)
      return success();
  }

  auto optimize =
      makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return chunk.emitError()
           << "LLVM optimization failed: " << llvm::toString(std::move(err));

  SmallString<0> object;
  llvm::raw_svector_ostream objectStream(object);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, objectStream, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return chunk.emitError() << "the host target cannot emit object files";
  codegen.run(*llvmModule);

  std::error_code ec;
  llvm::raw_fd_ostream os(objectPath, ec, llvm::sys::fs::OF_None);
  if (!ec) {
    os << object;
    os.close();
    ec = os.error();
    os.clear_error();
  }
  if (ec)
    return chunk.emitError()
           << "cannot write " << objectPath << ": " << ec.message();
  std::string error;
  if (cache.enabled() && !cache.store(key, object, error))
    chunk.emitWarning() << "kernel cache: " << error;
  return success();
}

/// A chunk holds at least this many ops of the LLVM dialect (a small model's
/// host code stays one object)...
static constexpr int64_t kMinChunkOps = 4000;
/// ... and there are at most this many chunks, whatever the thread count,
/// so that the objects (and kernels.so) do not depend on it.
static constexpr int64_t kMaxChunks = 32;

/// Splits the entries `names` (and their bodies) into chunks of similar
/// size: the largest first, each to the lightest chunk so far. Depends only
/// on the module.
static SmallVector<SmallVector<StringRef>>
partitionEntries(SymbolTable &symbols, ArrayRef<std::string> names) {
  SmallVector<int64_t> cost;
  int64_t total = 0;
  for (const std::string &name : names) {
    int64_t ops = 0;
    std::string body = name + kKernelBodySuffix.str();
    for (StringRef symbol : {StringRef(name), StringRef(body)})
      if (Operation *function = symbols.lookup(symbol))
        function->walk([&](Operation *) { ++ops; });
    cost.push_back(ops);
    total += ops;
  }
  // One chunk at least: a plan without kernels still gets a (linkable)
  // object.
  int64_t count =
      std::max<int64_t>(1, std::min<int64_t>({total / kMinChunkOps, kMaxChunks,
                                              int64_t(names.size())}));
  SmallVector<unsigned> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::stable_sort(order,
                    [&](unsigned a, unsigned b) { return cost[a] > cost[b]; });
  SmallVector<int64_t> load(count, 0);
  SmallVector<unsigned> chunkOf(names.size());
  for (unsigned entry : order) {
    unsigned lightest =
        std::min_element(load.begin(), load.end()) - load.begin();
    chunkOf[entry] = lightest;
    load[lightest] += cost[entry];
  }
  SmallVector<SmallVector<StringRef>> chunks(count);
  for (auto [entry, name] : llvm::enumerate(names))
    chunks[chunkOf[entry]].push_back(name);
  return chunks;
}

/// A module with the entries `names`, their bodies and everything they
/// reference (functions, globals, declarations), copied from `module` in its
/// order. Definitions other than the entries become internal: each chunk
/// keeps its own copy, and only the entries are exported.
static OwningOpRef<ModuleOp> extractChunk(ModuleOp module, SymbolTable &symbols,
                                          ArrayRef<StringRef> names) {
  DenseSet<Operation *> needed;
  SmallVector<Operation *> worklist;
  auto need = [&](Operation *symbol) {
    if (symbol && needed.insert(symbol).second)
      worklist.push_back(symbol);
  };
  DenseSet<StringRef> entries(names.begin(), names.end());
  for (StringRef name : names) {
    need(symbols.lookup(name));
    need(symbols.lookup((name + kKernelBodySuffix).str()));
  }
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (auto uses = SymbolTable::getSymbolUses(op))
      for (const SymbolTable::SymbolUse &use : *uses)
        need(symbols.lookup(use.getSymbolRef().getRootReference()));
  }
  OpBuilder builder(module.getContext());
  OwningOpRef<ModuleOp> chunk = ModuleOp::create(module.getLoc());
  (*chunk)->setAttrs(module->getAttrDictionary());
  builder.setInsertionPointToEnd(chunk->getBody());
  for (Operation &op : module.getBody()->getOperations()) {
    if (isa<SymbolOpInterface>(op) && !needed.contains(&op))
      continue;
    Operation *copy = builder.clone(op);
    if (auto function = dyn_cast<LLVM::LLVMFuncOp>(copy)) {
      if (!function.isExternal() && !entries.contains(function.getName()) &&
          function.getLinkage() == LLVM::Linkage::External)
        function.setLinkage(LLVM::Linkage::Internal);
    } else if (auto global = dyn_cast<LLVM::GlobalOp>(copy)) {
      bool defined =
          global.getValueOrNull() || !global.getInitializerRegion().empty();
      if (defined && global.getLinkage() == LLVM::Linkage::External)
        global.setLinkage(LLVM::Linkage::Internal);
    }
  }
  return chunk;
}

FailureOr<HostObjects>
mlir::oneflow::emitHostObjects(ModuleOp module, ArrayRef<std::string> names,
                               StringRef objectPrefix, unsigned threads,
                               StringRef cacheDirectory) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  MLIRContext *context = module.getContext();
  registerBuiltinDialectTranslation(*context);
  registerLLVMDialectTranslation(*context);
  registerOpenMPDialectTranslation(*context);

  HostTarget host;
  if (failed(host.init(module)))
    return failure();
  if (const char *dump = std::getenv("ONEFLOW_DUMP_KERNELS_LL")) {
    // The whole host code before optimization, as one module.
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(module, llvmContext, "kernels");
    if (!llvmModule)
      return module.emitError() << "cannot translate the kernels to LLVM IR";
    std::unique_ptr<llvm::TargetMachine> machine = host.createMachine();
    host.prepare(*llvmModule, *machine);
    std::error_code ec;
    llvm::raw_fd_ostream os(dump, ec, llvm::sys::fs::OF_None);
    if (!ec)
      llvmModule->print(os, nullptr);
  }

  // The chunks are cut on this thread; translation, optimization and object
  // emission of each run on the workers, in any order.
  SymbolTable symbols(module);
  SmallVector<OwningOpRef<ModuleOp>> chunks;
  SmallVector<std::string> paths;
  for (ArrayRef<StringRef> entries : partitionEntries(symbols, names)) {
    chunks.push_back(extractChunk(module, symbols, entries));
    paths.push_back((objectPrefix + "." + Twine(paths.size()) + ".o").str());
  }
  SmallVector<char> ok(chunks.size(), 0), cached(chunks.size(), 0);
  ObjectCache cache(cacheDirectory);
  auto emit = [&](size_t index) {
    bool fromCache = false;
    ok[index] = succeeded(
        emitChunk(*chunks[index], host, cache, paths[index], fromCache));
    cached[index] = fromCache;
  };
  threads = std::min<unsigned>(codegenThreads(threads), chunks.size());
  // The workers create MLIR attributes while translating (their own
  // chunks): the context must allow it.
  if (!context->isMultithreadingEnabled())
    threads = 1;
  if (threads <= 1) {
    for (size_t index = 0; index < chunks.size(); ++index)
      emit(index);
  } else {
    // Diagnostics from the workers come out in chunk order.
    ParallelDiagnosticHandler diagnostics(context);
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
    for (size_t index = 0; index < chunks.size(); ++index)
      pool.async([&, index] {
        diagnostics.setOrderIDForThread(index);
        emit(index);
        diagnostics.eraseOrderIDForThread();
      });
    pool.wait();
  }
  if (llvm::is_contained(ok, 0)) {
    for (const std::string &path : paths)
      llvm::sys::fs::remove(path);
    return failure();
  }
  size_t fromCache = llvm::count(cached, 1);
  if (cache.enabled() && fromCache < chunks.size())
    cache.prune();
  return HostObjects{std::move(paths), threads, fromCache};
}

LogicalResult mlir::oneflow::linkSharedLibrary(
    Location loc, ArrayRef<std::string> objectPaths, StringRef libraryPath,
    ArrayRef<StringRef> extraArgs) {
  std::string compiler = ONEFLOW_CXX_COMPILER;
  SmallVector<StringRef> args = {compiler, "-shared", "-o", libraryPath};
  args.append(objectPaths.begin(), objectPaths.end());
  args.append(extraArgs.begin(), extraArgs.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(compiler, args, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0)
    return emitError(loc) << "linking " << libraryPath << " failed (" << rc
                          << ")" << (message.empty() ? "" : ": " + message);
  return success();
}
