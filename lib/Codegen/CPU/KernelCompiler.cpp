//===- KernelCompiler.cpp - Kernel functions to a shared library ----------===//
//
// Lowers the outlined kernels through upstream MLIR (bufferization, loops,
// LLVM dialect), gives each an entry `void name(void **args)`, emits an
// object file with LLVM for the host CPU and links it, with the OneFlow
// kernel library and OpenBLAS, into a shared library.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Codegen/KernelCompiler.h"
#include "../HostObject.h"
#include "../KernelExtraction.h"

#include "oneflow/Codegen/Passes.h"
#include "oneflow/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace mlir;
using namespace mlir::oneflow;

/// From linalg ops on buffers to loops over buffers.
static constexpr llvm::StringLiteral kLoopsPipeline =
    "convert-linalg-to-parallel-loops,"
    "oneflow-fuse-row-loops,"
    "oneflow-collapse-contiguous-loops";

/// From loops over buffers down to the LLVM dialect.
static constexpr llvm::StringLiteral kLoopsToLLVMPipeline =
    "oneflow-serialize-small-parallel-loops,"
    "oneflow-sequential-inner-loops,"
    "oneflow-promote-loop-accumulators,"
    "convert-scf-to-openmp,"
    "lower-affine,"
    "expand-strided-metadata,"
    // Before scf-to-cf: OpenMP loop bodies sit in memref.alloca_scope
    // regions, which must be lowered while they still have one block.
    "finalize-memref-to-llvm,"
    "convert-scf-to-cf,"
    "convert-math-to-llvm,"
    "convert-math-to-funcs,"
    "convert-math-to-libm,"
    "convert-arith-to-llvm,"
    "convert-index-to-llvm,"
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv},"
    "convert-cf-to-llvm,"
    "convert-openmp-to-llvm,"
    "reconcile-unrealized-casts";

/// `--gpu-kernels-on-cpu`: the CUDA backend's product epilogues and loop
/// mapping (as lib/Codegen/CUDA/KernelCompiler.cpp runs them; the kernel
/// library computes the epilogue products as cuBLASLt does), its launches
/// run as sequential CPU loops (no OpenMP shaping: no parallel loop is
/// left), then the rest of kLoopsToLLVMPipeline.
static constexpr llvm::StringLiteral kGpuLoopsOnCpuPipeline =
    "oneflow-fold-gemm-epilogues,"
    "convert-linalg-to-parallel-loops,"
    "oneflow-fuse-row-loops,"
    "func.func(oneflow-prepare-loops-for-gpu,"
    "oneflow-pack-elementwise-nests,oneflow-map-loops-to-gpu,"
    "oneflow-move-host-work-to-gpu),"
    "oneflow-gpu-launches-to-cpu-loops";

/// Whether `type` is a scalar or its innermost dimension holds at least a
/// vector (16 f32): over rows of 3 LLVM vectorizes an outer loop with
/// gathers and scatters instead, 3.5x slower than the scalar loop
/// (ResNet-18's SGD update: 7.4 ms scalar, 26 ms so).
static bool hasVectorLengthRows(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() &&
         (memref.getRank() == 0 || memref.getShape().back() >= 16);
}

/// Whether every access to `buffer` runs over rows of a vector or more:
/// its own, or those oneflow-collapse-contiguous-loops merged (a 3x3
/// filter's update is one loop over the whole filter).
static bool accessedInVectorLengthRows(Value buffer) {
  if (hasVectorLengthRows(buffer.getType()))
    return true;
  return !buffer.use_empty() &&
         llvm::all_of(buffer.getUsers(), [](Operation *user) {
           auto collapse = dyn_cast<memref::CollapseShapeOp>(user);
           return collapse && hasVectorLengthRows(collapse.getType());
         });
}

/// The plan gives every argument of a kernel its own register, so no two
/// buffer arguments overlap; telling LLVM so lets it keep accumulators in
/// registers and vectorize without run-time checks. The exception: a result
/// updated in place, whose out-parameter is the very buffer of the argument
/// it updates. Where bufferization wrote it into that argument, only the
/// copy of the argument onto the out-parameter remains, which is dropped.
/// Otherwise the kernel's stores go through the out-parameter and its loads
/// through the argument: two pointers LLVM must check at run time, and, as
/// they are equal, the check always sends the loop to its scalar version.
/// Where the loops run over rows of a vector, the out-parameter's uses then
/// take the argument (the same address, so nothing changes but what LLVM
/// can see). Runs on the loops, after oneflow-collapse-contiguous-loops.
/// In both cases the out-parameter is never touched and both keep noalias;
/// in the last (short rows), both go without it.
static void markBuffersNoAlias(ModuleOp module) {
  auto noalias = UnitAttr::get(module.getContext());
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isDeclaration() || !func.getName().ends_with(kKernelBodySuffix))
      continue;
    llvm::SmallDenseSet<unsigned> mayAlias;
    if (auto inPlace =
            func->getAttrOfType<DenseI64ArrayAttr>(kUpdatesInPlaceAttrName)) {
      // buffer-results-to-out-params appended one out-parameter per result.
      unsigned firstOut = func.getNumArguments() - inPlace.size();
      for (auto [index, argNumber] : llvm::enumerate(inPlace.asArrayRef())) {
        if (argNumber < 0)
          continue;
        BlockArgument out = func.getArgument(firstOut + index);
        BlockArgument argument = func.getArgument(argNumber);
        auto copy = out.hasOneUse()
                        ? dyn_cast<memref::CopyOp>(*out.getUsers().begin())
                        : memref::CopyOp();
        if (copy && copy.getSource() == argument && copy.getTarget() == out) {
          copy.erase();
          continue;
        }
        if (out.getType() == argument.getType() &&
            accessedInVectorLengthRows(out)) {
          out.replaceAllUsesWith(argument);
          continue;
        }
        mayAlias.insert(argNumber);
        mayAlias.insert(firstOut + index);
      }
    }
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (isa<MemRefType>(func.getArgument(i).getType()) &&
          !mayAlias.contains(i))
        func.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), noalias);
  }
}

/// The kernel library linked into every kernels.so.
static std::string kernelLibraryPath() {
  std::string path = ONEFLOW_KERNELS_LIBRARY;
  if (llvm::sys::fs::exists(path))
    return path;
  // An installed toolchain: next to the executable's lib directory.
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  llvm::SmallString<256> installed(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(installed, "lib", "libOneFlowKernels.a");
  return std::string(installed);
}

static LogicalResult link(Location loc, ArrayRef<std::string> objectPaths,
                          StringRef libraryPath) {
  std::string kernels = kernelLibraryPath();
  // Large loops run on LLVM's OpenMP runtime (the one MLIR's OpenMP
  // lowering targets), found through the rpath when the plan is loaded.
  std::string ompDir = ONEFLOW_OPENMP_LIBRARY_DIR;
  std::string rpath = "-Wl,-rpath," + ompDir;
  std::string ompSearch = "-L" + ompDir;
  // oneDNN's OpenMP entry points bind to libomp, which precedes its own
  // libgomp in load order: one OpenMP runtime serves the whole process.
  return linkSharedLibrary(loc, objectPaths, libraryPath,
                           {kernels, ONEFLOW_DNNL_LIBRARY, "-lopenblas",
                            ompSearch, "-lomp", rpath, "-lm"});
}

LogicalResult mlir::oneflow::compileKernels(ModuleOp source,
                                            StringRef libraryPath,
                                            const CpuKernelsOptions &options) {
  bool gpuKernelsOnCpu = options.gpuKernelsOnCpu;
  MLIRContext *context = source.getContext();
  context->loadDialect<LLVM::LLVMDialect>();
  SmallVector<std::string> names;
  OwningOpRef<ModuleOp> module = extractKernels(source, names);

  if (failed(runKernelPipeline(*module,
                               gpuKernelsOnCpu
                                   ? cudaBufferizationPipeline(false)
                                   : kBufferizationPipeline.str(),
                               source)))
    return failure();
  if (!gpuKernelsOnCpu &&
      failed(runKernelPipeline(*module, kLoopsPipeline.str(), source)))
    return failure();
  markBuffersNoAlias(*module);
  std::string loops = kLoopsToLLVMPipeline.str();
  if (gpuKernelsOnCpu) {
    // A race between the threads of a phase shows as results that change
    // when they run the other way round.
    const char *reverse = std::getenv("ONEFLOW_GPU_ON_CPU_REVERSE_THREADS");
    bool reversed = reverse && StringRef(reverse) == "1";
    loops = kGpuLoopsOnCpuPipeline.str() +
            (reversed ? "{reverse-threads=1}," : ",") +
            loops.substr(loops.find("convert-scf-to-openmp,"));
  }
  if (failed(runKernelPipeline(*module, loops, source)))
    return failure();
  if (failed(addEntryPoints(*module, names)))
    return failure();

  if (options.phase)
    options.phase("LLVM code");
  FailureOr<HostObjects> objects = emitHostObjects(
      *module, names, libraryPath, options.threads, options.cacheDirectory);
  if (failed(objects))
    return failure();
  LogicalResult linked = link(source.getLoc(), objects->paths, libraryPath);
  for (const std::string &object : objects->paths)
    llvm::sys::fs::remove(object);
  if (options.stats)
    *options.stats = {names.size(), objects->paths.size(), objects->threads,
                      objects->fromCache, !options.cacheDirectory.empty()};
  return linked;
}
