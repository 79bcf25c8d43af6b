//===- KernelCompiler.cpp - Kernels to a CUDA fatbin ----------------------===//
//
// Lowers the outlined kernels like the CPU backend up to their loops, maps
// the loop nests onto GPU blocks and threads (oneflow-map-loops-to-gpu),
// outlines the launches into one GPU module and compiles it to PTX for each
// requested architecture (NVVM, libdevice linked). ptxas turns each PTX
// into a cubin, reporting registers and spills, and `fatbinary` packs the
// cubins with the newest architecture's PTX (for GPUs newer than all of
// them) into one fatbin.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Codegen/KernelCompiler.h"
#include "../HostObject.h"
#include "../KernelExtraction.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

using namespace mlir;
using namespace mlir::oneflow;

/// The name of the one GPU module all kernels end up in.
static constexpr llvm::StringLiteral kGpuModuleName = "oneflow_kernels";

/// Moves the functions of every GPU module into one, `kGpuModuleName`, and
/// points the launches there: one PTX per architecture for the library.
static void mergeGpuModules(ModuleOp module) {
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());
  auto merged =
      gpu::GPUModuleOp::create(builder, module.getLoc(), kGpuModuleName);
  Block &body = merged.getBodyRegion().front();
  for (auto gpuModule :
       llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
    if (gpuModule == merged)
      continue;
    // Outlining gives each launch a module of its own, uniquely named, whose
    // function may share its name with another module's: the function takes
    // its module's name.
    for (Operation &op :
         llvm::make_early_inc_range(gpuModule.getBodyRegion().front())) {
      if (auto func = dyn_cast<gpu::GPUFuncOp>(op))
        func.setName(gpuModule.getName());
      // Outlining copied the constant globals and helper functions (e.g.
      // math.ipowi's) a kernel uses into its module: one copy of each is
      // enough.
      if (!isa<gpu::GPUFuncOp>(op))
        if (auto name =
                op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
          if (SymbolTable::lookupSymbolIn(merged, name)) {
            op.erase();
            continue;
          }
      op.moveBefore(&body, body.end());
    }
    gpuModule.erase();
  }
  module.walk([&](gpu::LaunchFuncOp launch) {
    launch.setKernelAttr(SymbolRefAttr::get(
        builder.getStringAttr(kGpuModuleName),
        {FlatSymbolRefAttr::get(launch.getKernelModuleName())}));
  });
}

/// Runs `program` with `args`; its standard error goes to `errors`.
static LogicalResult runTool(Operation *anchor, StringRef program,
                             ArrayRef<StringRef> args, std::string &errors) {
  llvm::SmallString<128> errorFile;
  if (llvm::sys::fs::createTemporaryFile("oneflow-cuda", "log", errorFile))
    return anchor->emitError() << "cannot create a temporary file";
  std::optional<StringRef> redirects[] = {std::nullopt, std::nullopt,
                                          StringRef(errorFile)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects, 0,
                                     0, &message);
  if (auto buffer = llvm::MemoryBuffer::getFile(errorFile))
    errors = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove(errorFile);
  if (rc != 0)
    return anchor->emitError()
           << llvm::sys::path::filename(program) << " failed (" << rc << ")"
           << (message.empty() ? "" : ": " + message) << "\n"
           << errors;
  return success();
}

static LogicalResult writeFile(Operation *anchor, StringRef path,
                               StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return anchor->emitError()
           << "cannot write " << path << ": " << ec.message();
  os << data;
  return success();
}

/// `ptxas -v`'s per-entry lines: the most registers and the entries that
/// spill.
static void readPtxasReport(StringRef log, CudaArchReport &report) {
  llvm::Regex registers("Used ([0-9]+) registers");
  llvm::Regex spills("([0-9]+) bytes spill stores");
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    SmallVector<StringRef> match;
    if (registers.match(line, &match))
      report.maxRegisters =
          std::max<int64_t>(report.maxRegisters, std::stoll(match[1].str()));
    if (spills.match(line, &match) && match[1] != "0")
      ++report.spillingEntries;
  }
}

/// The host side of the kernels, once the GPU module is a binary: calls of
/// the runtime's CUDA ABI, lowered to LLVM like the CPU kernels' host code,
/// with scratch allocations on the device.
static constexpr llvm::StringLiteral kHostToLLVMPipeline =
    "oneflow-gpu-launches-to-runtime-calls,"
    "lower-affine,"
    "expand-strided-metadata,"
    "finalize-memref-to-llvm,"
    "convert-scf-to-cf,"
    "convert-math-to-llvm,"
    "convert-arith-to-llvm,"
    "convert-index-to-llvm,"
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv},"
    "convert-cf-to-llvm,"
    "reconcile-unrealized-casts";

/// Points the host code's malloc/free (from memref.alloc/dealloc) at the
/// runtime's stream-ordered device allocator.
static LogicalResult allocateOnDevice(ModuleOp module) {
  for (auto [host, device] :
       {std::pair<StringRef, StringRef>{"malloc", "oneflow_cuda_alloc"},
        {"free", "oneflow_cuda_free"}}) {
    auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(host);
    if (!func)
      continue;
    if (failed(SymbolTable::replaceAllSymbolUses(
            func, StringAttr::get(module.getContext(), device), module)))
      return module.emitError() << "cannot redirect " << host;
    func.setSymName(device);
  }
  if (module.lookupSymbol("aligned_alloc"))
    return module.emitError()
           << "host code uses aligned_alloc, which has no device version";
  return success();
}

static LogicalResult compileHostCode(ModuleOp module, Operation *anchor,
                                     ArrayRef<std::string> names,
                                     StringRef libraryPath,
                                     const CudaKernelsOptions &options,
                                     CudaKernelsReport &report) {
  if (failed(runKernelPipeline(module, kHostToLLVMPipeline, anchor)))
    return failure();
  auto kernels = module->getAttrOfType<ArrayAttr>("oneflow.gpu_kernels");
  if (!kernels)
    return anchor->emitError() << "the host code names no GPU kernels";
  for (Attribute name : kernels)
    report.gpuKernels.push_back(cast<StringAttr>(name).str());
  if (failed(allocateOnDevice(module)) || failed(addEntryPoints(module, names)))
    return failure();
  if (options.phase)
    options.phase("LLVM code");
  FailureOr<HostObjects> objects = emitHostObjects(
      module, names, libraryPath, options.threads, options.cacheDirectory);
  if (failed(objects))
    return failure();
  LogicalResult linked =
      linkSharedLibrary(anchor->getLoc(), objects->paths, libraryPath, {});
  for (const std::string &object : objects->paths)
    llvm::sys::fs::remove(object);
  if (options.stats)
    *options.stats = {names.size(), objects->paths.size(), objects->threads,
                      objects->fromCache, !options.cacheDirectory.empty()};
  return linked;
}

FailureOr<CudaKernelsReport>
mlir::oneflow::compileCudaKernels(ModuleOp source, StringRef fatbinPath,
                                  StringRef hostLibraryPath,
                                  const CudaKernelsOptions &options) {
  MLIRContext *context = source.getContext();
  context->loadDialect<gpu::GPUDialect, NVVM::NVVMDialect>();
  Operation *anchor = source.getOperation();
  llvm::SmallString<128> ptxas(options.toolkit), fatbinary(options.toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  llvm::sys::path::append(fatbinary, "bin", "fatbinary");
  if (!llvm::sys::fs::can_execute(ptxas) ||
      !llvm::sys::fs::can_execute(fatbinary))
    return anchor->emitError()
           << "no CUDA toolkit at " << options.toolkit
           << " (ptxas and fatbinary are needed; set ONEFLOW_CUDA_ROOT)";

  SmallVector<std::string> names;
  OwningOpRef<ModuleOp> module = extractKernels(source, names);
  if (failed(runKernelPipeline(*module, cudaBufferizationPipeline(true),
                               anchor)) ||
      failed(runKernelPipeline(*module,
                               "oneflow-fold-gemm-epilogues,"
                               "convert-linalg-to-parallel-loops,"
                               "oneflow-fuse-row-loops,"
                               "func.func(oneflow-prepare-loops-for-gpu,"
                               "oneflow-pack-elementwise-nests,"
                               "oneflow-map-loops-to-gpu,"
                               "oneflow-move-host-work-to-gpu),"
                               // Integer powers become helper functions,
                               // which outlining copies into the GPU module
                               // (NVVM has no lowering of math.ipowi).
                               "convert-math-to-funcs,"
                               "gpu-kernel-outlining",
                               anchor)))
    return failure();

  CudaKernelsReport report;
  report.kernels = names.size();
  module->walk([&](Operation *op) {
    if (isa<gpu::LaunchFuncOp>(op))
      ++report.launches;
    else if (isa<func::CallOp>(op) && !op->getParentOfType<gpu::GPUModuleOp>())
      ++report.hostCalls;
  });
  if (report.launches == 0) {
    // Every kernel is a library call (e.g. products with their epilogues):
    // host code only, no fatbin.
    if (hostLibraryPath.empty())
      return anchor->emitError() << "no kernel has a loop to run on the GPU";
    if (failed(compileHostCode(*module, anchor, names, hostLibraryPath, options,
                               report)))
      return failure();
    return report;
  }
  mergeGpuModules(*module);

  std::string lowering;
  for (const std::string &arch : options.archs)
    lowering += "nvvm-attach-target{module=" + kGpuModuleName.str() +
                " chip=" + arch + " features=+ptx81 O=3},";
  lowering += "gpu.module(lower-affine,convert-scf-to-cf,"
              "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv},"
              "canonicalize,reconcile-unrealized-casts),"
              "gpu-module-to-binary{format=isa toolkit=" +
              options.toolkit + "}";
  if (failed(runKernelPipeline(*module, lowering, anchor)))
    return failure();
  auto binary = module->lookupSymbol<gpu::BinaryOp>(kGpuModuleName);
  if (!binary || binary.getObjects().size() != options.archs.size())
    return anchor->emitError() << "expected one PTX per architecture";

  // ptxas per architecture, then one fatbin with every cubin and the PTX
  // of the newest architecture.
  std::string base = fatbinPath.str();
  SmallVector<std::string> files, images;
  ArrayRef<Attribute> objects = binary.getObjects().getValue();
  for (auto [index, attr] : llvm::enumerate(objects)) {
    auto object = cast<gpu::ObjectAttr>(attr);
    std::string chip =
        cast<NVVM::NVVMTargetAttr>(object.getTarget()).getChip().str();
    std::string ptx = base + "." + chip + ".ptx";
    std::string cubin = base + "." + chip + ".cubin";
    files.push_back(ptx);
    files.push_back(cubin);
    if (failed(writeFile(anchor, ptx, object.getObject().getValue())))
      return failure();
    std::string log;
    std::string archFlag = "-arch=" + chip;
    if (failed(runTool(anchor, ptxas, {ptxas, archFlag, "-v", ptx, "-o", cubin},
                       log)))
      return failure();
    CudaArchReport archReport;
    archReport.arch = chip;
    readPtxasReport(log, archReport);
    report.archs.push_back(archReport);
    StringRef number = StringRef(chip).drop_front(3); // sm_90a -> 90a
    images.push_back("--image3=kind=elf,sm=" + number.str() + ",file=" + cubin);
    if (index + 1 == objects.size())
      images.push_back("--image3=kind=ptx,sm=" + number.str() + ",file=" + ptx);
  }
  std::string create = "--create=" + base;
  // PTX stays uncompressed: the driver JIT-compiles it either way, and the
  // runtime's tests read the entry parameters from it.
  SmallVector<StringRef> args = {fatbinary, "-64", "--compress=false", create};
  for (const std::string &image : images)
    args.push_back(image);
  std::string log;
  LogicalResult packed = runTool(anchor, fatbinary, args, log);
  for (const std::string &file : files)
    llvm::sys::fs::remove(file);
  if (failed(packed))
    return failure();
  if (!hostLibraryPath.empty() &&
      failed(compileHostCode(*module, anchor, names, hostLibraryPath, options,
                             report)))
    return failure();
  return report;
}
