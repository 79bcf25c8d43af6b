//===- NodeContext.cpp - What an op importer sees of its node -------------===//

#include "GraphImporter.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

NodeContext::NodeContext(GraphImporter &graph, const onnx::NodeProto &node,
                         Location loc, int64_t opset)
    : graph(graph), node(node), loc(loc), opset(opset) {}

OpBuilder &NodeContext::getBuilder() { return graph.getBuilder(); }

InFlightDiagnostic NodeContext::emitError() {
  // Unnamed nodes are called by their location name (OpType_index).
  std::string name = node.name();
  if (auto named = dyn_cast<NameLoc>(loc); named && name.empty())
    name = named.getName().str();
  return mlir::emitError(loc) << node.op_type() << " node '" << name << "': ";
}

bool NodeContext::hasInput(unsigned index) const {
  return index < (unsigned)node.input_size() && !node.input(index).empty();
}

FailureOr<Value> NodeContext::getInput(unsigned index) {
  if (!hasInput(index))
    return emitError() << "missing input #" << index;
  ValueInfo *info = graph.lookup(node.input(index));
  if (!info)
    return emitError() << "input '" << node.input(index)
                       << "' is not defined before use";
  return graph.materialize(*info, node.input(index), loc);
}

FailureOr<RankedTensorType> NodeContext::getInputType(unsigned index) {
  FailureOr<Value> value = getInput(index);
  if (failed(value))
    return failure();
  return llvm::cast<RankedTensorType>(value->getType());
}

DenseElementsAttr NodeContext::getConstantInput(unsigned index) {
  if (!hasInput(index))
    return {};
  ValueInfo *info = graph.lookup(node.input(index));
  if (!info || info->poisoned)
    return {};
  if (failed(graph.decodeInitializer(*info, node.input(index))))
    return {};
  return getDenseElements(info->constant);
}

std::string NodeContext::graphInputHint(unsigned index) {
  if (!hasInput(index))
    return "";
  ValueInfo *info = graph.lookup(node.input(index));
  if (!info || !info->value || !isa<BlockArgument>(info->value))
    return "";
  return " (graph input '" + node.input(index) +
         "': --constant-input binds it)";
}

FailureOr<SmallVector<int64_t>>
NodeContext::getConstantInts(unsigned index, llvm::StringRef what) {
  DenseElementsAttr attr = getConstantInput(index);
  if (!attr) {
    if (hasInput(index)) {
      ValueInfo *info = graph.lookup(node.input(index));
      if (info && info->poisoned)
        return failure();
    }
    return emitError() << "the " << what << " (input #" << index
                       << ") must be known at import time"
                       << graphInputHint(index);
  }
  return getIntValues(attr);
}

FailureOr<double> NodeContext::getConstantScalar(unsigned index,
                                                 llvm::StringRef what) {
  DenseElementsAttr attr = getConstantInput(index);
  if (!attr || attr.getNumElements() != 1)
    return emitError() << "the " << what << " (input #" << index
                       << ") must be a scalar known at import time"
                       << graphInputHint(index);
  return getFloatValues(attr).front();
}

const onnx::AttributeProto *NodeContext::getAttr(llvm::StringRef name) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

int64_t NodeContext::getInt(llvm::StringRef name, int64_t defaultValue) const {
  const onnx::AttributeProto *attr = getAttr(name);
  return attr && attr->has_i() ? attr->i() : defaultValue;
}

double NodeContext::getFloat(llvm::StringRef name, double defaultValue) const {
  const onnx::AttributeProto *attr = getAttr(name);
  return attr && attr->has_f() ? attr->f() : defaultValue;
}

SmallVector<int64_t> NodeContext::getInts(llvm::StringRef name) const {
  const onnx::AttributeProto *attr = getAttr(name);
  if (!attr)
    return {};
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

std::string NodeContext::getString(llvm::StringRef name,
                                   llvm::StringRef defaultValue) const {
  const onnx::AttributeProto *attr = getAttr(name);
  return attr && attr->has_s() ? attr->s() : defaultValue.str();
}

bool NodeContext::hasOutput(unsigned index) const {
  return index < (unsigned)node.output_size() && !node.output(index).empty();
}

void NodeContext::setOutput(unsigned index, Value value) {
  if (!hasOutput(index))
    return;
  // Constants stay visible to consumers that need import-time values.
  ElementsAttr constant;
  if (auto constantOp = value.getDefiningOp<ConstantOp>())
    constant = constantOp.getValue();
  graph.define(node.output(index), ValueInfo{value, constant, nullptr, false});
}

void NodeContext::setOutputWithExtent(unsigned index, Value value, Value extent,
                                      int64_t axis) {
  if (!hasOutput(index))
    return;
  ValueInfo info{value, {}, nullptr, false};
  info.extent = extent;
  info.extentAxis = axis;
  info.extentOrigin = node.op_type() + " node '" + node.name() + "'";
  graph.define(node.output(index), info);
}

Operation *NodeContext::foldIfConstant(Operation *op) {
  if (op->getNumOperands() == 0 || op->getNumResults() != 1 ||
      !llvm::all_of(op->getOperands(), [](Value operand) {
        return operand.getDefiningOp<ConstantOp>();
      }))
    return op;
  SmallVector<Value> results;
  if (failed(getBuilder().tryFold(op, results)) || results.empty() ||
      !results.front().getDefiningOp<ConstantOp>())
    return op;
  Operation *folded = results.front().getDefiningOp();
  if (folded == op)
    return op;
  op->replaceAllUsesWith(results);
  op->erase();
  return folded;
}

void NodeContext::setConstantOutput(unsigned index, ElementsAttr value) {
  if (hasOutput(index))
    graph.define(node.output(index), ValueInfo{{}, value, nullptr, false});
}

Value NodeContext::constant(ElementsAttr value) {
  return createTyped<ConstantOp>(value);
}

Value NodeContext::splat(Type elementType, double value,
                         ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, elementType);
  return constant(DenseElementsAttr::get(
      type, makeDense(RankedTensorType::get({}, elementType), {value})
                .getSplatValue<Attribute>()));
}

Value NodeContext::reshape(Value value, ArrayRef<int64_t> shape) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return createTyped<ReshapeOp>(type.clone(shape), value);
}

Value NodeContext::cast(Value value, Type elementType) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return createTyped<CastOp>(type.clone(elementType), value);
}

std::optional<int64_t>
onnx_import::boundedElementCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim == 0)
      return 0;
  }
  for (int64_t dim : shape) {
    if (dim > kMaxTensorElements / count)
      return std::nullopt;
    count *= dim;
  }
  return count;
}

FailureOr<int64_t> onnx_import::normalizeAxis(NodeContext &ctx, int64_t axis,
                                              int64_t rank) {
  // A scalar has no axis: every caller indexes the shape with the result.
  if (axis < -rank || axis >= rank)
    return ctx.emitError() << "axis " << axis
                           << " is out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}
