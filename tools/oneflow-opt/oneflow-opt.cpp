//===- oneflow-opt.cpp - The OneFlow-MLIR compiler driver -----------------===//
//
// Behaves like mlir-opt with the oneflow and sbp dialects and every upstream
// dialect and pass registered, so each pass can be run and tested alone. An
// input ending in `.onnx` is imported first; the passes then run on the
// imported module.
//
//===----------------------------------------------------------------------===//

#include "AutoParallel.h"
#include "NodeDiagnosticHandler.h"
#include "Simulate.h"
#include "Weights.h"

#include "oneflow/Codegen/Passes.h"
#include "oneflow/Conversion/Passes.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/SBP/SBPDialect.h"
#include "oneflow/Import/ONNX/ONNXImporter.h"
#include "oneflow/Target/EmitPlan.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <optional>
#include <vector>

using namespace mlir;

namespace mlir::oneflow::test {
void registerTestPrintSbpSignaturesPass();
} // namespace mlir::oneflow::test

static llvm::cl::list<std::string>
    inputShapes("input-shape",
                llvm::cl::desc("Pin the shape of an ONNX graph input, "
                               "NAME:DxDx... (repeatable)"),
                llvm::cl::value_desc("NAME:2x32"));

static llvm::cl::list<std::string> constantInputs(
    "constant-input",
    llvm::cl::desc("Bind an ONNX graph input to the value in a serialized "
                   "ONNX TensorProto, NAME=FILE.pb (repeatable): the model is "
                   "specialized to it"),
    llvm::cl::value_desc("NAME=FILE.pb"));

static llvm::cl::opt<std::string> weightsOption(
    "weights",
    llvm::cl::desc("Data of an MLIR model's variables: a checkpoint "
                   "directory (manifest.json and one .npy per variable, the "
                   "format of oneflow-run --save)"),
    llvm::cl::value_desc("DIR"), llvm::cl::init(""));

static llvm::cl::opt<int64_t> seedOption(
    "seed",
    llvm::cl::desc("Seed of every oneflow.dropout mask (each op keeps its "
                   "own stream); the same seed draws the same masks"),
    llvm::cl::init(-1));

static llvm::cl::opt<std::string>
    emitKind("emit",
             llvm::cl::desc("Compile instead of printing MLIR: 'plan' writes "
                            "the actor plan directory given by -o; "
                            "'cuda-kernels' (with --device=cuda[:sm_XX]) "
                            "compiles the kernels into DIR/kernels.fatbin"),
             llvm::cl::value_desc("plan|cuda-kernels"), llvm::cl::init(""));

static llvm::cl::opt<std::string>
    meshOption("mesh",
               llvm::cl::desc("Devices of the placement: N or RxC (up to 3 "
                              "axes); distributes the graph with SBP"),
               llvm::cl::value_desc("2x2"), llvm::cl::init(""));
static llvm::cl::opt<std::string> strategyOption(
    "sbp-strategy",
    llvm::cl::desc("How to distribute: data, tensor, or one per mesh axis "
                   "(data,tensor); auto: every op's SBP by a cost-based "
                   "solve on the cluster of --simulate (default "
                   "clusters/cpu-local.json)"),
    llvm::cl::init("data"));
static llvm::cl::opt<bool>
    shardOptimizerStateOption("shard-optimizer-state",
                              llvm::cl::desc("Deprecated: =false is --zero=0"),
                              llvm::cl::init(true));
static llvm::cl::opt<int64_t> zeroOption(
    "zero",
    llvm::cl::desc("ZeRO stage on the data-parallel mesh axes: 0 replicated, "
                   "1 or 2 optimizer state split (the gradient reduce-"
                   "scattered, the updated parameter all-gathered; the "
                   "default), 3 parameters split too (gathered for each "
                   "phase that reads them)"),
    llvm::cl::init(1));
static llvm::cl::opt<double> bucketMbOption(
    "bucket-mb",
    llvm::cl::desc("Coalesce each rank's independent collectives into "
                   "buckets of at most this many MiB (default 25, as DDP; "
                   "0: one collective per tensor)"),
    llvm::cl::init(25.0));
static llvm::cl::opt<bool> shareProgramsOption(
    "share-programs",
    llvm::cl::desc("One program per rank role: the ranks of a mesh (of a "
                   "pipeline stage) share one program whose device-dependent "
                   "values come from their mesh coordinates at run time "
                   "(default on; =false writes one program per rank)"),
    llvm::cl::init(true));
static llvm::cl::opt<std::string> deviceOption(
    "device",
    llvm::cl::desc("Device kind: cpu, or cuda[:sm_XX] (a GPU architecture)"),
    llvm::cl::init("cpu"));

/// The GPU architectures CUDA 13's ptxas compiles for.
static constexpr llvm::StringLiteral kCudaArchitectures[] = {
    "sm_75",  "sm_80",  "sm_86",   "sm_87",  "sm_88",  "sm_89",  "sm_90",
    "sm_90a", "sm_100", "sm_100a", "sm_103", "sm_110", "sm_120", "sm_121"};

/// Checks --device before anything reaches LLVM (an unknown NVPTX chip
/// aborts it); sets `kind` to cpu or cuda. An error names the valid values.
static bool parseDevice(std::string &kind) {
  llvm::StringRef device = deviceOption;
  auto [name, arch] = device.split(':');
  if (name == "cpu" && !device.contains(':')) {
    kind = "cpu";
    return true;
  }
  if (name == "cuda" &&
      (!device.contains(':') || llvm::is_contained(kCudaArchitectures, arch))) {
    kind = "cuda";
    return true;
  }
  llvm::errs() << "error: --device=" << device
               << ": expected cpu, cuda, or cuda:ARCH with ARCH one of "
               << llvm::join(llvm::ArrayRef(kCudaArchitectures), ", ") << "\n";
  return false;
}
static llvm::cl::opt<bool> noFuseOption(
    "no-fuse",
    llvm::cl::desc("With --emit=plan: one kernel per op, no kernel fusion "
                   "(also when ONEFLOW_NO_FUSE=1 is set)"),
    llvm::cl::init(false));

/// --no-fuse, or ONEFLOW_NO_FUSE=1 in the environment (how the test suite
/// runs every end-to-end test a second time without fusion).
static bool fusionDisabled() {
  const char *env = std::getenv("ONEFLOW_NO_FUSE");
  return noFuseOption || (env && llvm::StringRef(env) == "1");
}
static llvm::cl::opt<bool> noChannelsLastOption(
    "no-channels-last",
    llvm::cl::desc("With --emit=plan: keep an inference plan's CPU "
                   "convolutions on NCHW activations (also when "
                   "ONEFLOW_NO_CHANNELS_LAST=1 is set)"),
    llvm::cl::init(false));
static bool channelsLastDisabled() {
  const char *env = std::getenv("ONEFLOW_NO_CHANNELS_LAST");
  return noChannelsLastOption || (env && llvm::StringRef(env) == "1");
}
static llvm::cl::opt<unsigned> compileThreadsOption(
    "compile-threads",
    llvm::cl::desc("With --emit=plan: threads that generate the kernels' "
                   "machine code (default 0: ONEFLOW_COMPILE_THREADS, else "
                   "every core); the plan does not depend on it"),
    llvm::cl::init(0));
static llvm::cl::opt<std::string> kernelCacheDirOption(
    "kernel-cache-dir",
    llvm::cl::desc("With --emit=plan: keep the kernels' machine code in DIR "
                   "and reuse it when the same kernels are compiled again "
                   "(default: ONEFLOW_KERNEL_CACHE_DIR, else no cache)"),
    llvm::cl::value_desc("DIR"), llvm::cl::init(""));

/// --kernel-cache-dir, else ONEFLOW_KERNEL_CACHE_DIR, else none.
static std::string kernelCacheDirectory() {
  if (!kernelCacheDirOption.empty())
    return kernelCacheDirOption;
  const char *env = std::getenv("ONEFLOW_KERNEL_CACHE_DIR");
  return env ? env : "";
}
static llvm::cl::opt<bool> gpuKernelsOnCpuOption(
    "gpu-kernels-on-cpu",
    llvm::cl::desc("With --emit=plan (developer check of the CUDA backend): "
                   "map the kernels' loops onto GPU blocks and threads and "
                   "run the launches as CPU loops"),
    llvm::cl::init(false));
static llvm::cl::opt<bool> sbpReport(
    "sbp-report",
    llvm::cl::desc("Print each op's SBP signature and the bytes every boxing "
                   "moves"),
    llvm::cl::init(false));

static llvm::cl::OptionCategory trainingCategory("Training");
static llvm::cl::opt<bool> trainOption(
    "train",
    llvm::cl::desc("Compile a training step: loss, backward pass and "
                   "optimizer update"),
    llvm::cl::init(false), llvm::cl::cat(trainingCategory));
static llvm::cl::opt<std::string>
    lossOption("loss", llvm::cl::desc("Training loss: cross-entropy or mse"),
               llvm::cl::init("cross-entropy"),
               llvm::cl::cat(trainingCategory));
static llvm::cl::opt<std::string> labelOption(
    "label", llvm::cl::desc("Name of the new graph input carrying the labels"),
    llvm::cl::init("labels"), llvm::cl::cat(trainingCategory));
static llvm::cl::opt<std::string> lossOnOption(
    "loss-on",
    llvm::cl::desc("The model output the loss is taken on (default: first)"),
    llvm::cl::init(""), llvm::cl::cat(trainingCategory));
static llvm::cl::opt<std::string>
    optimizerOption("optimizer", llvm::cl::desc("sgd or adamw"),
                    llvm::cl::init("sgd"), llvm::cl::cat(trainingCategory));
static llvm::cl::opt<double> lrOption("lr", llvm::cl::desc("Learning rate"),
                                      llvm::cl::init(0.01),
                                      llvm::cl::cat(trainingCategory));
static llvm::cl::opt<double> momentumOption("momentum",
                                            llvm::cl::desc("SGD momentum"),
                                            llvm::cl::init(0.0),
                                            llvm::cl::cat(trainingCategory));
static llvm::cl::opt<bool>
    nesterovOption("nesterov", llvm::cl::desc("SGD with Nesterov momentum"),
                   llvm::cl::init(false), llvm::cl::cat(trainingCategory));
static llvm::cl::opt<double> weightDecayOption(
    "weight-decay",
    llvm::cl::desc("Weight decay (default: 0 for sgd, 0.01 for adamw)"),
    llvm::cl::init(-1.0), llvm::cl::cat(trainingCategory));
static llvm::cl::opt<int64_t> microbatchesOption(
    "microbatches",
    llvm::cl::desc("Accumulate gradients over M micro-batches per step"),
    llvm::cl::init(1), llvm::cl::cat(trainingCategory));
static llvm::cl::opt<std::string> recomputeOption(
    "recompute",
    llvm::cl::desc("Recompute activations in the backward pass instead of "
                   "keeping them: none, selective (cheap ops: elementwise, "
                   "softmax, attention scores) or full (all but each "
                   "layer's inputs)"),
    llvm::cl::value_desc("none|selective|full"), llvm::cl::init("none"),
    llvm::cl::cat(trainingCategory));
static llvm::cl::opt<std::string> precisionOption(
    "precision",
    llvm::cl::desc("Compute precision: f32, or bf16 / f16 mixed precision "
                   "typed like PyTorch's autocast (products in the low type, "
                   "losses and reductions in f32, f32 master weights and "
                   "optimizer state)"),
    llvm::cl::value_desc("f32|bf16|f16"), llvm::cl::init("f32"),
    llvm::cl::cat(trainingCategory));
static llvm::cl::list<std::string>
    freezeOption("freeze",
                 llvm::cl::desc("Parameters not to train (comma-separated)"),
                 llvm::cl::CommaSeparated, llvm::cl::cat(trainingCategory));

static llvm::cl::OptionCategory pipelineCategory("Pipeline");
static llvm::cl::opt<int64_t> stagesOption(
    "stages",
    llvm::cl::desc("Pipeline stages of a --train graph (ranks = stages x "
                   "mesh devices)"),
    llvm::cl::init(1), llvm::cl::cat(pipelineCategory));
static llvm::cl::opt<std::string> memoryLimitOption(
    "memory-limit",
    llvm::cl::desc("Bytes a rank of a pipeline stage may hold (80GiB, "
                   "512MB, ...): the stage cut keeps every stage's estimate "
                   "under it, or fails naming the smallest --stages that "
                   "fits"),
    llvm::cl::init(""), llvm::cl::cat(pipelineCategory));
static llvm::cl::opt<std::string> scheduleOption(
    "schedule",
    llvm::cl::desc("Pipeline schedule: 1f1b, gpipe or interleaved (1F1B "
                   "over --virtual-stages model chunks per stage)"),
    llvm::cl::init("1f1b"), llvm::cl::cat(pipelineCategory));
static llvm::cl::opt<int64_t> virtualStagesOption(
    "virtual-stages",
    llvm::cl::desc("With --schedule=interleaved: model chunks per stage (the "
                   "graph is cut into stages x virtual-stages chunks, chunk "
                   "c on stage c mod stages)"),
    llvm::cl::init(1), llvm::cl::cat(pipelineCategory));

static llvm::cl::OptionCategory autoCategory("Automatic parallelism");
static llvm::cl::opt<bool> autoParallelOption(
    "auto-parallel",
    llvm::cl::desc("Choose the mesh, axis roles, SBPs, pipeline stages, "
                   "micro-batches, schedule and optimizer-state sharding for "
                   "--devices on the cluster of --simulate (default "
                   "clusters/cpu-local.json), print the choice, compile it"),
    llvm::cl::init(false), llvm::cl::cat(autoCategory));
static llvm::cl::opt<int64_t>
    devicesOption("devices",
                  llvm::cl::desc("With --auto-parallel: how many devices"),
                  llvm::cl::init(0), llvm::cl::cat(autoCategory));

static llvm::cl::opt<bool> sbpAutoEnumerateOption(
    "sbp-auto-enumerate",
    llvm::cl::desc("With --sbp-strategy=auto (a check for small graphs): "
                   "also enumerate every assignment of signatures and print "
                   "the optimum next to the solve's"),
    llvm::cl::init(false), llvm::cl::cat(autoCategory), llvm::cl::Hidden);
static llvm::cl::opt<bool> sbpAutoRepeatedLayersOption(
    "sbp-auto-repeated-layers",
    llvm::cl::desc("With --sbp-strategy=auto or --auto-parallel: solve "
                   "identical layers (module paths with an index, equal op "
                   "by op) once, each copy taking the first one's "
                   "signatures (default on)"),
    llvm::cl::init(true), llvm::cl::cat(autoCategory));
static llvm::cl::opt<int> runnersUpOption(
    "auto-parallel-runners-up",
    llvm::cl::desc("With --auto-parallel: how many runners-up to list "
                   "(default 5)"),
    llvm::cl::init(5), llvm::cl::cat(autoCategory));

static llvm::cl::opt<int> autoVerifyOption(
    "auto-parallel-verify",
    llvm::cl::desc("With --auto-parallel: compile the step model's N best "
                   "configurations into plans, each with the SBP solve and "
                   "with the Megatron template, replay each on the "
                   "simulator and take the fastest that fits (default 3; "
                   "0: the step model's choice)"),
    llvm::cl::init(3), llvm::cl::cat(autoCategory));
static llvm::cl::opt<double> autoBudgetOption(
    "auto-parallel-budget",
    llvm::cl::desc("With --auto-parallel: seconds the whole search may take; "
                   "no candidate is compiled for the simulator's check "
                   "after they are spent (default 45)"),
    llvm::cl::init(45.0), llvm::cl::cat(autoCategory));
static llvm::cl::opt<double> autoMarginOption(
    "auto-parallel-margin",
    llvm::cl::desc("With --auto-parallel: the simulator's check replaces "
                   "the step model's best layout by another only when that "
                   "one simulates faster by more than this fraction "
                   "(default 0.05); smaller differences are within the two "
                   "models' error"),
    llvm::cl::init(0.05), llvm::cl::cat(autoCategory));

/// While the search checks its candidates: no sbp-auto summary lines.
static bool quietAutoSolve = false;

/// The configuration --auto-parallel chose; its parameter layouts are kept
/// when the training graph is too large to solve over nd-signatures.
static oneflow::AutoParallelChoice autoChoice;

static llvm::cl::OptionCategory simulateCategory("Simulation");
static llvm::cl::opt<std::string> simulateOption(
    "simulate",
    llvm::cl::desc("With --emit=plan: replay one step of the plan on the "
                   "cluster FILE describes (clusters/*.json, "
                   "docs/simulator.md); prints the step time, its split and "
                   "each rank role's memory. With --sbp-report: each "
                   "boxing's predicted seconds on that cluster"),
    llvm::cl::value_desc("CLUSTER.json"), llvm::cl::init(""),
    llvm::cl::cat(simulateCategory));
static llvm::cl::opt<std::string> simulateJsonOption(
    "simulate-json",
    llvm::cl::desc("With --simulate: also write the report as JSON"),
    llvm::cl::value_desc("FILE"), llvm::cl::init(""),
    llvm::cl::cat(simulateCategory));
static llvm::cl::opt<std::string> simulateTraceOption(
    "simulate-trace",
    llvm::cl::desc("With --simulate: also write the replayed step as a "
                   "Chrome trace (the format of oneflow-run --trace)"),
    llvm::cl::value_desc("FILE"), llvm::cl::init(""),
    llvm::cl::cat(simulateCategory));

/// Parses a byte count: digits with an optional K/M/G/T suffix, decimal
/// (KB, MB, ...) or binary (KiB, MiB, ...; a bare K, M, G, T too); the
/// empty string is 0 (no limit).
static std::optional<int64_t> parseBytes(llvm::StringRef text) {
  if (text.empty())
    return 0;
  uint64_t number = 0;
  llvm::StringRef suffix = text;
  if (suffix.consumeInteger(10, number))
    return std::nullopt;
  static const std::pair<llvm::StringLiteral, int64_t> units[] = {
      {"", 1},
      {"B", 1},
      {"K", 1ll << 10},
      {"KiB", 1ll << 10},
      {"KB", 1000},
      {"M", 1ll << 20},
      {"MiB", 1ll << 20},
      {"MB", 1000000},
      {"G", 1ll << 30},
      {"GiB", 1ll << 30},
      {"GB", 1000000000},
      {"T", 1ll << 40},
      {"TiB", 1ll << 40},
      {"TB", 1000000000000ll}};
  for (auto [unit, scale] : units)
    if (suffix == unit) {
      if (number > uint64_t(INT64_MAX) / uint64_t(scale))
        return std::nullopt;
      return int64_t(number * uint64_t(scale));
    }
  return std::nullopt;
}

/// The cluster file the auto strategy prices on.
static std::string autoClusterPath() {
  return simulateOption.empty() ? std::string(ONEFLOW_DEFAULT_CLUSTER)
                                : std::string(simulateOption);
}

/// Parses --mesh (`4`, `2x2`); an error message when invalid.
static std::string parseMesh(llvm::StringRef spec,
                             SmallVectorImpl<int64_t> &shape) {
  SmallVector<llvm::StringRef> parts;
  spec.split(parts, 'x');
  for (llvm::StringRef part : parts) {
    int64_t size;
    if (part.getAsInteger(10, size) || size < 1)
      return "invalid mesh '" + spec.str() +
             "': expected N or RxC with positive sizes";
    shape.push_back(size);
  }
  if (shape.empty() || shape.size() > 3)
    return "unsupported mesh '" + spec.str() + "': 1 to 3 axes";
  return "";
}

/// Adds the loss, backward pass and optimizer for --train.
static void addTrainingPasses(PassManager &pm) {
  oneflow::AddLossOptions loss;
  loss.loss = lossOption;
  loss.label = labelOption;
  loss.lossOn = lossOnOption;
  pm.addPass(oneflow::createAddLoss(loss));
  if (precisionOption != "f32")
    pm.addPass(oneflow::createMixedPrecision(
        oneflow::MixedPrecisionOptions{precisionOption}));
  oneflow::AutodiffOptions autodiff;
  autodiff.freeze.assign(freezeOption.begin(), freezeOption.end());
  autodiff.microbatches = microbatchesOption;
  pm.addPass(oneflow::createAutodiff(autodiff));
  if (recomputeOption != "none") {
    oneflow::RecomputeOptions recompute;
    recompute.mode = recomputeOption;
    pm.addPass(oneflow::createRecompute(recompute));
  }
  oneflow::OptimizerOptions optimizer;
  optimizer.optimizer = optimizerOption;
  optimizer.lr = lrOption;
  optimizer.momentum = momentumOption;
  optimizer.nesterov = nesterovOption;
  optimizer.weightDecay = weightDecayOption;
  pm.addPass(oneflow::createOptimizer(optimizer));
  // Drops the forward outputs the loss made dead.
  pm.addPass(createCanonicalizerPass());
}

/// Adds the passes from the imported graph to the distributed one:
/// training (--train), then SBP distribution (--mesh).
static LogicalResult addCompilePasses(PassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  // Separate Q, K and V projections let tensor parallelism split heads.
  if (!meshOption.empty() && (StringRef(strategyOption).contains("tensor") ||
                              strategyOption == "auto"))
    pm.addPass(oneflow::createSplitFusedProjections());
  if (trainOption)
    addTrainingPasses(pm);
  else if (precisionOption != "f32")
    pm.addPass(oneflow::createMixedPrecision(
        oneflow::MixedPrecisionOptions{precisionOption}));
  if (stagesOption > 1) {
    if (!trainOption) {
      llvm::errs()
          << "error: --stages pipelines a training step: add --train\n";
      return failure();
    }
    oneflow::SbpPipelineStagesOptions stages;
    stages.stages = stagesOption;
    stages.schedule = scheduleOption;
    stages.virtualStages = virtualStagesOption;
    std::optional<int64_t> limit = parseBytes(memoryLimitOption);
    if (!limit) {
      llvm::errs() << "error: --memory-limit: '" << memoryLimitOption
                   << "' is not a byte count (e.g. 80GiB, 512MB, 1000000)\n";
      return failure();
    }
    stages.memoryLimit = *limit;
    pm.addPass(oneflow::createSbpPipelineStages(stages));
    // Each stage gets the mesh; one device per stage by default.
    if (meshOption.empty())
      meshOption = "1";
  }
  if (meshOption.empty())
    return success();
  SmallVector<int64_t> shape;
  std::string error = parseMesh(meshOption, shape);
  if (!error.empty()) {
    llvm::errs() << "error: --mesh: " << error << "\n";
    return failure();
  }
  std::string device;
  if (!parseDevice(device))
    return failure();
  if (strategyOption == "auto") {
    oneflow::SbpAutoOptions options;
    oneflow::ClusterSummary cluster;
    if (!oneflow::makeAutoPricers(autoClusterPath(), device == "cuda", options,
                                  &cluster))
      return failure();
    options.meshShape = shape;
    options.device = device;
    options.memoryCapacity = cluster.memoryCapacity;
    options.enumerate = sbpAutoEnumerateOption;
    options.repeatedLayers = sbpAutoRepeatedLayersOption;
    if (quietAutoSolve)
      options.report = &llvm::nulls();
    // The optimizer state's layout is the solve's (ZeRO-1 where it pays);
    // --zero is for the hand strategies.
    if (autoChoice.mesh == ArrayRef<int64_t>(shape)) {
      options.variablePins = autoChoice.pins;
      // The search's ZeRO stage on its data axis (the outermost).
      if (autoParallelOption && autoChoice.data > 1) {
        options.zero = autoChoice.zero;
        options.dataAxes = {0};
      }
    }
    pm.addPass(oneflow::createSbpAutoStrategyPass(std::move(options)));
  } else {
    oneflow::SbpApplyStrategyOptions options;
    options.meshShape = shape;
    options.strategy = strategyOption;
    options.zero = shardOptimizerStateOption ? int64_t(zeroOption) : 0;
    options.device = device;
    pm.addPass(oneflow::createSbpApplyStrategy(options));
  }
  pm.addPass(oneflow::createSbpInfer());
  pm.addPass(oneflow::createSbpInsertBoxing());
  // One boxing per value and target, however many consumers need it.
  pm.addPass(createCSEPass());
  if (sbpReport) {
    oneflow::SbpReportOptions report;
    if (!simulateOption.empty() &&
        !oneflow::makePricedReport(simulateOption, report))
      return failure();
    pm.addPass(oneflow::createSbpReportPass(std::move(report)));
  }
  return success();
}

/// The graph passes of --emit=plan: training and distribution (--mesh),
/// one local program per rank, pipeline stages, gradient buckets.
static LogicalResult addPlanPasses(PassManager &pm, ModuleOp module,
                                   llvm::StringRef device) {
  // With --mesh: distribute, then one local program per rank.
  if (failed(addCompilePasses(pm)))
    return failure();
  // A graph placed by hand (sbp.placement on @main) is distributed from its
  // pinned SBPs and casts, then localized too.
  auto graph = module.lookupSymbol<func::FuncOp>("main");
  if (meshOption.empty() && graph &&
      graph->hasAttr(sbp::SBPDialect::kPlacementAttrName)) {
    pm.addPass(oneflow::createSbpInfer());
    pm.addPass(oneflow::createSbpInsertBoxing());
    pm.addPass(createCSEPass());
  }
  if (!meshOption.empty() ||
      (graph && graph->hasAttr(sbp::SBPDialect::kPlacementAttrName)))
    pm.addPass(oneflow::createSbpLocalize(
        oneflow::SbpLocalizeOptions{shareProgramsOption}));
  if (stagesOption > 1) {
    oneflow::SbpPipelineSplitOptions split;
    split.stages = stagesOption;
    split.schedule = scheduleOption;
    split.virtualStages = virtualStagesOption;
    // CUDA plans' sends and receives are NCCL calls, matched by order.
    split.matchReceiveOrder = device == "cuda";
    pm.addPass(oneflow::createSbpPipelineSplit(split));
  }
  // bf16/f16 products and reductions accumulate in f32; CUDA plans leave
  // the products to cuBLASLt's low-precision GEMMs, which do so themselves.
  oneflow::WidenLowPrecisionOptions widen;
  widen.keepProducts = device == "cuda";
  pm.addPass(oneflow::createWidenLowPrecision(widen));
  if (bucketMbOption < 0) {
    llvm::errs() << "error: --bucket-mb must be >= 0\n";
    return failure();
  }
  oneflow::SbpBucketCollectivesOptions buckets;
  buckets.bucketBytes = int64_t(bucketMbOption * 1024 * 1024);
  pm.addPass(oneflow::createSbpBucketCollectives(buckets));
  return success();
}

/// Parses the --input-shape options.
static bool parseInputShapes(oneflow::ONNXImportOptions &options) {
  for (const std::string &spec : inputShapes) {
    std::string error = oneflow::parseInputShapeOption(spec, options);
    if (!error.empty()) {
      llvm::errs() << "error: --input-shape: " << error << "\n";
      return false;
    }
  }
  for (const std::string &spec : constantInputs) {
    std::string error = oneflow::parseConstantInputOption(spec, options);
    if (!error.empty()) {
      llvm::errs() << "error: --constant-input: " << error << "\n";
      return false;
    }
  }
  return true;
}

/// --seed: the seed of every dropout mask.
static void prepareModule(ModuleOp module) {
  if (seedOption < 0)
    return;
  Builder builder(module.getContext());
  module.walk([&](oneflow::DropoutOp dropout) {
    dropout.setSeedAttr(builder.getI64IntegerAttr(seedOption));
  });
}

/// Imports an ONNX file or parses an MLIR file.
static OwningOpRef<ModuleOp> loadModule(llvm::StringRef input,
                                        MLIRContext &context,
                                        llvm::SourceMgr &sourceMgr) {
  if (input.ends_with(".onnx")) {
    oneflow::ONNXImportOptions options;
    if (!parseInputShapes(options))
      return nullptr;
    OwningOpRef<ModuleOp> module =
        oneflow::importONNXFile(input, &context, options);
    if (module)
      prepareModule(*module);
    return module;
  }
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(input, sourceMgr, &context);
  if (module && !weightsOption.empty() &&
      failed(oneflow::attachWeights(*module, weightsOption)))
    return nullptr;
  if (module)
    prepareModule(*module);
  return module;
}

/// --mesh or --train without --emit: build the training graph and/or
/// distribute it, and print it (and the report with --sbp-report).
static int distribute(llvm::StringRef input, llvm::StringRef output,
                      DialectRegistry &registry) {
  MLIRContext context(registry);
  // Diagnostics name the op and its location; a dump of the whole graph
  // would bury them.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  oneflow::NodeDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = loadModule(input, context, sourceMgr);
  if (!module)
    return 1;
  PassManager pm(&context);
  if (failed(addCompilePasses(pm)) || failed(pm.run(*module)))
    return 1;
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(output, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  module->print(file->os(), OpPrintingFlags().elideLargeResourceString(256));
  file->os() << "\n";
  file->keep();
  return 0;
}

/// The whole compiler: import (or parse), simplify, emit the plan.
static int compileToPlan(llvm::StringRef input, llvm::StringRef outputDir,
                         DialectRegistry &registry, bool cudaKernelsOnly) {
  MLIRContext context(registry);
  // Diagnostics name the op and its location; a dump of the whole graph
  // would bury them.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  oneflow::NodeDiagnosticHandler handler(sourceMgr, &context);
  if (outputDir == "-" || outputDir.empty()) {
    llvm::errs() << "error: --emit=" << emitKind
                 << " needs an output directory (-o DIR)\n";
    return 1;
  }
  std::string device;
  if (!parseDevice(device))
    return 1;
  if (cudaKernelsOnly && device != "cuda") {
    llvm::errs() << "error: --emit=cuda-kernels needs --device=cuda[:sm_XX]\n";
    return 1;
  }
  std::unique_ptr<oneflow::PlanSimulation> simulation;
  if (!simulateOption.empty()) {
    simulation = oneflow::PlanSimulation::create(
        simulateOption, simulateJsonOption, simulateTraceOption);
    if (!simulation)
      return 1;
  }
  oneflow::PhaseTimes times;
  times.start("import");
  OwningOpRef<ModuleOp> module;
  module = loadModule(input, context, sourceMgr);
  if (!module)
    return 1;
  times.start("graph passes");
  PassManager pm(&context);
  if (failed(addPlanPasses(pm, *module, device)) || failed(pm.run(*module)))
    return 1;
  oneflow::EmitPlanOptions options;
  options.outputDir = outputDir.str();
  if (input.ends_with(".onnx"))
    options.sourceModel = input.str();
  options.fuse = !fusionDisabled();
  options.channelsLast = !channelsLastDisabled();
  options.gpuKernelsOnCpu = gpuKernelsOnCpuOption;
  options.compileThreads = compileThreadsOption;
  options.kernelCacheDirectory = kernelCacheDirectory();
  options.report = &llvm::errs();
  options.times = &times;
  if (device == "cuda") {
    oneflow::CudaKernelsOptions cuda;
    if (const char *root = std::getenv("ONEFLOW_CUDA_ROOT"))
      cuda.toolkit = root;
    // An explicit architecture: its cubin and its PTX.
    if (llvm::StringRef(deviceOption).contains(':'))
      cuda.archs = {llvm::StringRef(deviceOption).split(':').second.str()};
    if (cudaKernelsOnly)
      return failed(oneflow::emitCudaKernels(*module, options, cuda)) ? 1 : 0;
    options.cuda = cuda;
  }
  if (simulation)
    simulation->attach(options);
  if (failed(oneflow::emitPlan(*module, options)))
    return 1;
  if (simulation)
    return simulation->run(times) ? 0 : 1;
  times.print(llvm::errs());
  return 0;
}

/// Imports (or parses, applying --weights and --seed) `path` and serializes
/// the module as bytecode, which MlirOptMain then reads like any other
/// input (weights stay binary on the way).
static std::unique_ptr<llvm::MemoryBuffer>
loadToBytecode(llvm::StringRef path, DialectRegistry &registry) {
  MLIRContext context(registry);
  // Diagnostics name the op and its location; a dump of the whole graph
  // would bury them.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  oneflow::NodeDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = loadModule(path, context, sourceMgr);
  if (!module)
    return nullptr;
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  if (failed(writeBytecodeToFile(*module, os)))
    return nullptr;
  return llvm::MemoryBuffer::getMemBufferCopy(bytes, path);
}

/// Sets the compile options to `choice` (and remembers it in autoChoice).
static void applyChoice(const oneflow::AutoParallelChoice &choice) {
  std::string mesh;
  llvm::raw_string_ostream os(mesh);
  llvm::interleave(choice.mesh, os, "x");
  meshOption = mesh;
  if (choice.sbpSource == "megatron")
    strategyOption = choice.data > 1 && choice.tensor > 1 ? "data,tensor"
                     : choice.tensor > 1                  ? "tensor"
                                                          : "data";
  else
    strategyOption = "auto";
  stagesOption = choice.stages;
  microbatchesOption = choice.microbatches;
  scheduleOption = choice.schedule;
  if (trainOption)
    recomputeOption = choice.recompute;
  zeroOption = choice.zero;
  autoChoice = choice;
}

/// The simulator's check of the step model's best configurations: each is
/// compiled into a plan (no kernel code) with the SBP solve and with the
/// Megatron template, replayed, and the fastest that fits becomes
/// autoChoice; the step model's choice stays when none could be checked.
/// Another layout displaces the step model's best (its faster SBP source)
/// only when it simulates faster by more than --auto-parallel-margin: the
/// two models disagree by that much on plans they both price alike.
static LogicalResult
verifyCandidates(ModuleOp model, ArrayRef<oneflow::AutoParallelChoice> ranked,
                 llvm::StringRef device, llvm::function_ref<double()> elapsed) {
  std::string cluster = autoClusterPath();
  // The options a configuration sets, restored after each check.
  std::string mesh = meshOption, strategy = strategyOption,
              schedule = scheduleOption, recompute = recomputeOption;
  int64_t stages = stagesOption, microbatches = microbatchesOption,
          zero = zeroOption;
  oneflow::AutoParallelChoice modelChoice = autoChoice;
  struct Checked {
    oneflow::AutoParallelChoice choice;
    oneflow::SimulatedStep step;
  };
  std::optional<Checked> best, modelBest, modelTemplate;
  int checked = 0, skipped = 0;
  for (const auto &[index, candidate] : llvm::enumerate(ranked)) {
    for (llvm::StringRef source : {"solve", "megatron"}) {
      // On one device every SBP is B: one check.
      if (source == "megatron" && candidate.data * candidate.tensor == 1)
        continue;
      if (elapsed() > autoBudgetOption) {
        ++skipped;
        continue;
      }
      oneflow::AutoParallelChoice choice = candidate;
      choice.sbpSource = source.str();
      applyChoice(choice);
      auto began = std::chrono::steady_clock::now();
      OwningOpRef<ModuleOp> copy(model.clone());
      oneflow::SimulatedStep step;
      bool ok;
      {
        // A candidate that does not compile (a template that cannot split
        // some tensor) is skipped, silently.
        ScopedDiagnosticHandler silence(model.getContext(),
                                        [](Diagnostic &) { return success(); });
        quietAutoSolve = true;
        PassManager pm(model.getContext());
        oneflow::EmitPlanOptions options;
        options.fuse = !fusionDisabled();
        options.channelsLast = !channelsLastDisabled();
        ok = succeeded(addPlanPasses(pm, *copy, device)) &&
             succeeded(pm.run(*copy)) &&
             oneflow::simulateModule(*copy, options, cluster, step);
        quietAutoSolve = false;
      }
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - began)
                           .count();
      llvm::errs() << "auto-parallel: check: " << choice.describe() << ", "
                   << source << " SBP: ";
      if (!ok) {
        llvm::errs() << "does not compile\n";
      } else {
        ++checked;
        llvm::errs() << "simulated step "
                     << llvm::format("%.4g", step.stepSeconds) << " s (model "
                     << llvm::format("%.4g", choice.stepSeconds) << " s), "
                     << llvm::format("%.2f", step.peakMemoryBytes / (1 << 30))
                     << " GiB per device" << (step.fits ? "" : ", does not fit")
                     << " [" << llvm::format("%.1f", seconds) << " s]\n";
        if (step.fits && (!best || step.stepSeconds < best->step.stepSeconds))
          best = Checked{choice, step};
        if (index == 0 && step.fits &&
            (!modelBest || step.stepSeconds < modelBest->step.stepSeconds))
          modelBest = Checked{choice, step};
        if (index == 0 && step.fits && source == "megatron")
          modelTemplate = Checked{choice, step};
      }
      meshOption = mesh;
      strategyOption = strategy;
      scheduleOption = schedule;
      recomputeOption = recompute;
      stagesOption = stages;
      microbatchesOption = microbatches;
      zeroOption = zero;
    }
  }
  // The step model's layout with the hand templates' SBP, unless the
  // solver's (heuristic beyond its exact cases) is faster by more than the
  // margin too.
  if (modelBest && modelTemplate &&
      modelBest->step.stepSeconds >
          modelTemplate->step.stepSeconds * (1 - double(autoMarginOption)))
    modelBest = modelTemplate;
  bool withinMargin =
      best && modelBest &&
      best->step.stepSeconds < modelBest->step.stepSeconds &&
      best->step.stepSeconds >
          modelBest->step.stepSeconds * (1 - double(autoMarginOption));
  if (withinMargin)
    best = modelBest;
  autoChoice = best ? best->choice : modelChoice;
  llvm::errs() << "auto-parallel: simulator's check: " << checked
               << " plan(s) replayed";
  if (skipped)
    llvm::errs() << ", " << skipped << " left unchecked (the "
                 << llvm::format("%.0f", double(autoBudgetOption))
                 << " s budget)";
  llvm::errs() << " in " << llvm::format("%.2f", elapsed()) << " s; ";
  if (best)
    llvm::errs() << "chosen: " << autoChoice.describe() << ", "
                 << autoChoice.sbpSource << " SBP, simulated step "
                 << llvm::format("%.4g", best->step.stepSeconds) << " s"
                 << (withinMargin ? " (the step model's layout: no other is "
                                    "faster by more than the margin)"
                                  : "")
                 << "\n";
  else
    llvm::errs() << "none fits; the step model's choice stands\n";
  return success();
}

/// --auto-parallel: searches the configurations for --devices and sets the
/// compile options (mesh, strategy, stages, micro-batches, schedule,
/// optimizer-state sharding) to the chosen one.
static LogicalResult runAutoParallelSearch(llvm::StringRef input,
                                           DialectRegistry &registry) {
  if (devicesOption < 1) {
    llvm::errs() << "error: --auto-parallel needs --devices=N (N >= 1)\n";
    return failure();
  }
  if (!meshOption.empty() || stagesOption != 1 ||
      microbatchesOption.getNumOccurrences() ||
      strategyOption.getNumOccurrences() ||
      scheduleOption.getNumOccurrences() ||
      virtualStagesOption.getNumOccurrences()) {
    llvm::errs() << "error: --auto-parallel chooses --mesh, --sbp-strategy, "
                    "--stages, --microbatches and --schedule itself\n";
    return failure();
  }
  std::string device;
  if (!parseDevice(device))
    return failure();
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  oneflow::NodeDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = loadModule(input, context, sourceMgr);
  if (!module)
    return failure();
  oneflow::AutoParallelRequest request;
  request.devices = devicesOption;
  request.clusterPath = autoClusterPath();
  request.device = device;
  request.train = trainOption;
  request.runnersUp = runnersUpOption;
  if (optimizerOption == "adamw")
    request.stateTensors = 2;
  else if (momentumOption != 0)
    request.stateTensors = 1;
  // --recompute and --zero, when given, fix those dimensions of the search.
  if (recomputeOption.getNumOccurrences())
    request.recomputeModes = {recomputeOption};
  if (zeroOption.getNumOccurrences())
    request.zeroStages = {zeroOption};
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  SmallVector<oneflow::AutoParallelChoice> ranked;
  request.keep = std::max(1, int(autoVerifyOption));
  if (!oneflow::searchAutoParallel(*module, request, autoChoice, llvm::errs(),
                                   &ranked))
    return failure();
  if (autoVerifyOption > 0 &&
      failed(verifyCandidates(*module, ranked, device, elapsed)))
    return failure();
  applyChoice(autoChoice);
  llvm::errs() << "auto-parallel: compiling --mesh=" << meshOption
               << " --sbp-strategy=" << strategyOption
               << " --stages=" << autoChoice.stages
               << " --microbatches=" << autoChoice.microbatches
               << " --schedule=" << autoChoice.schedule;
  if (trainOption)
    llvm::errs() << " --recompute=" << autoChoice.recompute;
  if (autoChoice.data > 1)
    llvm::errs() << " --zero=" << autoChoice.zero;
  llvm::errs() << "\n";
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  registerAllPasses();
  oneflow::registerOneFlowTransformsPasses();
  oneflow::registerOneFlowCodegenPasses();
  oneflow::registerOneFlowConversionPasses();
  oneflow::test::registerTestPrintSbpSignaturesPass();

  DialectRegistry registry;
  registry.insert<oneflow::OneFlowDialect, sbp::SBPDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // GPU modules compile to NVVM binaries (gpu-module-to-binary) in-process.
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);

  // Imported weights would print as megabytes of hex: elide large resource
  // blobs unless the user asks otherwise.
  std::vector<char *> args(argv, argv + argc);
  bool importing = false, elisionSet = false;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    importing |= arg.ends_with(".onnx") && !arg.starts_with("-");
    elisionSet |= arg.starts_with("--mlir-elide-resource-strings-if-larger") ||
                  arg.starts_with("-mlir-elide-resource-strings-if-larger");
  }
  static char elideFlag[] = "--mlir-elide-resource-strings-if-larger=256";
  if (importing && !elisionSet)
    args.push_back(elideFlag);
  int newArgc = args.size();

  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      newArgc, args.data(), "OneFlow-MLIR compiler driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if ((!simulateJsonOption.empty() || !simulateTraceOption.empty()) &&
      simulateOption.empty()) {
    llvm::errs() << "error: --simulate-json and --simulate-trace need "
                    "--simulate=CLUSTER.json\n";
    return 1;
  }
  if (!weightsOption.empty() &&
      llvm::StringRef(inputFilename).ends_with(".onnx")) {
    llvm::errs() << "error: --weights gives an MLIR model its variables' "
                    "data (an ONNX model carries its own)\n";
    return 1;
  }
  if (seedOption.getNumOccurrences() && seedOption < 0) {
    llvm::errs() << "error: --seed must be a non-negative integer\n";
    return 1;
  }
  if (zeroOption.getNumOccurrences() &&
      shardOptimizerStateOption.getNumOccurrences() &&
      (zeroOption == 0) != !shardOptimizerStateOption) {
    llvm::errs() << "error: --shard-optimizer-state and --zero disagree; "
                    "use --zero alone\n";
    return 1;
  }
  if ((zeroOption.getNumOccurrences() ||
       shardOptimizerStateOption.getNumOccurrences()) &&
      !autoParallelOption && strategyOption == "auto") {
    llvm::errs() << "error: --zero is for the hand strategies and "
                    "--auto-parallel: --sbp-strategy=auto lays out the "
                    "optimizer state itself\n";
    return 1;
  }
  if (autoParallelOption && shardOptimizerStateOption.getNumOccurrences()) {
    llvm::errs() << "error: --auto-parallel: use --zero to fix the ZeRO "
                    "stage\n";
    return 1;
  }
  if (autoParallelOption) {
    if (failed(runAutoParallelSearch(inputFilename, registry)))
      return 1;
  } else if (devicesOption != 0) {
    llvm::errs() << "error: --devices is for --auto-parallel\n";
    return 1;
  }
  if (!simulateOption.empty() && emitKind != "plan" && !sbpReport &&
      strategyOption != "auto" && !autoParallelOption) {
    llvm::errs() << "error: --simulate replays a plan: add --emit=plan -o "
                    "DIR (or prices the boxings of --sbp-report)\n";
    return 1;
  }
  if ((virtualStagesOption != 1 || scheduleOption == "interleaved") &&
      stagesOption <= 1) {
    llvm::errs() << "error: --schedule=interleaved and --virtual-stages "
                    "interleave the stages of a pipeline: add --stages\n";
    return 1;
  }
  if (!memoryLimitOption.empty() && stagesOption <= 1) {
    llvm::errs() << "error: --memory-limit caps the stages of a pipeline: "
                    "add --stages\n";
    return 1;
  }
  if (recomputeOption != "none" && !trainOption) {
    llvm::errs() << "error: --recompute trades memory of a training step: "
                    "add --train\n";
    return 1;
  }
  if (!emitKind.empty()) {
    if (emitKind != "plan" && emitKind != "cuda-kernels") {
      llvm::errs() << "error: unknown --emit kind '" << emitKind
                   << "' (expected 'plan' or 'cuda-kernels')\n";
      return 1;
    }
    return compileToPlan(inputFilename, outputFilename, registry,
                         emitKind == "cuda-kernels");
  }
  if (!meshOption.empty() || trainOption)
    return distribute(inputFilename, outputFilename, registry);

  std::unique_ptr<llvm::MemoryBuffer> input;
  if (llvm::StringRef(inputFilename).ends_with(".onnx") ||
      !weightsOption.empty() || seedOption >= 0) {
    input = loadToBytecode(inputFilename, registry);
    if (!input)
      return 1;
  } else {
    std::string error;
    input = openInputFile(inputFilename, &error);
    if (!input) {
      llvm::errs() << error << "\n";
      return 1;
    }
  }
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
