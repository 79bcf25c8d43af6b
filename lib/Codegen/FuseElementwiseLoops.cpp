//===- FuseElementwiseLoops.cpp - One loop nest per elementwise chain -----===//

#include "oneflow/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_FUSEELEMENTWISELOOPS
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;

namespace {
/// Merges an all-parallel producer with several users (its values are
/// stored anyway) into an all-parallel consumer that reads each of its
/// elements once, at
/// one iteration of the producer per iteration of the consumer. The merged
/// generic computes the producer's body, then the consumer's, and also
/// yields the producer's values that others read: they are computed once and
/// stored in the same sweep over memory as the consumer's results. Upstream's
/// pattern fuses only single-use producers (others would be recomputed).
struct MergeSharedProducer : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
      if (producer && !producer->hasOneUse() &&
          succeeded(merge(producer, consumer, rewriter)))
        return success();
    }
    return failure();
  }

private:
  /// The map from the consumer's loops to the producer's loops, when every
  /// operand the consumer reads from the producer agrees on one.
  static std::optional<AffineMap> producerLoops(linalg::GenericOp producer,
                                                linalg::GenericOp consumer) {
    std::optional<AffineMap> loops;
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      auto result = dyn_cast<OpResult>(operand->get());
      if (!result || result.getOwner() != producer)
        continue;
      AffineMap consumerMap = consumer.getMatchingIndexingMap(operand);
      AffineMap resultMap = producer.getIndexingMapMatchingResult(result);
      if (!consumerMap.isPermutation() || !resultMap.isPermutation())
        return std::nullopt;
      AffineMap map = inversePermutation(resultMap).compose(consumerMap);
      if (loops && *loops != map)
        return std::nullopt;
      loops = map;
    }
    return loops;
  }

  static LogicalResult merge(linalg::GenericOp producer,
                             linalg::GenericOp consumer,
                             PatternRewriter &rewriter) {
    // Only into all-parallel consumers: inside a reduction's loops the
    // producer's values would be stored where they used to be recomputed.
    if (producer.getNumParallelLoops() != producer.getNumLoops() ||
        consumer.getNumParallelLoops() != consumer.getNumLoops() ||
        !producer.hasPureTensorSemantics() ||
        !consumer.hasPureTensorSemantics() ||
        producer->getBlock() != consumer->getBlock())
      return failure();
    // The merged op sits where the consumer is: other users come after it,
    // and the consumer's outputs must not be the producer's values.
    for (Operation *user : producer->getUsers())
      if (user != consumer.getOperation() &&
          (user->getBlock() != consumer->getBlock() ||
           !consumer->isBeforeInBlock(user)))
        return failure();
    for (OpOperand &init : consumer.getDpsInitsMutable())
      if (init.get().getDefiningOp() == producer)
        return failure();
    for (OpOperand &init : producer.getDpsInitsMutable())
      if (producer.payloadUsesValueFromOperand(&init))
        return failure();
    std::optional<AffineMap> loops = producerLoops(producer, consumer);
    // linalg.index in the producer's body counts the producer's loops.
    bool producerReadsIndices =
        !producer.getRegion().front().getOps<linalg::IndexOp>().empty();
    if (!loops || (producerReadsIndices && !loops->isIdentity()))
      return failure();

    // Inputs: the consumer's own, then the producer's; outputs: the
    // consumer's, then the producer values someone else reads.
    SmallVector<Value> inputs, outputs;
    SmallVector<AffineMap> maps;
    SmallVector<OpOperand *> consumerInputs;
    for (OpOperand *operand : consumer.getDpsInputOperands())
      if (operand->get().getDefiningOp() != producer) {
        consumerInputs.push_back(operand);
        inputs.push_back(operand->get());
        maps.push_back(consumer.getMatchingIndexingMap(operand));
      }
    for (OpOperand *operand : producer.getDpsInputOperands()) {
      inputs.push_back(operand->get());
      maps.push_back(producer.getMatchingIndexingMap(operand).compose(*loops));
    }
    for (OpOperand &init : consumer.getDpsInitsMutable()) {
      outputs.push_back(init.get());
      maps.push_back(consumer.getMatchingIndexingMap(&init));
    }
    SmallVector<OpResult> keptResults;
    for (OpResult result : producer->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return user != consumer.getOperation();
          })) {
        keptResults.push_back(result);
        OpOperand *init = producer.getDpsInitOperand(result.getResultNumber());
        outputs.push_back(init->get());
        maps.push_back(producer.getMatchingIndexingMap(init).compose(*loops));
      }

    SmallVector<Type> resultTypes(consumer->getResultTypes());
    for (OpResult result : keptResults)
      resultTypes.push_back(result.getType());
    auto merged = linalg::GenericOp::create(rewriter, consumer.getLoc(),
                                            resultTypes, inputs, outputs, maps,
                                            consumer.getIteratorTypesArray());

    // Body: block arguments in the order of the operands above.
    Block &body = merged.getRegion().emplaceBlock();
    auto addArgument = [&](Value value) {
      return body.addArgument(getElementTypeOrSelf(value.getType()),
                              value.getLoc());
    };
    IRMapping mapping;
    Block &producerBody = producer.getRegion().front();
    Block &consumerBody = consumer.getRegion().front();
    for (OpOperand *operand : consumerInputs)
      mapping.map(consumer.getMatchingBlockArgument(operand),
                  addArgument(operand->get()));
    for (OpOperand *operand : producer.getDpsInputOperands())
      mapping.map(producer.getMatchingBlockArgument(operand),
                  addArgument(operand->get()));
    for (OpOperand &init : consumer.getDpsInitsMutable())
      mapping.map(consumer.getMatchingBlockArgument(&init),
                  addArgument(init.get()));
    for (OpResult result : keptResults)
      addArgument(producer.getDpsInitOperand(result.getResultNumber())->get());

    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&body);
    for (Operation &op : producerBody.without_terminator())
      rewriter.clone(op, mapping);
    auto producerYield = cast<linalg::YieldOp>(producerBody.getTerminator());
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      auto result = dyn_cast<OpResult>(operand->get());
      if (result && result.getOwner() == producer)
        mapping.map(consumer.getMatchingBlockArgument(operand),
                    mapping.lookupOrDefault(
                        producerYield.getOperand(result.getResultNumber())));
    }
    for (Operation &op : consumerBody.without_terminator())
      rewriter.clone(op, mapping);
    SmallVector<Value> yielded;
    for (Value value : consumerBody.getTerminator()->getOperands())
      yielded.push_back(mapping.lookupOrDefault(value));
    for (OpResult result : keptResults)
      yielded.push_back(mapping.lookupOrDefault(
          producerYield.getOperand(result.getResultNumber())));
    linalg::YieldOp::create(rewriter, consumer.getLoc(), yielded);

    unsigned numConsumerResults = consumer->getNumResults();
    for (auto [i, result] : llvm::enumerate(keptResults))
      rewriter.replaceAllUsesWith(result,
                                  merged->getResult(numConsumerResults + i));
    rewriter.replaceOp(consumer,
                       merged->getResults().take_front(numConsumerResults));
    rewriter.eraseOp(producer);
    return success();
  }
};

struct FuseElementwiseLoopsPass
    : public oneflow::impl::FuseElementwiseLoopsBase<FuseElementwiseLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fusedOperand) {
          Operation *producer = fusedOperand->get().getDefiningOp();
          return producer && producer->hasOneUse();
        });
    patterns.add<MergeSharedProducer>(&getContext());
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
