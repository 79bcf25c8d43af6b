//===- OpCost.cpp - The work of oneflow ops -------------------------------===//

#include "oneflow/Cost/OpCost.h"
#include "oneflow/Cost/TaskWork.h"

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::oneflow;

/// What a transcendental function costs per element, in FLOPs.
static constexpr double kTranscendentalFlops = 8;

static double elementsOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() ? double(tensor.getNumElements())
                                           : 0;
}

static double bytesOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getElementType().isIntOrFloat())
    return 0;
  // i1 is one byte per element, as the plan's registers hold it.
  unsigned bits = tensor.getElementType().getIntOrFloatBitWidth();
  return elementsOf(type) * (bits == 1 ? 1 : bits / 8);
}

static double resultElements(Operation *op) {
  double elements = 0;
  for (Type type : op->getResultTypes())
    elements += elementsOf(type);
  return elements;
}

/// 2 * (elements of the product) * k: one multiply-add per element and k.
static OpCost product(Value result, int64_t k) {
  OpCost cost;
  cost.gemmFlops = 2.0 * elementsOf(result.getType()) * double(k);
  cost.gemmCount = 1;
  return cost;
}

/// A convolution of `kind` over `batch` images in `groups` groups: a
/// product, also counted as its kind.
static OpCost convolution(ConvKind kind, Value result, int64_t window,
                          Value image, int64_t groups) {
  OpCost cost = product(result, window);
  cost.convFlops[int(kind)] = cost.gemmFlops;
  cost.convCount[int(kind)] = 1;
  cost.convImages[int(kind)] =
      cast<RankedTensorType>(image.getType()).getDimSize(0) * groups;
  return cost;
}

/// The contracted dimension of `a` in op(a) op(b).
static int64_t contracted(Value a, bool transposeA) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(a.getType()).getShape();
  return transposeA ? shape[shape.size() - 2] : shape.back();
}

/// Multiply-adds per output element of a convolution whose filter (weight
/// or its gradient) has shape [_, c, kh, kw]: c * kh * kw.
static int64_t windowOf(Value filter) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(filter.getType()).getShape();
  return shape[1] * shape[2] * shape[3];
}

OpCost mlir::oneflow::estimateCost(Operation *op) {
  auto vector = [](double flops) {
    OpCost cost;
    cost.vectorFlops = flops;
    return cost;
  };
  auto inputElements = [&](Operation *of) {
    return vector(elementsOf(of->getOperand(0).getType()));
  };
  return llvm::TypeSwitch<Operation *, OpCost>(op)
      .Case([&](FusedOp fused) {
        OpCost sum;
        for (Operation &inner : fused.getBody().front())
          sum += estimateCost(&inner);
        return sum;
      })
      .Case([](MatmulOp op) {
        return product(op.getC(), contracted(op.getA(), op.getTransposeA()));
      })
      .Case([](BatchMatmulOp op) {
        return product(op.getC(), contracted(op.getA(), op.getTransposeA()));
      })
      // cuBLASLt epilogues: the activation rides on the product.
      .Case([](MatmulActAuxOp op) {
        return product(op.getC(), contracted(op.getA(), op.getTransposeA()));
      })
      .Case([](MatmulActGradOp op) {
        return product(op.getC(), contracted(op.getA(), op.getTransposeA()));
      })
      // y[n, cout, h, w] sums cin / groups * kh * kw products.
      // A conv2d_epilogue's residual and activation ride on the convolution
      // (oneDNN post-ops).
      .Case<Conv2DOp, Conv2DEpilogueOp>([](auto op) {
        return convolution(ConvKind::Conv, op.getY(), windowOf(op.getWeight()),
                           op.getX(), op.getGroups());
      })
      // Each input element scatters into cout / groups * kh * kw outputs.
      .Case([](ConvTranspose2DOp op) {
        return convolution(ConvKind::ConvTranspose, op.getX(),
                           windowOf(op.getWeight()), op.getX(), op.getGroups());
      })
      // Each output gradient element meets cin / groups * kh * kw inputs.
      .Case([](Conv2DGradFilterOp op) {
        return convolution(ConvKind::ConvGradFilter, op.getDy(),
                           windowOf(op.getDweight()), op.getX(),
                           op.getGroups());
      })
      // Registers, views and terminators compute nothing.
      .Case<VariableOp, ConstantOp, YieldOp, ReshapeOp, FlattenOp, SqueezeOp,
            UnsqueezeOp, func::ReturnOp>([&](Operation *) { return OpCost(); })
      .Case<TanhOp, SigmoidOp, ExpOp, LogOp, SqrtOp, RsqrtOp, ErfOp, SinOp,
            CosOp, SoftplusOp, SiluOp, AsinOp, AcosOp, AtanOp, GeluOp, EluOp,
            SeluOp, PowOp>([&](Operation *op) {
        return vector(kTranscendentalFlops * resultElements(op));
      })
      // An exp per input element dominates.
      .Case<SoftmaxOp, LogSoftmaxOp, SoftmaxCrossEntropyOp,
            SoftmaxCrossEntropyGradOp>([&](Operation *op) {
        return vector(kTranscendentalFlops *
                      elementsOf(op->getOperand(0).getType()));
      })
      // Reductions read every input element once.
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
            ArgMaxOp, ArgMinOp, GlobalAvgPool2DOp, GlobalMaxPool2DOp,
            MaxPool2DOp, AvgPool2DOp, LayerNormOp, LayerNormGradOp,
            BatchNormTrainOp, BatchNormGradOp, MseLossOp, CumSumOp, TopKOp>(
          inputElements)
      // Each candidate is compared with at most the per-class bound of
      // selected boxes.
      .Case([&](NonMaxSuppressionOp op) {
        auto scores = cast<ShapedType>(op.getScores().getType());
        double lists = scores.getDimSize(0) * scores.getDimSize(1);
        double rows =
            cast<ShapedType>(op.getSelected().getType()).getDimSize(0);
        return vector(elementsOf(scores) * (lists > 0 ? rows / lists : 0));
      })
      // A sort of the entries, each compared element by element.
      .Case([&](UniqueOp op) {
        double entries =
            cast<ShapedType>(op.getIndices().getType()).getDimSize(0);
        return vector(elementsOf(op.getX().getType()) *
                      std::max(1.0, std::log2(std::max(entries, 1.0))));
      })
      .Default([&](Operation *op) { return vector(resultElements(op)); });
}

KernelCost mlir::oneflow::estimateKernelCost(func::FuncOp kernel) {
  KernelCost cost;
  FunctionType type = kernel.getFunctionType();
  for (Type input : type.getInputs())
    cost.bytes += bytesOf(input);
  for (Type result : type.getResults())
    cost.bytes += bytesOf(result);
  if (kernel.isDeclaration())
    return cost;
  for (Operation &op : kernel.getBody().front()) {
    OpCost one = estimateCost(&op);
    // The first product's operand type, found through fused regions.
    if (one.gemmCount > 0 && cost.gemmCount == 0) {
      op.walk([&](Operation *inner) {
        if (!cost.elementType && !isa<FusedOp>(inner) &&
            estimateCost(inner).gemmCount > 0)
          cost.elementType =
              getElementTypeOrSelf(inner->getOperand(0).getType());
      });
    }
    static_cast<OpCost &>(cost) += one;
  }
  SmallVector<Type> tensors(type.getResults());
  llvm::append_range(tensors, type.getInputs());
  for (Type tensor : tensors)
    if (!cost.elementType && isa<RankedTensorType>(tensor))
      cost.elementType = getElementTypeOrSelf(tensor);
  return cost;
}

void mlir::oneflow::setTaskWork(const OpCost &work,
                                ::oneflow::plan::TaskCost &cost) {
  cost.set_gemm_flops(work.gemmFlops);
  cost.set_gemm_count(work.gemmCount);
  cost.set_vector_flops(work.vectorFlops);
  // A kind's message is present only when the kernel has such convolutions.
  auto set = [&](ConvKind kind, auto mutableConv) {
    if (work.convCount[int(kind)] == 0)
      return;
    ::oneflow::plan::ConvWork *conv = mutableConv();
    conv->set_flops(work.convFlops[int(kind)]);
    conv->set_count(work.convCount[int(kind)]);
    conv->set_images(work.convImages[int(kind)]);
  };
  set(ConvKind::Conv, [&] { return cost.mutable_conv2d(); });
  set(ConvKind::ConvTranspose, [&] { return cost.mutable_conv_transpose2d(); });
  set(ConvKind::ConvGradFilter,
      [&] { return cost.mutable_conv2d_grad_filter(); });
}
