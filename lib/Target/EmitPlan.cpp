//===- EmitPlan.cpp - Compile a module into an actor plan -----------------===//

#include "oneflow/Target/EmitPlan.h"
#include "oneflow/Target/EmittedPlan.h"

#include "Target.h"

#include "oneflow/Codegen/KernelCompiler.h"
#include "oneflow/Codegen/Passes.h"

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/SBP/SBPDialect.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::oneflow;

/// Graph outputs that are parameters or constants get a copy kernel: an
/// OUTPUT task reads a register that flows, never a persistent one.
static void copyPersistentOutputs(ModuleOp module, func::FuncOp graph) {
  auto ret = cast<func::ReturnOp>(graph.getBody().front().getTerminator());
  OpBuilder builder(module.getContext());
  SymbolTable symbols(module);
  for (OpOperand &operand : ret->getOpOperands()) {
    Operation *producer = operand.get().getDefiningOp();
    if (!isa_and_nonnull<VariableOp, ConstantOp>(producer))
      continue;
    Type type = operand.get().getType();
    builder.setInsertionPoint(graph);
    auto copy =
        func::FuncOp::create(builder, producer->getLoc(), "kernel_copy_output",
                             builder.getFunctionType({type}, {type}));
    copy.setPrivate();
    copy->setAttr(kKernelAttrName, builder.getUnitAttr());
    symbols.insert(copy);
    Block *body = copy.addEntryBlock();
    builder.setInsertionPointToStart(body);
    func::ReturnOp::create(builder, producer->getLoc(), body->getArgument(0));
    builder.setInsertionPoint(ret);
    auto call =
        func::CallOp::create(builder, producer->getLoc(), copy, operand.get());
    operand.set(call.getResult(0));
  }
}

namespace {
/// What fusion did over all rank programs.
struct FusionStats {
  int64_t opsBefore = 0;    // kernel ops before fusion
  int64_t fusedKernels = 0; // oneflow.fused regions formed
  double bytesInside = 0;   // tensors that stay inside a fused kernel
};
} // namespace

/// Ops that become kernels: oneflow compute ops (not registers or copies).
static bool isKernelOp(Operation &op) {
  return isa<OneFlowDialect>(op.getDialect()) &&
         !isa<ConstantOp, VariableOp, AssignOp>(op);
}

/// Runs oneflow-fold-gemm-aux-epilogues on one rank program of a CUDA plan
/// (or of one whose GPU kernels run on the CPU): cuBLASLt's activation
/// gradient epilogues, a graph rewrite, before fusion groups the ops.
static LogicalResult foldAuxEpilogues(func::FuncOp graph) {
  PassManager pm(graph.getContext(), func::FuncOp::getOperationName());
  pm.addPass(createFoldGemmAuxEpilogues());
  if (failed(applyPassManagerCLOptions(pm)) || failed(pm.run(graph)))
    return failure();
  return success();
}

/// Runs oneflow-fuse on one rank program and adds to `stats` the ops it
/// grouped and the bytes of values that no longer need a register.
static LogicalResult fuseGraph(func::FuncOp graph, FusionStats &stats) {
  stats.opsBefore += llvm::count_if(graph.getOps(), isKernelOp);
  PassManager pm(graph.getContext(), func::FuncOp::getOperationName());
  pm.addPass(createFuse());
  applyDefaultTimingPassManagerCLOptions(pm);
  if (failed(applyPassManagerCLOptions(pm)) || failed(pm.run(graph)))
    return failure();
  for (auto fused : graph.getOps<FusedOp>()) {
    ++stats.fusedKernels;
    for (Operation &op : fused.getBody().front().without_terminator())
      for (Value result : op.getResults())
        if (llvm::all_of(result.getUsers(),
                         [&](Operation *user) { return !isa<YieldOp>(user); }))
          if (auto type = dyn_cast<RankedTensorType>(result.getType()))
            stats.bytesInside +=
                type.getNumElements() * (type.getElementTypeBitWidth() / 8.0);
  }
  return success();
}

/// How many ranks run `graph`: the members of a shared program, else one.
static int64_t ranksRunning(func::FuncOp graph) {
  if (auto members =
          graph->getAttrOfType<DenseI64ArrayAttr>(kRoleMembersAttrName))
    return members.size();
  return 1;
}

static void printFusionReport(llvm::raw_ostream &os, ArrayRef<RankGraph> graphs,
                              const FusionStats &stats, bool fused) {
  int64_t kernels = 0, ranks = 0;
  for (const RankGraph &rankGraph : graphs) {
    func::FuncOp graph = rankGraph.graph;
    ranks += ranksRunning(graph);
    kernels +=
        ranksRunning(graph) * llvm::count_if(graph.getOps(), [](Operation &op) {
          auto call = dyn_cast<func::CallOp>(op);
          return call && !call.getCallee().starts_with("kernel_copy_output");
        });
  }
  if (ranks != int64_t(graphs.size()))
    os << "programs: " << graphs.size() << " shared by " << ranks
       << " ranks (one per rank role)\n";
  os << "kernels: " << kernels << " over " << ranks << " rank(s)";
  if (!fused) {
    os << " (fusion off)\n";
  } else {
    os << " from " << stats.opsBefore << " ops (" << stats.fusedKernels
       << " fused kernels); intermediate tensors kept inside kernels: "
       << llvm::format("%.0f", stats.bytesInside) << " bytes\n";
  }
  // What one step costs in launches and latencies across ranks.
  int64_t collectives = 0, most = 0, pointToPoint = 0;
  for (const RankGraph &rankGraph : graphs) {
    int64_t here = 0, transfers = 0;
    func::FuncOp(rankGraph.graph).walk([&](Operation *op) {
      if (isa<sbp::CollectiveOp>(op))
        ++here;
      else if (isa<sbp::SendOp, sbp::RecvOp>(op))
        ++transfers;
    });
    collectives += here * ranksRunning(rankGraph.graph);
    pointToPoint += transfers * ranksRunning(rankGraph.graph);
    most = std::max(most, here);
  }
  if (collectives || pointToPoint)
    os << "collectives per step: " << collectives << " over " << ranks
       << " rank(s) (at most " << most
       << " on a rank); sends and receives: " << pointToPoint << "\n";
}

void PhaseTimes::start(StringRef name) {
  stop();
  running = name.str();
  since = std::chrono::steady_clock::now();
}

void PhaseTimes::stop() {
  if (running.empty())
    return;
  std::chrono::duration<double> seconds =
      std::chrono::steady_clock::now() - since;
  phases.emplace_back(running, seconds.count());
  running.clear();
}

void PhaseTimes::print(llvm::raw_ostream &os) {
  stop();
  double total = 0;
  os << "time:";
  for (auto [index, phase] : llvm::enumerate(phases)) {
    os << (index ? ", " : " ") << phase.first << " "
       << llvm::format("%.2f", phase.second) << " s";
    total += phase.second;
  }
  os << "; total " << llvm::format("%.2f", total) << " s\n";
}

/// Writes `data` to `path` through a temporary file and a rename, so that a
/// crash never leaves a half-written file behind.
static LogicalResult writeAtomically(Location loc, StringRef path,
                                     StringRef data) {
  std::string temp = (path + ".tmp").str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(temp, ec, llvm::sys::fs::OF_None);
    if (ec)
      return emitError(loc) << "cannot write " << temp << ": " << ec.message();
    os << data;
    os.flush();
    if (os.has_error())
      return emitError(loc) << "cannot write " << temp;
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path))
    return emitError(loc) << "cannot move " << temp << " to " << path << ": "
                          << ec.message();
  return success();
}

/// The rank programs of `module`: @main_rank<r> after sbp-localize, else
/// @main on rank 0.
static FailureOr<SmallVector<RankGraph>> rankGraphsOf(ModuleOp module,
                                                      int64_t &numRanks) {
  SmallVector<RankGraph> graphs;
  auto count =
      module->getAttrOfType<IntegerAttr>(sbp::SBPDialect::kNumRanksAttrName);
  if (!count) {
    numRanks = 1;
    auto graph = module.lookupSymbol<func::FuncOp>("main");
    if (!graph || graph.isDeclaration())
      return module.emitError() << "the module has no @main graph to compile";
    graphs.push_back({graph, 0});
    return graphs;
  }
  numRanks = count.getInt();
  for (int64_t rank = 0; rank < numRanks; ++rank)
    if (auto graph = module.lookupSymbol<func::FuncOp>(
            ("main_rank" + Twine(rank)).str()))
      graphs.push_back({graph, rank});
  if (graphs.empty())
    return module.emitError() << "a module localized for " << numRanks
                              << " ranks holds no @main_rank<r> program";
  return graphs;
}

/// What both outputs do first: fuse and outline each rank's kernels (for
/// CUDA kernels, first folding activation gradients into products), let
/// optimizer updates write their variables, share identical kernels.
static FailureOr<SmallVector<RankGraph>>
prepareKernels(ModuleOp module, const EmitPlanOptions &options, bool cuda,
               int64_t &numRanks) {
  FailureOr<SmallVector<RankGraph>> graphs = rankGraphsOf(module, numRanks);
  if (failed(graphs))
    return failure();

  // CPU kernels may keep their own layout of weights no step writes, and
  // channels-last convs apply their residual adds and activations
  // themselves (CUDA convolutions run on cuDNN in the plan's layout).
  if (!cuda) {
    PassManager pm(module.getContext());
    pm.addPass(createMarkConstantWeights());
    if (options.channelsLast) {
      pm.addPass(createChannelsLast());
      pm.addNestedPass<func::FuncOp>(createFoldConvEpilogues());
    }
    applyDefaultTimingPassManagerCLOptions(pm);
    if (failed(applyPassManagerCLOptions(pm)) || failed(pm.run(module)))
      return failure();
  }

  FusionStats stats;
  for (RankGraph &rankGraph : *graphs) {
    func::FuncOp graph = rankGraph.graph;
    if (cuda && failed(foldAuxEpilogues(graph)))
      return failure();
    if (options.fuse && failed(fuseGraph(graph, stats)))
      return failure();
    // Only oneflow compute ops become kernels: variables, constants and
    // assigns are registers and copies, and sbp ops (collective, send, recv)
    // are COLLECTIVE tasks of their own, which OutlineKernels leaves alone.
    bool outlined = llvm::none_of(graph.getOps(), isKernelOp);
    if (!outlined) {
      PassManager pm(module.getContext());
      OutlineKernelsOptions outline;
      outline.graphFunction = graph.getSymName().str();
      pm.addPass(createOutlineKernels(outline));
      applyDefaultTimingPassManagerCLOptions(pm);
      if (failed(applyPassManagerCLOptions(pm)) || failed(pm.run(module)))
        return failure();
    }
    copyPersistentOutputs(module, graph);
  }

  // Optimizer updates write their variables directly (no ASSIGN copies),
  // as each call allows; then kernels with the same body and the same
  // in-place decision are compiled once (repeated layers, and ranks with
  // the same local shapes).
  {
    PassManager pm(module.getContext());
    pm.addPass(createUpdateVariablesInPlace());
    pm.addPass(createShareKernels());
    applyDefaultTimingPassManagerCLOptions(pm);
    if (failed(applyPassManagerCLOptions(pm)) || failed(pm.run(module)))
      return failure();
  }
  if (options.report)
    printFusionReport(*options.report, *graphs, stats, options.fuse);
  return graphs;
}

static void printCudaReport(llvm::raw_ostream &os,
                            const CudaKernelsReport &report, StringRef fatbin) {
  os << "cuda: " << report.launches << " GPU kernels from " << report.kernels
     << " kernels; " << report.hostCalls << " library calls; "
     << (report.launches ? fatbin : StringRef("no fatbin")) << "\n";
  for (const CudaArchReport &arch : report.archs)
    os << "cuda " << arch.arch << ": at most " << arch.maxRegisters
       << " registers per thread, " << arch.spillingEntries
       << " kernels spill\n";
}

LogicalResult mlir::oneflow::emitCudaKernels(ModuleOp module,
                                             const EmitPlanOptions &options,
                                             const CudaKernelsOptions &cuda) {
  Location loc = module.getLoc();
  int64_t numRanks = 1;
  if (failed(prepareKernels(module, options, /*cuda=*/true, numRanks)))
    return failure();
  if (std::error_code ec = llvm::sys::fs::create_directories(options.outputDir))
    return emitError(loc) << "cannot create " << options.outputDir << ": "
                          << ec.message();
  llvm::SmallString<256> path(options.outputDir);
  llvm::sys::path::append(path, "kernels.fatbin");
  std::string temp = (path + ".tmp").str();
  FailureOr<CudaKernelsReport> report =
      compileCudaKernels(module, temp, "", cuda);
  if (failed(report))
    return failure();
  if (std::error_code ec = llvm::sys::fs::rename(temp, path))
    return emitError(loc) << "cannot move the fatbin into place: "
                          << ec.message();
  if (options.report)
    printCudaReport(*options.report, *report, path);
  return success();
}

LogicalResult mlir::oneflow::emitPlan(ModuleOp module,
                                      const EmitPlanOptions &options) {
  Location loc = module.getLoc();
  int64_t numRanks = 1;
  auto phase = [&](StringRef name) {
    if (options.times)
      options.times->start(name);
  };
  phase("fusion and outlining");
  FailureOr<SmallVector<RankGraph>> graphs = prepareKernels(
      module, options, options.cuda || options.gpuKernelsOnCpu, numRanks);
  if (failed(graphs))
    return failure();

  phase("plan");
  FailureOr<BuiltPlan> built = buildPlan(*graphs, numRanks);
  if (failed(built))
    return failure();
  if (auto loss = module->getAttrOfType<StringAttr>(kLossOutputAttrName))
    built->plan.set_loss_output(loss.str());
  if (auto batch = module->getAttrOfType<IntegerAttr>(kBatchSizeAttrName))
    built->plan.set_batch_size(batch.getInt());
  if (options.planOnly) {
    built->plan.set_device(options.cuda ? "cuda" : "cpu");
    if (options.planOut)
      options.planOut->plan.Swap(&built->plan);
    return success();
  }

  if (std::error_code ec = llvm::sys::fs::create_directories(options.outputDir))
    return emitError(loc) << "cannot create " << options.outputDir << ": "
                          << ec.message();
  auto pathOf = [&](StringRef name) {
    llvm::SmallString<256> path(options.outputDir);
    llvm::sys::path::append(path, name);
    return std::string(path);
  };
  std::string library = pathOf(built->plan.kernel_library());
  std::string tempLibrary = library + ".tmp";
  // The kernels' MLIR lowering, then (the compilers report when) their LLVM
  // code.
  phase("kernel lowering");
  CodegenStats codegen;
  if (options.cuda) {
    // A CUDA plan: the GPU functions in a fatbin, their host code in
    // kernels.so.
    built->plan.set_device("cuda");
    std::string fatbin = pathOf("kernels.fatbin");
    CudaKernelsOptions cuda = *options.cuda;
    cuda.threads = options.compileThreads;
    cuda.cacheDirectory = options.kernelCacheDirectory;
    cuda.phase = phase;
    cuda.stats = &codegen;
    FailureOr<CudaKernelsReport> report =
        compileCudaKernels(module, fatbin + ".tmp", tempLibrary, cuda);
    if (failed(report))
      return failure();
    // Without GPU functions (every kernel a library call) there is no
    // fatbin.
    if (!report->gpuKernels.empty()) {
      built->plan.set_gpu_binary("kernels.fatbin");
      if (std::error_code ec = llvm::sys::fs::rename(fatbin + ".tmp", fatbin))
        return emitError(loc)
               << "cannot move the fatbin into place: " << ec.message();
    }
    for (const std::string &name : report->gpuKernels)
      built->plan.add_gpu_kernels(name);
    if (options.report)
      printCudaReport(*options.report, *report, fatbin);
  } else {
    built->plan.set_device("cpu");
    CpuKernelsOptions cpu;
    cpu.gpuKernelsOnCpu = options.gpuKernelsOnCpu;
    cpu.threads = options.compileThreads;
    cpu.cacheDirectory = options.kernelCacheDirectory;
    cpu.phase = phase;
    cpu.stats = &codegen;
    if (failed(compileKernels(module, tempLibrary, cpu)))
      return failure();
  }
  if (std::error_code ec = llvm::sys::fs::rename(tempLibrary, library))
    return emitError(loc) << "cannot move the kernel library into place: "
                          << ec.message();
  if (options.report) {
    *options.report << "kernel code: " << codegen.kernels
                    << " distinct kernels in " << codegen.objects
                    << " object(s) on " << codegen.threads << " thread(s)";
    if (codegen.cacheEnabled)
      *options.report << "; " << codegen.cachedObjects << " of "
                      << codegen.objects << " object(s) from the kernel cache";
    *options.report << "\n";
  }
  phase("writing");
  if (failed(writeAtomically(loc, pathOf(built->plan.weights_file()),
                             built->weights)))
    return failure();
  // The source model, for writing trained weights back into it.
  if (!options.sourceModel.empty()) {
    auto model = llvm::MemoryBuffer::getFile(options.sourceModel);
    if (!model)
      return emitError(loc) << "cannot read " << options.sourceModel << ": "
                            << model.getError().message();
    built->plan.set_source_model("model.onnx");
    if (failed(writeAtomically(loc, pathOf("model.onnx"),
                               (*model)->getBuffer().str())))
      return failure();
  }
  // The plan goes last: its presence means the directory is complete.
  if (failed(writeAtomically(loc, pathOf("plan.pb"),
                             built->plan.SerializeAsString())))
    return failure();
  if (options.planOut)
    options.planOut->plan.Swap(&built->plan);
  return success();
}
