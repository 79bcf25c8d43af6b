//===- AddLoss.cpp - The training loss of a model output ------------------===//
//
// Turns a model's graph into the forward half of a training step: a new
// input carries the labels, and @main returns the mean loss of one output.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_ADDLOSS
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {
std::string ioName(DictionaryAttr attrs, StringRef fallback) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>(kIONameAttrName))
      return name.str();
  return fallback.str();
}

/// The initializer of a copy of `variable` holding the same values under
/// another name: the copy draws from the original's stream.
InitializerAttr sameValues(VariableOp variable) {
  std::optional<InitializerAttr> init = variable.getInitializer();
  if (!init)
    return {};
  auto logical = variable->getAttrOfType<StringAttr>(kLogicalNameAttrName);
  return InitializerAttr::get(
      variable.getContext(), init->getDistribution(), init->getMean(),
      init->getStd(), init->getA(), init->getB(), init->getSeed(),
      init->getStreamFor(logical ? logical.getValue() : variable.getVarName()));
}

/// Gives batch norms private running statistics where the variable holding
/// one is read by anything else: exporters merge equal initializers (a fresh
/// norm's running mean is every zero bias of its size, its running variance
/// every unit weight), and training assigns running statistics, which must
/// change no other value. A private copy starts from the shared data and is
/// named as the ONNX model names the statistic (the importer records names
/// read through an Identity of another initializer).
void privatizeStatistics(func::FuncOp graph) {
  struct Reads {
    SmallVector<OpOperand *> statistics;
    unsigned others = 0;
  };
  llvm::MapVector<StringAttr, Reads> readsOf;
  llvm::StringSet<> taken;
  auto isStatistic = [](OpOperand &use) {
    auto norm = dyn_cast<BatchNormOp>(use.getOwner());
    return norm &&
           (&use == &norm.getMeanMutable() ||
            &use == &norm.getVarianceMutable()) &&
           norm.getMean().getDefiningOp<VariableOp>() &&
           norm.getVariance().getDefiningOp<VariableOp>();
  };
  for (VariableOp variable : graph.getOps<VariableOp>()) {
    taken.insert(variable.getVarName());
    Reads &reads = readsOf[variable.getVarNameAttr()];
    for (OpOperand &use : variable.getOutput().getUses()) {
      if (isStatistic(use))
        reads.statistics.push_back(&use);
      else
        ++reads.others;
    }
  }
  for (auto &[shared, reads] : readsOf) {
    if (reads.statistics.size() + reads.others <= 1)
      continue;
    // A norm reading the statistic under the variable's own name keeps it
    // when nothing but statistics reads it.
    bool kept = reads.others > 0;
    for (OpOperand *use : reads.statistics) {
      auto norm = cast<BatchNormOp>(use->getOwner());
      unsigned stat = use == &norm.getMeanMutable() ? 0 : 1;
      std::string name = shared.str();
      if (auto names = norm->getAttrOfType<ArrayAttr>(kStatisticNamesAttrName))
        name = cast<StringAttr>(names[stat]).str();
      if (!kept && name == shared.getValue()) {
        kept = true;
        continue;
      }
      if (taken.contains(name)) {
        std::string base = shared.str();
        if (auto node = dyn_cast<NameLoc>(norm.getLoc()))
          base = node.getName().str();
        base += stat ? ".running_var" : ".running_mean";
        name = base;
        for (unsigned n = 1; taken.contains(name); ++n)
          name = base + "." + std::to_string(n);
      }
      taken.insert(name);
      auto variable = use->get().getDefiningOp<VariableOp>();
      OpBuilder builder(variable);
      builder.setInsertionPointAfter(variable);
      auto own = VariableOp::create(
          builder, variable.getLoc(), variable.getType(),
          builder.getStringAttr(name), variable.getInitialValueAttr(),
          sameValues(variable));
      use->set(own.getOutput());
    }
  }
}

struct AddLossPass : public oneflow::impl::AddLossBase<AddLossPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto graph = lookupGraph(module, "to train");
    if (!graph)
      return signalPassFailure();
    if (loss != "cross-entropy" && loss != "mse") {
      module.emitError() << "unknown loss '" << loss
                         << "' (expected cross-entropy or mse)";
      return signalPassFailure();
    }
    if (label.empty()) {
      module.emitError() << "the label input needs a name";
      return signalPassFailure();
    }

    // The output the loss is taken on.
    std::optional<unsigned> index;
    std::string names;
    for (unsigned i = 0; i < graph.getNumResults(); ++i) {
      std::string name =
          ioName(graph.getResultAttrDict(i), "output" + std::to_string(i));
      names += (i ? ", " : "") + name;
      if ((lossOn.empty() && i == 0) || name == lossOn)
        index = i;
    }
    if (!index) {
      graph.emitError() << (graph.getNumResults() == 0
                                ? "the graph has no output to take a loss on"
                                : "no output named '" + lossOn +
                                      "' to take the loss on (outputs: " +
                                      names + ")");
      return signalPassFailure();
    }
    for (unsigned i = 0; i < graph.getNumArguments(); ++i)
      if (ioName(graph.getArgAttrDict(i), "input" + std::to_string(i)) ==
          label) {
        graph.emitError() << "the label input '" << label
                          << "' has the name of an existing input; choose "
                             "another with --label";
        return signalPassFailure();
      }

    auto ret = cast<func::ReturnOp>(graph.getBody().front().getTerminator());
    Value output = ret.getOperand(*index);
    auto outputType = cast<RankedTensorType>(output.getType());
    std::string outputName = ioName(graph.getResultAttrDict(*index),
                                    "output" + std::to_string(*index));
    if (!isa<FloatType>(outputType.getElementType())) {
      graph.emitError() << "output '" << outputName << "' of type "
                        << outputType
                        << " is not floating point: no loss can be taken on it";
      return signalPassFailure();
    }
    RankedTensorType labelType = outputType;
    if (loss == "cross-entropy") {
      if (outputType.getRank() < 1) {
        graph.emitError() << "cross-entropy needs logits [..., C], but output '"
                          << outputName << "' is a scalar";
        return signalPassFailure();
      }
      labelType = RankedTensorType::get(outputType.getShape().drop_back(),
                                        IntegerType::get(&getContext(), 64));
    }

    // The label input, after the model's inputs.
    MLIRContext *context = &getContext();
    Location loc = NameLoc::get(StringAttr::get(context, "loss"));
    unsigned labelIndex = graph.getNumArguments();
    if (failed(graph.insertArgument(
            labelIndex, labelType,
            DictionaryAttr::get(
                context,
                {NamedAttribute(StringAttr::get(context, kIONameAttrName),
                                StringAttr::get(context, label))}),
            loc))) {
      graph.emitError() << "cannot add the label input";
      return signalPassFailure();
    }
    Value labels = graph.getArgument(labelIndex);

    OpBuilder builder(ret);
    Value perPosition;
    if (loss == "cross-entropy")
      perPosition = SoftmaxCrossEntropyOp::create(
          builder, loc, output, labels,
          LossReductionAttr::get(context, LossReduction::None), IntegerAttr());
    else
      perPosition = MseLossOp::create(
          builder, loc, output, labels,
          LossReductionAttr::get(context, LossReduction::None));
    auto perType = cast<RankedTensorType>(perPosition.getType());
    // The mean as an explicit reduction: distributed, it is rescaled like
    // any mean over a split axis.
    Value value = perPosition;
    if (perType.getRank() > 0)
      value = ReduceMeanOp::create(
          builder, loc, perPosition,
          llvm::to_vector(llvm::seq<int64_t>(0, perType.getRank())),
          /*keepdims=*/false);

    // The model runs in training mode: batch norms normalize with batch
    // statistics and update their running statistics (momentum 0.1, as
    // PyTorch's default).
    privatizeStatistics(graph);
    for (BatchNormOp norm :
         llvm::make_early_inc_range(graph.getOps<BatchNormOp>())) {
      auto mean = norm.getMean().getDefiningOp<VariableOp>();
      auto variance = norm.getVariance().getDefiningOp<VariableOp>();
      if (!mean || !variance)
        continue;
      OpBuilder at(norm);
      Type stats = norm.getMean().getType();
      auto train = BatchNormTrainOp::create(
          at, norm.getLoc(), norm.getX().getType(), stats, stats, stats, stats,
          norm.getX(), norm.getScale(), norm.getBias(), norm.getMean(),
          norm.getVariance(), norm.getEpsilonAttr(), at.getF64FloatAttr(0.1));
      AssignOp::create(at, norm.getLoc(), mean.getVarNameAttr(),
                       train.getNewRunningMean());
      AssignOp::create(at, norm.getLoc(), variance.getVarNameAttr(),
                       train.getNewRunningVariance());
      norm.replaceAllUsesWith(train.getY());
      norm.erase();
    }

    // The loss is the only result.
    func::ReturnOp::create(builder, ret.getLoc(), ValueRange{value});
    ret.erase();
    graph.setType(FunctionType::get(context, graph.getArgumentTypes(),
                                    {value.getType()}));
    graph.setAllResultAttrs(ArrayRef<DictionaryAttr>{DictionaryAttr::get(
        context, {NamedAttribute(StringAttr::get(context, kIONameAttrName),
                                 StringAttr::get(context, "loss"))})});
    module->setAttr(kLossOutputAttrName, StringAttr::get(context, "loss"));
    if (labelType.getRank() > 0)
      module->setAttr(kBatchSizeAttrName,
                      builder.getI64IntegerAttr(labelType.getDimSize(0)));
  }
};
} // namespace
