//===- GraphImporter.cpp - Imports one ONNX graph -------------------------===//

#include "GraphImporter.h"
#include "oneflow/Dialect/OneFlow/DropoutStep.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

/// The attribute naming graph inputs and outputs on @main.
static constexpr llvm::StringLiteral kNameAttr = "onnx.name";

/// Initializers of more elements than this are stored as resource blobs.
static constexpr int64_t kInlineElementLimit = 64;

GraphImporter::GraphImporter(ModuleOp module, const onnx::ModelProto &model,
                             llvm::StringRef sourceName, int64_t opset)
    : module(module), model(model), sourceName(sourceName.str()),
      opset(opset), builder(module.getContext()),
      firstUnsupportedLoc(UnknownLoc::get(module.getContext())) {
  registerElementwiseImporters(registry);
  registerLinalgImporters(registry);
  registerNormalizationImporters(registry);
  registerReductionImporters(registry);
  registerTensorImporters(registry);
  registerLossImporters(registry);
  registerRecurrentImporters(registry);
  registerResizeImporters(registry);
  registerEinsumImporter(registry);
  registerScatterGatherImporters(registry);
  registerControlFlowImporters(registry);
  registerGridSampleImporter(registry);
  registerDataDependentImporters(registry);
}

ValueInfo *GraphImporter::lookup(llvm::StringRef name) {
  auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

Location GraphImporter::nodeLocation(const onnx::NodeProto &node,
                                     unsigned index) {
  MLIRContext *context = module.getContext();
  std::string name = node.name().empty()
                         ? node.op_type() + "_" + std::to_string(index)
                         : node.name();
  return NameLoc::get(StringAttr::get(context, name),
                      FileLineColLoc::get(context, sourceName, 0, 0));
}

/// The static tensor type of an ONNX value description, or null.
static RankedTensorType staticTypeOf(MLIRContext *context,
                                     const onnx::ValueInfoProto &info) {
  if (!info.type().has_tensor_type())
    return {};
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  Type elementType = convertElementType(context, tensor.elem_type());
  if (!elementType || !tensor.has_shape())
    return {};
  SmallVector<int64_t> shape;
  for (const auto &dim : tensor.shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0)
      return {};
    shape.push_back(dim.dim_value());
  }
  return RankedTensorType::get(shape, elementType);
}

LogicalResult GraphImporter::crossCheck(const onnx::GraphProto &inferred) {
  llvm::StringMap<const onnx::ValueInfoProto *> infos;
  for (const onnx::ValueInfoProto &info : inferred.value_info())
    infos[info.name()] = &info;
  for (const onnx::ValueInfoProto &info : inferred.output())
    infos[info.name()] = &info;
  bool ok = true;
  for (const ImportedValue &value : importedValues) {
    auto it = infos.find(value.name);
    if (it == infos.end())
      continue;
    RankedTensorType theirs = staticTypeOf(module.getContext(), *it->second);
    if (theirs && theirs != value.type) {
      emitError(value.loc) << value.node << ": output '" << value.name
                           << "' was imported as " << value.type
                           << " but ONNX infers " << theirs;
      ok = false;
    }
  }
  return success(ok);
}

LogicalResult GraphImporter::decodeInitializer(ValueInfo &info,
                                              llvm::StringRef name) {
  const onnx::TensorProto *tensor = info.initializer;
  if (!tensor || info.constant)
    return success();
  MLIRContext *context = module.getContext();
  Location loc = NameLoc::get(StringAttr::get(context, name),
                              FileLineColLoc::get(context, sourceName, 0, 0));
  auto fail = [&]() {
    info.poisoned = true;
    return emitError(loc) << "initializer '" << name << "' ";
  };
  Type elementType = convertElementType(context, tensor->data_type());
  if (!elementType)
    return fail() << "has element type " << onnxTypeName(tensor->data_type())
                  << ", which OneFlow-MLIR does not handle";
  SmallVector<int64_t> shape(tensor->dims().begin(), tensor->dims().end());
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return fail() << "has a negative dimension";
  if (!boundedElementCount(shape))
    return fail() << "has more than 2^48 elements";
  auto type = RankedTensorType::get(shape, elementType);
  std::string error;
  info.constant =
      convertTensorProto(*tensor, type, name,
                         type.getNumElements() > kInlineElementLimit, error);
  if (!info.constant)
    return fail() << error;
  return success();
}

FailureOr<Value> GraphImporter::materialize(ValueInfo &info,
                                            llvm::StringRef name,
                                            Location loc) {
  if (info.value)
    return info.value;
  if (info.poisoned || failed(decodeInitializer(info, name)))
    return failure();
  if (!info.constant)
    return emitError(loc) << "value '" << name << "' has no definition";
  MLIRContext *context = module.getContext();
  // Constants and parameters go to the top of @main, so that they dominate
  // every use.
  OpBuilder::InsertionGuard guard(builder);
  if (lastHoisted)
    builder.setInsertionPointAfter(lastHoisted);
  else
    builder.setInsertionPointToStart(builder.getInsertionBlock());
  // Every floating-point initializer is a (trainable) parameter.
  if (info.initializer && isa<FloatType>(info.constant.getElementType())) {
    Location initLoc =
        NameLoc::get(StringAttr::get(context, name),
                     FileLineColLoc::get(context, sourceName, 0, 0));
    info.value = VariableOp::create(builder, initLoc, info.constant.getType(),
                                    StringAttr::get(context, name),
                                    info.constant, InitializerAttr())
                     .getResult();
  } else {
    info.value = ConstantOp::create(builder, loc, info.constant).getResult();
  }
  lastHoisted = info.value.getDefiningOp();
  return info.value;
}

LogicalResult GraphImporter::importInputs(func::FuncOp func, Block *entry) {
  MLIRContext *context = module.getContext();
  const onnx::GraphProto &graph = model.graph();
  llvm::StringSet<> initializerNames;
  for (const onnx::TensorProto &tensor : graph.initializer()) {
    initializerNames.insert(tensor.name());
    values[tensor.name()] = ValueInfo{{}, {}, &tensor, false};
  }
  bool ok = true;
  SmallVector<Type> argTypes;
  SmallVector<Attribute> argNames;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    // Old models also list initializers as inputs: they are parameters.
    if (initializerNames.contains(input.name()))
      continue;
    Location loc = NameLoc::get(StringAttr::get(context, input.name()),
                                FileLineColLoc::get(context, sourceName, 0, 0));
    // Consumers of a rejected input are skipped, not reported again.
    values[input.name()] = ValueInfo{{}, {}, nullptr, true};
    if (!input.type().has_tensor_type()) {
      emitError(loc) << "graph input '" << input.name()
                     << "' is not a tensor";
      ok = false;
      continue;
    }
    int32_t onnxType = input.type().tensor_type().elem_type();
    if (!convertElementType(context, onnxType)) {
      emitError(loc) << "graph input '" << input.name()
                     << "' has element type " << onnxTypeName(onnxType)
                     << ", which OneFlow-MLIR does not handle";
      ok = false;
      continue;
    }
    RankedTensorType type = staticTypeOf(context, input);
    if (!type) {
      emitError(loc) << "graph input '" << input.name()
                     << "' has no static shape";
      ok = false;
      continue;
    }
    if (!boundedElementCount(type.getShape())) {
      emitError(loc) << "graph input '" << input.name() << "' of shape " << type
                     << " has more than 2^48 elements";
      ok = false;
      continue;
    }
    BlockArgument arg = entry->addArgument(type, loc);
    argTypes.push_back(type);
    values[input.name()] = ValueInfo{arg, {}, nullptr, false};
    argNames.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
        kNameAttr, StringAttr::get(context, input.name()))));
  }
  func.setFunctionType(FunctionType::get(context, argTypes, {}));
  func.setAllArgAttrs(argNames);
  return success(ok);
}

LogicalResult GraphImporter::importSubgraph(const onnx::GraphProto &subgraph) {
  for (const onnx::TensorProto &tensor : subgraph.initializer())
    values[tensor.name()] = ValueInfo{{}, {}, &tensor, false};
  bool ok = true;
  for (const onnx::NodeProto &node : subgraph.node())
    if (failed(importNode(node, model.graph().node_size() + subgraphNodes++)))
      ok = false;
  return success(ok);
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node,
                                        unsigned index) {
  Location loc = nodeLocation(node, index);
  auto poisonOutputs = [&]() {
    for (const std::string &output : node.output())
      if (!output.empty() && !lookup(output))
        values[output] = ValueInfo{{}, {}, nullptr, true};
  };

  bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
  auto it = defaultDomain ? registry.find(node.op_type()) : registry.end();
  if (it == registry.end()) {
    std::string type = defaultDomain ? node.op_type()
                                     : node.domain() + "." + node.op_type();
    std::string nodeName =
        node.name().empty() ? "#" + std::to_string(index) : node.name();
    auto [entry, inserted] =
        unsupported.insert({builder.getStringAttr(type).getValue(), {}});
    if (unsupported.size() == 1 && inserted)
      firstUnsupportedLoc = loc;
    entry->second.push_back(nodeName);
    poisonOutputs();
    return success();
  }

  // A node downstream of a failed one is skipped: its inputs are unknown.
  for (const std::string &input : node.input()) {
    if (input.empty())
      continue;
    ValueInfo *info = lookup(input);
    if (info && info->poisoned) {
      poisonOutputs();
      return success();
    }
  }

  NodeContext ctx(*this, node, loc, opset);
  if (failed(it->second(ctx)) || failed(propagateExtents(ctx))) {
    poisonOutputs();
    return failure();
  }
  for (auto [outIndex, output] : llvm::enumerate(node.output())) {
    if (output.empty())
      continue;
    ValueInfo *info = lookup(output);
    if (!info) {
      ctx.emitError() << "output #" << outIndex
                      << " is not produced by the importer";
      poisonOutputs();
      return failure();
    }
    // Remembered for the cross-check against ONNX shape inference.
    Type ours = info->value ? info->value.getType()
                            : (info->constant ? info->constant.getType()
                                              : Type());
    // ONNX infers a symbolic length where ours is padded.
    if (ours && !info->extent)
      importedValues.push_back(
          {output, ours, loc,
           node.op_type() + " node '" + node.name() + "'"});
  }
  return success();
}

void GraphImporter::reportUnsupported() {
  size_t total = 0;
  for (auto &entry : unsupported)
    total += entry.second.size();
  InFlightDiagnostic diag = emitError(firstUnsupportedLoc)
                            << "the model uses " << unsupported.size()
                            << " unsupported ONNX op type"
                            << (unsupported.size() == 1 ? "" : "s") << " ("
                            << total << " node" << (total == 1 ? "" : "s")
                            << "):";
  for (auto &[type, nodes] : unsupported) {
    diag << "\n  " << type << " x" << nodes.size() << ": ";
    llvm::interleaveComma(nodes, diag, [&](const std::string &n) {
      diag << "'" << n << "'";
    });
  }
}

LogicalResult GraphImporter::importGraph() {
  MLIRContext *context = module.getContext();
  const onnx::GraphProto &graph = model.graph();
  Location funcLoc = FileLineColLoc::get(context, sourceName, 0, 0);
  builder.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(builder, funcLoc, "main",
                                   FunctionType::get(context, {}, {}));
  Block *entry = func.addEntryBlock();
  if (failed(importInputs(func, entry)))
    hadError = true;
  builder.setInsertionPointToEnd(entry);

  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (failed(importNode(node, index)))
      hadError = true;

  SmallVector<Value> results;
  SmallVector<std::string> resultNames;
  struct OutputExtent {
    std::string output;
    Value value;
    int64_t axis;
  };
  SmallVector<OutputExtent> extents;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    ValueInfo *info = lookup(output.name());
    if (!info) {
      emitError(funcLoc) << "graph output '" << output.name()
                         << "' is not produced by any node";
      hadError = true;
      continue;
    }
    if (info->poisoned)
      continue;
    FailureOr<Value> value = materialize(*info, output.name(), funcLoc);
    if (failed(value)) {
      hadError = true;
      continue;
    }
    results.push_back(*value);
    resultNames.push_back(output.name());
    if (info->extent)
      extents.push_back({output.name(), info->extent, info->extentAxis});
  }
  // Each output of data-dependent length is followed by its extent, a
  // hidden output that says how much of it oneflow-run writes.
  for (const OutputExtent &extent : extents) {
    results.push_back(extent.value);
    resultNames.push_back(extent.output + kExtentSuffix.str());
  }
  if (!unsupported.empty())
    reportUnsupported();
  if (hadError || !unsupported.empty())
    return failure();

  func::ReturnOp::create(builder, funcLoc, results);
  // Training-mode Dropouts read the step counter: it advances at the end,
  // after every read.
  advanceDropoutSteps(*entry);
  // Constants that only fed import-time shape arithmetic are dead.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*entry)))
    if (isa<ConstantOp>(op) && op.use_empty())
      op.erase();
  func.setFunctionType(FunctionType::get(
      context, func.getArgumentTypes(), ValueRange(results).getTypes()));
  for (auto [index, name] : llvm::enumerate(resultNames))
    func.setResultAttr(index, kNameAttr, StringAttr::get(context, name));
  unsigned firstExtent = resultNames.size() - extents.size();
  for (auto [index, extent] : llvm::enumerate(extents)) {
    func.setResultAttr(firstExtent + index, kExtentOfAttrName,
                       StringAttr::get(context, extent.output));
    func.setResultAttr(firstExtent + index, kExtentAxisAttrName,
                       builder.getI64IntegerAttr(extent.axis));
  }
  return verify(module);
}
