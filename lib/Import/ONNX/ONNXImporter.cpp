//===- ONNXImporter.cpp - ONNX models to the oneflow dialect --------------===//
//
// Loads a model (protobuf, external data), brings old opsets forward with
// the ONNX version converter, checks it with the ONNX checker, pins dynamic
// input dimensions, runs ONNX shape inference and hands the graph to the
// GraphImporter. The ONNX library reports errors by throwing, so this file
// is built with exceptions and turns each into a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Import/ONNX/ONNXImporter.h"

#include "GraphImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx/version_converter/convert.h"

#include <exception>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

/// The oldest opset imported as is; older models are converted to it.
static constexpr int64_t kMinOpset = 7;

std::string mlir::oneflow::parseInputShapeOption(llvm::StringRef spec,
                                                 ONNXImportOptions &options) {
  auto [name, dims] = spec.rsplit(':');
  if (!spec.contains(':') || name.empty() || dims.empty())
    return "expected NAME:DIMS (e.g. x:2x32), got '" + spec.str() + "'";
  std::vector<int64_t> shape;
  if (dims != "scalar") {
    SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef part : parts) {
      int64_t dim;
      if (part.getAsInteger(10, dim) || dim < 0)
        return "invalid dimension '" + part.str() + "' in '" + spec.str() +
               "'";
      shape.push_back(dim);
    }
  }
  options.inputShapes[name] = std::move(shape);
  return "";
}

std::string
mlir::oneflow::parseConstantInputOption(llvm::StringRef spec,
                                        ONNXImportOptions &options) {
  auto [name, path] = spec.split('=');
  if (!spec.contains('=') || name.empty() || path.empty())
    return "expected NAME=FILE.pb, got '" + spec.str() + "'";
  options.constantInputs[name] = path.str();
  return "";
}

namespace {
/// Imports one model, reporting problems at `fileLoc`.
class ModelLoader {
public:
  ModelLoader(MLIRContext *context, llvm::StringRef sourceName,
              llvm::StringRef baseDir, const ONNXImportOptions &options)
      : context(context), sourceName(sourceName.str()),
        baseDir(baseDir.str()), options(options),
        fileLoc(FileLineColLoc::get(context, sourceName, 0, 0)) {}

  OwningOpRef<ModuleOp> load(llvm::StringRef bytes);

private:
  LogicalResult loadExternalData();
  LogicalResult pinInputShapes();
  LogicalResult bindConstantInputs();
  LogicalResult checkGraphOutputsDefined();
  int64_t defaultOpset() const;

  MLIRContext *context;
  std::string sourceName, baseDir;
  const ONNXImportOptions &options;
  Location fileLoc;
  onnx::ModelProto model;
};
} // namespace

/// ONNX's checker does not look up the graph's outputs, and its version
/// converter dereferences an output that nothing produces (a segfault in
/// libonnx, found by fuzz/FuzzOnnxImport.cpp).
LogicalResult ModelLoader::checkGraphOutputsDefined() {
  const onnx::GraphProto &graph = model.graph();
  llvm::StringSet<> defined;
  for (const onnx::ValueInfoProto &input : graph.input())
    defined.insert(input.name());
  for (const onnx::TensorProto &initializer : graph.initializer())
    defined.insert(initializer.name());
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &output : node.output())
      defined.insert(output);
  for (const onnx::ValueInfoProto &output : graph.output())
    if (!defined.contains(output.name()))
      return emitError(fileLoc)
             << "graph output '" << output.name()
             << "' is not produced by any node, input or initializer";
  return success();
}

int64_t ModelLoader::defaultOpset() const {
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      return opset.version();
  return -1;
}

LogicalResult ModelLoader::loadExternalData() {
  for (onnx::TensorProto &tensor :
       *model.mutable_graph()->mutable_initializer()) {
    if (tensor.data_location() != onnx::TensorProto::EXTERNAL)
      continue;
    std::string location;
    uint64_t offset = 0;
    int64_t length = -1;
    for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
      if (entry.key() == "location")
        location = entry.value();
      else if (entry.key() == "offset")
        offset = std::strtoull(entry.value().c_str(), nullptr, 10);
      else if (entry.key() == "length")
        length = std::strtoll(entry.value().c_str(), nullptr, 10);
    }
    auto fail = [&](const llvm::Twine &msg) {
      return emitError(fileLoc) << "external data of initializer '"
                                << tensor.name() << "': " << msg;
    };
    // The data must live next to the model, not anywhere on the machine.
    if (location.empty() || llvm::sys::path::is_absolute(location) ||
        llvm::StringRef(location).contains(".."))
      return fail("invalid location '" + location + "'");
    llvm::SmallString<256> path(baseDir);
    llvm::sys::path::append(path, location);
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return fail("cannot read '" + path + "': " +
                  buffer.getError().message());
    uint64_t size = (*buffer)->getBufferSize();
    uint64_t count = length < 0 ? size - std::min(offset, size) : length;
    if (offset > size || count > size - offset)
      return fail("bytes [" + llvm::Twine(offset) + ", " +
                  llvm::Twine(offset + count) + ") lie outside '" + path +
                  "' (" + llvm::Twine(size) + " bytes)");
    tensor.set_raw_data((*buffer)->getBufferStart() + offset, count);
    tensor.clear_external_data();
    tensor.set_data_location(onnx::TensorProto::DEFAULT);
  }
  return success();
}

LogicalResult ModelLoader::bindConstantInputs() {
  onnx::GraphProto &graph = *model.mutable_graph();
  for (const auto &entry : options.constantInputs) {
    llvm::StringRef name = entry.getKey();
    auto *inputs = graph.mutable_input();
    auto input = llvm::find_if(*inputs, [&](const onnx::ValueInfoProto &v) {
      return v.name() == name;
    });
    if (input == inputs->end())
      return emitError(fileLoc) << "--constant-input names '" << name
                                << "', which is not a graph input";
    auto buffer = llvm::MemoryBuffer::getFile(entry.getValue(),
                                              /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return emitError(fileLoc)
             << "--constant-input: cannot read '" << entry.getValue()
             << "': " << buffer.getError().message();
    onnx::TensorProto tensor;
    if (!tensor.ParseFromArray((*buffer)->getBufferStart(),
                               (int)(*buffer)->getBufferSize()))
      return emitError(fileLoc) << "--constant-input: '" << entry.getValue()
                                << "' is not a serialized ONNX tensor";
    const onnx::TypeProto::Tensor &declared = input->type().tensor_type();
    if (declared.elem_type() != tensor.data_type())
      return emitError(fileLoc)
             << "--constant-input: '" << entry.getValue() << "' holds "
             << onnxTypeName(tensor.data_type()) << ", input '" << name
             << "' is " << onnxTypeName(declared.elem_type());
    if (declared.has_shape()) {
      bool same = declared.shape().dim_size() == tensor.dims_size();
      for (int i = 0; same && i < tensor.dims_size(); ++i)
        same = !declared.shape().dim(i).has_dim_value() ||
               declared.shape().dim(i).dim_value() == tensor.dims(i);
      if (!same)
        return emitError(fileLoc)
               << "--constant-input: the shape of '" << entry.getValue()
               << "' does not match input '" << name << "'";
    }
    // The input becomes a Constant node ahead of all others.
    tensor.set_name(name.str());
    onnx::NodeProto constant;
    constant.set_op_type("Constant");
    constant.set_name(("constant_input_" + name).str());
    constant.add_output(name.str());
    onnx::AttributeProto *value = constant.add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    *value->mutable_t() = std::move(tensor);
    inputs->erase(input);
    auto *nodes = graph.mutable_node();
    nodes->Add(std::move(constant));
    std::rotate(nodes->rbegin(), nodes->rbegin() + 1, nodes->rend());
  }
  return success();
}

LogicalResult ModelLoader::pinInputShapes() {
  llvm::StringSet<> initializers, seen;
  for (const onnx::TensorProto &tensor : model.graph().initializer())
    initializers.insert(tensor.name());
  bool ok = true;
  for (onnx::ValueInfoProto &input : *model.mutable_graph()->mutable_input()) {
    if (initializers.contains(input.name()) ||
        !input.type().has_tensor_type())
      continue;
    seen.insert(input.name());
    onnx::TypeProto::Tensor *tensor =
        input.mutable_type()->mutable_tensor_type();
    auto pinned = options.inputShapes.find(input.name());
    if (pinned != options.inputShapes.end()) {
      const std::vector<int64_t> &shape = pinned->second;
      if (tensor->has_shape() &&
          tensor->shape().dim_size() != (int)shape.size()) {
        emitError(fileLoc) << "--input-shape for '" << input.name()
                           << "' has " << shape.size()
                           << " dimensions but the input has rank "
                           << tensor->shape().dim_size();
        ok = false;
        continue;
      }
      for (auto [index, dim] : llvm::enumerate(shape)) {
        if (tensor->has_shape()) {
          const auto &existing = tensor->shape().dim(index);
          if (existing.has_dim_value() && existing.dim_value() != dim) {
            emitError(fileLoc)
                << "--input-shape for '" << input.name() << "' sets dimension "
                << index << " to " << dim << " but the model fixes it to "
                << existing.dim_value();
            ok = false;
          }
        }
      }
      tensor->mutable_shape()->clear_dim();
      for (int64_t dim : shape)
        tensor->mutable_shape()->add_dim()->set_dim_value(dim);
      continue;
    }
    if (!tensor->has_shape()) {
      emitError(fileLoc) << "input '" << input.name()
                         << "' has no shape; pin it with --input-shape="
                         << input.name() << ":<dims>";
      ok = false;
      continue;
    }
    for (auto [index, dim] : llvm::enumerate(tensor->shape().dim())) {
      if (dim.has_dim_value() && dim.dim_value() >= 0)
        continue;
      emitError(fileLoc) << "input '" << input.name() << "' has a dynamic "
                         << "dimension " << index
                         << (dim.has_dim_param()
                                 ? " ('" + dim.dim_param() + "')"
                                 : std::string())
                         << "; pin it with --input-shape=" << input.name()
                         << ":<dims>";
      ok = false;
      break;
    }
  }
  for (const auto &entry : options.inputShapes) {
    if (!seen.contains(entry.getKey())) {
      emitError(fileLoc) << "--input-shape names '" << entry.getKey()
                         << "', which is not an input of the model";
      ok = false;
    }
  }
  return success(ok);
}

OwningOpRef<ModuleOp> ModelLoader::load(llvm::StringRef bytes) {
  if (bytes.size() > (size_t)std::numeric_limits<int>::max() ||
      !model.ParseFromArray(bytes.data(), (int)bytes.size())) {
    emitError(fileLoc) << "cannot parse '" << sourceName
                       << "' as an ONNX model (not a valid ModelProto)";
    return nullptr;
  }
  if (!model.has_graph()) {
    emitError(fileLoc) << "the ONNX model has no graph";
    return nullptr;
  }
  if (failed(loadExternalData()))
    return nullptr;

  int64_t opset = defaultOpset();
  if (opset < 0) {
    emitError(fileLoc) << "the model imports no version of the default "
                          "ONNX domain";
    return nullptr;
  }
  if (failed(checkGraphOutputsDefined()))
    return nullptr;
  try {
    if (opset < kMinOpset) {
      // The converter trusts its input: the checker sees it first.
      onnx::checker::check_model(model);
      model = onnx::version_conversion::ConvertVersion(model, kMinOpset);
      opset = kMinOpset;
    }
  } catch (const std::exception &e) {
    emitError(fileLoc) << "cannot convert the model from opset " << opset
                       << " to " << kMinOpset << ": " << e.what();
    return nullptr;
  }
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    emitError(fileLoc) << "the ONNX checker rejects the model: " << e.what();
    return nullptr;
  }
  if (failed(bindConstantInputs()) || failed(pinInputShapes()))
    return nullptr;
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  GraphImporter importer(*module, model, sourceName, opset);
  if (failed(importer.importGraph()))
    return nullptr;

  // ONNX shape inference cross-checks the importer's own types. It runs
  // last: the importer has validated every attribute of every node by then,
  // and ONNX's inference is not robust to invalid ones.
  try {
    onnx::shape_inference::InferShapes(
        model, onnx::OpSchemaRegistry::Instance(),
        onnx::ShapeInferenceOptions(/*check_type=*/false, /*error_mode=*/0,
                                    /*enable_data_propagation=*/true));
  } catch (const std::exception &) {
    // A model ONNX cannot infer is still imported.
    return module;
  }
  if (failed(importer.crossCheck(model.graph())))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp>
mlir::oneflow::importONNXBuffer(llvm::StringRef bytes,
                                llvm::StringRef sourceName,
                                llvm::StringRef baseDir, MLIRContext *context,
                                const ONNXImportOptions &options) {
  context->loadDialect<OneFlowDialect, func::FuncDialect>();
  ModelLoader loader(context, sourceName, baseDir, options);
  return loader.load(bytes);
}

OwningOpRef<ModuleOp>
mlir::oneflow::importONNXFile(llvm::StringRef path, MLIRContext *context,
                              const ONNXImportOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    emitError(FileLineColLoc::get(context, path, 0, 0))
        << "cannot read '" << path << "': " << buffer.getError().message();
    return nullptr;
  }
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  return importONNXBuffer((*buffer)->getBuffer(), path, dir, context,
                          options);
}
