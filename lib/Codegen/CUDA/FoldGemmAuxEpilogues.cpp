//===- FoldGemmAuxEpilogues.cpp - Activation gradients in cuBLASLt --------===//
//
// cuBLASLt's gradient epilogues, on a CUDA plan's rank programs before
// fusion: a graph rewrite, since the two products involved run in
// different kernels and a new tensor flows between them.
//
// A linear layer `h = act(x W + b)` (act ReLU, or GELU in tanh form: the
// `oneflow.gelu` op or the arithmetic PyTorch exports for
// `nn.GELU(approximate="tanh")`) whose training step computes the gradient
// flowing into its activation, `dpre = dh * act'(pre)`, from a product
// `dh = dY_next W_next` (the data gradient of the following layer):
//
//   - the forward product becomes `oneflow.matmul_act_aux`, which writes h
//     and an aux tensor, cuBLASLt's RELU_AUX_BIAS / GELU_AUX_BIAS epilogue:
//     the ReLU bit mask or the GELU pre-activation;
//   - the backward product becomes `oneflow.matmul_act_grad`, which
//     multiplies by act' read from aux (DRELU / DGELU); when the layer's
//     bias gradient sums dpre over the rows next to it (`reduce_sum` over
//     axis 0), that sum is its second result (DRELU_BGRAD / DGELU_BGRAD:
//     cuBLASLt's bias gradient is the column sum of its output).
//
// The values the backward read from the forward (the pre-activation, or
// tanh(u) and x^2 and the like) are then no longer kept. Both lower to one
// library call (include/oneflow/Runtime/CUDA/KernelABI.h).
//
// What is matched. The forward: a 2-D f32 `matmul` whose only user adds a
// bias of one value per column, then the activation G (the ops from the
// pre-activation `pre` to h; GELU recognized from its products and sums in
// any order, constants to 1e-6, as oneflow-fold-gemm-tensor-epilogues
// does). The backward B: every elementwise op of the backward phase after
// G that reads only `pre`, G's values other than h, scalar constants, other
// ops of B, and the result `d` of one backward 2-D f32 `matmul` of the
// shape of `pre`. Then:
//   - every use of `pre`, of G's values but h, and of `d` is in G or B, and
//     exactly one value of B is used elsewhere: that is the gradient of
//     `pre`, a function of `d` and `pre` alone computed element by element;
//   - evaluated in double at sample points, B must compute d * act'(pre)
//     (to 1e-6): what autodiff produces, checked rather than assumed (erf
//     GELU's derivative, or anything else, fails it);
//   - the forward ops are of the forward phase, and G precedes the
//     backward product (the aux must exist when it runs).
//
// cuBLASLt's rules (cublasLt.h of CUDA 13, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_*
// and cublasLtEpilogue_t; NVIDIA's nvmath-python for k):
//   - the aux is in the layout of the output D, whose transpose
//     (CUBLASLT_MATMUL_DESC_TRANSC) must be N: the backward product must
//     write dh as the forward wrote h, [m, n] row-major, element for
//     element (B is elementwise over `pre`'s shape, so a transposed or
//     broadcast d is never matched); op(a) and op(b) may be transposed
//     either way in both products (no restriction is documented);
//   - the ReLU mask's leading dimension is in bits, a multiple of 128 at
//     least D's rows (our n); the GELU pre-activation's a multiple of 8
//     elements: the aux tensors are padded so (getEpilogueAuxType);
//   - the bias gradient of D*_BGRAD has D's rows' length and sums D over
//     its columns: our c's column sums, `reduce_sum` over axis 0 of a 2-D
//     dpre (not keeping dims) and nothing else;
//   - one product, f32, no accumulation; the backward product's k must not
//     be 1 (cuBLASLt runs no DRELU / DGELU product with k = 1).
// Where a rule does not hold the layer is left alone.
//
// Not done: a forward product without a bias (RELU_AUX / GELU_AUX), 3-d
// activations through batched products, erf GELU (cuBLASLt computes the
// tanh form; see oneflow-fold-gemm-tensor-epilogues).
//
//===----------------------------------------------------------------------===//

#include "oneflow/Codegen/Passes.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Provenance.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_FOLDGEMMAUXEPILOGUES
#include "oneflow/Codegen/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {

constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr double kGeluCubic = 0.044715;

bool near(double value, double expected) {
  return std::fabs(value - expected) <= 1e-6 * std::fabs(expected);
}

/// The value of a rank-0 constant (booleans as 0 and 1).
std::optional<double> scalarConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!constant || !type || type.getRank() != 0)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense)
    return std::nullopt;
  Attribute element = dense.getSplatValue<Attribute>();
  if (auto f = dyn_cast<FloatAttr>(element))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(element))
    return i.getType().isInteger(1) ? double(i.getValue().getBoolValue())
                                    : double(i.getValue().getSExtValue());
  return std::nullopt;
}

StringRef phaseOf(Operation *op) {
  std::optional<Provenance> provenance = getProvenance(op);
  return provenance ? provenance->phase : StringRef();
}

/// Reads GELU's tanh form from the graph's arithmetic: the ops read through
/// collect in `ops`. Only ops of `type` (the activation's shape) are read
/// through; `leaf` (the pre-activation) never is.
class TanhGeluMatcher {
public:
  explicit TanhGeluMatcher(RankedTensorType type) : type(type) {}

  /// Whether `y` is 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in any
  /// order of its products and sums.
  bool match(Value y, Value x) {
    ops.clear();
    leaf = x;
    Value onePlusTanh = otherFactor(y, 0.5, x);
    if (!onePlusTanh)
      return false;
    double offset = 0;
    SmallVector<Value> terms;
    collectTerms(onePlusTanh, offset, terms);
    auto tanh = terms.size() == 1 ? terms[0].getDefiningOp<TanhOp>() : TanhOp();
    if (!near(offset, 1) || !tanh || tanh.getType() != type)
      return false;
    ops.insert(tanh);
    double scale = 1;
    SmallVector<Value> factors;
    collectFactors(tanh.getX(), scale, factors);
    if (!near(scale, kSqrt2OverPi) || factors.size() != 1)
      return false;
    offset = 0;
    terms.clear();
    collectTerms(factors[0], offset, terms);
    if (offset != 0 || terms.size() != 2)
      return false;
    Value cubic = terms[0] == x ? terms[1] : terms[1] == x ? terms[0] : Value();
    if (!cubic)
      return false;
    scale = 1;
    factors.clear();
    collectFactors(cubic, scale, factors);
    return near(scale, kGeluCubic) && factors.size() == 3 &&
           llvm::all_of(factors, [&](Value f) { return f == x; });
  }

  llvm::SetVector<Operation *> ops;

private:
  bool readable(Operation *op, Value value) const {
    return op && value != leaf && value.getType() == type;
  }

  /// `value` as scale * product(factors), through mul, neg, pow by 2 or 3
  /// and div by a constant.
  void collectFactors(Value value, double &scale,
                      SmallVectorImpl<Value> &factors) {
    if (std::optional<double> constant = scalarConstant(value)) {
      scale *= *constant;
      return;
    }
    Operation *op = value.getDefiningOp();
    if (readable(op, value)) {
      if (auto mul = dyn_cast<MulOp>(op)) {
        ops.insert(op);
        collectFactors(mul.getLhs(), scale, factors);
        collectFactors(mul.getRhs(), scale, factors);
        return;
      }
      if (auto neg = dyn_cast<NegOp>(op)) {
        ops.insert(op);
        scale = -scale;
        collectFactors(neg.getX(), scale, factors);
        return;
      }
      if (auto div = dyn_cast<DivOp>(op)) {
        std::optional<double> divisor = scalarConstant(div.getRhs());
        if (divisor && *divisor != 0) {
          ops.insert(op);
          collectFactors(div.getLhs(), scale, factors);
          scale /= *divisor;
          return;
        }
      }
      if (auto pow = dyn_cast<PowOp>(op)) {
        std::optional<double> exponent = scalarConstant(pow.getRhs());
        if (exponent && (*exponent == 2 || *exponent == 3)) {
          ops.insert(op);
          for (int i = 0; i < int(*exponent); ++i)
            collectFactors(pow.getLhs(), scale, factors);
          return;
        }
      }
    }
    factors.push_back(value);
  }

  /// `value` as offset + sum(terms), through add.
  void collectTerms(Value value, double &offset,
                    SmallVectorImpl<Value> &terms) {
    if (std::optional<double> constant = scalarConstant(value)) {
      offset += *constant;
      return;
    }
    Operation *op = value.getDefiningOp();
    if (auto add = dyn_cast_or_null<AddOp>(op); add && readable(op, value)) {
      ops.insert(op);
      collectTerms(add.getLhs(), offset, terms);
      collectTerms(add.getRhs(), offset, terms);
      return;
    }
    terms.push_back(value);
  }

  /// The one factor of `value` besides `known` when `value` is
  /// `expectedScale` * known * other; null otherwise.
  Value otherFactor(Value value, double expectedScale, Value known) {
    double scale = 1;
    SmallVector<Value> factors;
    collectFactors(value, scale, factors);
    if (!near(scale, expectedScale) || factors.size() != 2)
      return {};
    if (factors[0] == known)
      return factors[1];
    return factors[1] == known ? factors[0] : Value();
  }

  RankedTensorType type;
  Value leaf;
};

/// A linear layer's forward: pre = x W + bias (the product P), h = act(pre)
/// computed by `ops` (G, in program order).
struct Forward {
  EpilogueActivation activation;
  MatmulOp product;
  AddOp biasAdd;
  Value bias, pre, h;
  llvm::SetVector<Operation *> ops;
};

/// The forward of the layer whose activation produces `h`, if it is one.
std::optional<Forward> forwardOf(Operation *hDef) {
  if (hDef->getNumResults() != 1)
    return std::nullopt;
  Forward f;
  f.h = hDef->getResult(0);
  auto type = dyn_cast<RankedTensorType>(f.h.getType());
  if (!type || type.getRank() != 2 || !type.getElementType().isF32())
    return std::nullopt;
  if (auto relu = dyn_cast<ReluOp>(hDef)) {
    f.activation = EpilogueActivation::Relu;
    f.pre = relu.getX();
    f.ops.insert(hDef);
  } else if (auto gelu = dyn_cast<GeluOp>(hDef);
             gelu && gelu.getApproximate() == GeluApproximation::Tanh) {
    f.activation = EpilogueActivation::GeluTanh;
    f.pre = gelu.getX();
    f.ops.insert(hDef);
  } else if (isa<MulOp>(hDef)) {
    // The arithmetic form, h = 0.5 * pre * (1 + tanh(...)): pre is one of
    // the bias adds among the factors under h.
    SmallVector<Value> candidates, stack(hDef->getOperands());
    llvm::SmallPtrSet<Operation *, 8> seen;
    while (!stack.empty()) {
      Value value = stack.pop_back_val();
      Operation *def = value.getDefiningOp();
      if (!def || value.getType() != type || !seen.insert(def).second)
        continue;
      if (isa<AddOp>(def) &&
          llvm::any_of(def->getOperands(), [](Value operand) {
            return isa_and_present<MatmulOp>(operand.getDefiningOp());
          }))
        candidates.push_back(value);
      else if (isa<MulOp, NegOp, DivOp, PowOp>(def))
        llvm::append_range(stack, def->getOperands());
    }
    TanhGeluMatcher matcher(type);
    for (Value candidate : candidates)
      if (matcher.match(f.h, candidate)) {
        f.activation = EpilogueActivation::GeluTanh;
        f.pre = candidate;
        f.ops = matcher.ops;
        break;
      }
    if (!f.pre)
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (f.pre.getType() != type)
    return std::nullopt;
  f.biasAdd = f.pre.getDefiningOp<AddOp>();
  if (!f.biasAdd)
    return std::nullopt;
  for (unsigned i = 0; i < 2; ++i)
    if (auto product = f.biasAdd->getOperand(i).getDefiningOp<MatmulOp>()) {
      f.product = product;
      f.bias = f.biasAdd->getOperand(1 - i);
    }
  auto biasType =
      f.bias ? dyn_cast<RankedTensorType>(f.bias.getType()) : nullptr;
  if (!f.product || f.product.getType() != type || !f.product->hasOneUse() ||
      !biasType ||
      biasType !=
          RankedTensorType::get({type.getDimSize(1)}, type.getElementType()))
    return std::nullopt;
  // G in program order (the matcher collects it from h down).
  SmallVector<Operation *> ordered(f.ops.begin(), f.ops.end());
  for (Operation *op : ordered)
    if (op->getBlock() != hDef->getBlock())
      return std::nullopt;
  llvm::sort(ordered,
             [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  f.ops = llvm::SetVector<Operation *>(ordered.begin(), ordered.end());
  // The layer runs forward.
  SmallVector<Operation *> layer = {f.product, f.biasAdd};
  llvm::append_range(layer, f.ops);
  for (Operation *op : layer)
    if (phaseOf(op) != "forward" || op->getBlock() != hDef->getBlock())
      return std::nullopt;
  return f;
}

/// Whether the numeric evaluation below knows `op`.
bool evaluable(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, NegOp, PowOp, TanhOp, ExpOp, ErfOp,
             SqrtOp, ReciprocalOp, ReluOp, GeluOp, GreaterOp, CastOp, WhereOp>(
      op);
}

/// `op` on scalars (i1 as 0 and 1); false for an unknown op.
bool evaluate(Operation *op, ArrayRef<double> in, double &out) {
  auto gelu = [](double x, bool tanhForm) {
    return tanhForm ? 0.5 * x *
                          (1 + std::tanh(kSqrt2OverPi *
                                         (x + kGeluCubic * x * x * x)))
                    : 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  };
  return TypeSwitch<Operation *, bool>(op)
      .Case([&](AddOp) { return out = in[0] + in[1], true; })
      .Case([&](SubOp) { return out = in[0] - in[1], true; })
      .Case([&](MulOp) { return out = in[0] * in[1], true; })
      .Case([&](DivOp) { return out = in[0] / in[1], true; })
      .Case([&](NegOp) { return out = -in[0], true; })
      .Case([&](PowOp) { return out = std::pow(in[0], in[1]), true; })
      .Case([&](TanhOp) { return out = std::tanh(in[0]), true; })
      .Case([&](ExpOp) { return out = std::exp(in[0]), true; })
      .Case([&](ErfOp) { return out = std::erf(in[0]), true; })
      .Case([&](SqrtOp) { return out = std::sqrt(in[0]), true; })
      .Case([&](ReciprocalOp) { return out = 1 / in[0], true; })
      .Case([&](ReluOp) { return out = in[0] > 0 ? in[0] : 0, true; })
      .Case([&](GeluOp g) {
        return out = gelu(in[0], g.getApproximate() == GeluApproximation::Tanh),
               true;
      })
      .Case([&](GreaterOp) { return out = in[0] > in[1], true; })
      .Case([&](CastOp c) {
        // To or from i1 keeps 0 and 1; float casts keep the value.
        Type to = getElementTypeOrSelf(c.getY().getType());
        out = to.isInteger(1) ? double(in[0] != 0) : in[0];
        return true;
      })
      .Case([&](WhereOp) { return out = in[0] != 0 ? in[1] : in[2], true; })
      .Default([](Operation *) { return false; });
}

double activationDerivative(EpilogueActivation activation, double x) {
  if (activation == EpilogueActivation::Relu)
    return x > 0 ? 1 : 0;
  double t = std::tanh(kSqrt2OverPi * (x + kGeluCubic * x * x * x));
  return 0.5 * (1 + t) +
         0.5 * x * (1 - t * t) * kSqrt2OverPi * (1 + 3 * kGeluCubic * x * x);
}

/// The backward of a layer's activation: B (in program order) computes
/// `gradient` = d * act'(pre) element by element from d, the result of
/// `product`.
struct Backward {
  MatmulOp product;
  SmallVector<Operation *> ops;
  Value gradient;
  ReduceSumOp biasGradient; // null: no bias gradient next to it
};

/// Whether, at sample points, the ops of G then B compute `gradient` =
/// d * act'(pre), and G computes h = act(pre).
bool computesActivationGradient(const Forward &f, Value d,
                                ArrayRef<Operation *> backwardOps,
                                Value gradient) {
  const double xs[] = {-4.0, -2.5, -1.3, -0.6, -0.1, 0.05,
                       0.3,  0.9,  1.7,  2.7,  5.0};
  const double ds[] = {1.0, -2.5};
  for (double x : xs)
    for (double dv : ds) {
      DenseMap<Value, double> values;
      values[f.pre] = x;
      values[d] = dv;
      for (Operation *op :
           llvm::concat<Operation *const>(f.ops.getArrayRef(), backwardOps)) {
        SmallVector<double> in;
        for (Value operand : op->getOperands()) {
          auto it = values.find(operand);
          std::optional<double> constant = scalarConstant(operand);
          if (it == values.end() && !constant)
            return false;
          in.push_back(it != values.end() ? it->second : *constant);
        }
        double out = 0;
        if (!evaluate(op, in, out))
          return false;
        values[op->getResult(0)] = out;
      }
      double expectedH =
          f.activation == EpilogueActivation::Relu
              ? (x > 0 ? x : 0)
              : 0.5 * x *
                    (1 +
                     std::tanh(kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
      double expected = dv * activationDerivative(f.activation, x);
      auto close = [](double value, double want) {
        return std::fabs(value - want) <= 1e-6 * (1 + std::fabs(want));
      };
      if (!close(values[f.h], expectedH) || !close(values[gradient], expected))
        return false;
    }
  return true;
}

/// The backward of `f`'s activation read from the result of `product`, if
/// `product` is the data-gradient product whose result it reads.
std::optional<Backward> backwardOf(const Forward &f, MatmulOp product) {
  auto type = cast<RankedTensorType>(f.pre.getType());
  Operation *hDef = f.h.getDefiningOp();
  Block *block = hDef->getBlock();
  if (product->getBlock() != block || product.getType() != type ||
      phaseOf(product) != "backward" || !hDef->isBeforeInBlock(product))
    return std::nullopt;
  // cuBLASLt runs no DRELU / DGELU product with k = 1.
  auto aType = cast<RankedTensorType>(product.getA().getType());
  if (aType.getDimSize(product.getTransposeA() ? 0 : 1) <= 1)
    return std::nullopt;
  Value d = product.getResult();
  // Values B may read: pre, G's values but h, d, and B's own.
  DenseSet<Value> readable = {f.pre, d};
  for (Operation *op : f.ops)
    if (op->getResult(0) != f.h)
      readable.insert(op->getResult(0));
  Backward b;
  b.product = product;
  llvm::SmallPtrSet<Operation *, 16> inB;
  for (Operation *op = hDef->getNextNode(); op; op = op->getNextNode()) {
    if (op->getNumResults() != 1 || !evaluable(op) || phaseOf(op) != "backward")
      continue;
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || resultType.getShape() != type.getShape())
      continue;
    bool readsB = false, closed = true;
    for (Value operand : op->getOperands()) {
      if (readable.contains(operand)) {
        readsB = true;
        continue;
      }
      closed &= scalarConstant(operand).has_value();
    }
    if (!readsB || !closed)
      continue;
    b.ops.push_back(op);
    inB.insert(op);
    readable.insert(op->getResult(0));
  }
  auto usedOnlyBy = [](Value value, auto inside) {
    return llvm::all_of(value.getUsers(), inside);
  };
  auto inGOrB = [&](Operation *user) {
    return f.ops.contains(user) || inB.contains(user);
  };
  if (!usedOnlyBy(d, [&](Operation *user) { return inB.contains(user); }) ||
      !usedOnlyBy(f.pre, inGOrB))
    return std::nullopt;
  for (Operation *op : f.ops)
    if (op->getResult(0) != f.h && !usedOnlyBy(op->getResult(0), inGOrB))
      return std::nullopt;
  // Exactly one value of B leaves it: the gradient of pre.
  for (Operation *op : b.ops) {
    Value result = op->getResult(0);
    if (usedOnlyBy(result, [&](Operation *user) { return inB.contains(user); }))
      continue;
    if (b.gradient)
      return std::nullopt;
    b.gradient = result;
  }
  if (!b.gradient || b.gradient.getType() != type ||
      !computesActivationGradient(f, d, b.ops, b.gradient))
    return std::nullopt;
  // The bias gradient next to it: dpre's column sums.
  for (Operation *user : b.gradient.getUsers())
    if (auto sum = dyn_cast<ReduceSumOp>(user);
        sum && sum.getAxes() == ArrayRef<int64_t>{0} && !sum.getKeepdims() &&
        sum.getType() == RankedTensorType::get({type.getDimSize(1)},
                                               type.getElementType()) &&
        sum->getBlock() == block && phaseOf(sum) == "backward") {
      b.biasGradient = sum;
      break;
    }
  return b;
}

/// Rewrites the layer `f` and its backward `b` into the two epilogue
/// products.
void rewrite(Forward &f, Backward &b) {
  Operation *hDef = f.h.getDefiningOp();
  OpBuilder builder(hDef);
  RankedTensorType type = cast<RankedTensorType>(f.h.getType());
  RankedTensorType auxType =
      getEpilogueAuxType(builder.getContext(), f.activation, type.getDimSize(0),
                         type.getDimSize(1));
  auto forward = MatmulActAuxOp::create(
      builder, f.product.getLoc(), type, auxType, f.product.getA(),
      f.product.getB(), f.bias, f.activation, f.product.getTransposeA(),
      f.product.getTransposeB());
  builder.setInsertionPoint(b.product);
  Type biasGradType = b.biasGradient ? b.biasGradient.getType() : Type();
  auto backward = MatmulActGradOp::create(
      builder, b.product.getLoc(), type, biasGradType, b.product.getA(),
      b.product.getB(), forward.getAux(), f.activation,
      b.product.getTransposeA(), b.product.getTransposeB());
  f.h.replaceAllUsesWith(forward.getC());
  b.gradient.replaceAllUsesWith(backward.getC());
  if (b.biasGradient) {
    b.biasGradient.getResult().replaceAllUsesWith(backward.getBiasGrad());
    b.biasGradient->erase();
  }
  // What is left reads only itself: B, the backward product, G, the bias
  // add and the forward product, users first; then the constants only
  // they read.
  llvm::SetVector<Operation *> constants;
  for (Operation *op : llvm::concat<Operation *const>(b.ops, f.ops))
    for (Value operand : op->getOperands())
      if (auto constant = operand.getDefiningOp<ConstantOp>())
        constants.insert(constant);
  for (Operation *op : llvm::reverse(b.ops))
    op->erase();
  b.product->erase();
  for (Operation *op : llvm::reverse(f.ops))
    op->erase();
  f.biasAdd->erase();
  f.product->erase();
  for (Operation *constant : constants)
    if (constant->use_empty())
      constant->erase();
}

struct FoldGemmAuxEpiloguesPass
    : public oneflow::impl::FoldGemmAuxEpiloguesBase<FoldGemmAuxEpiloguesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration() || func->hasAttr(kKernelAttrName))
      return;
    Block &block = func.getBody().front();
    // Activations in program order; each rewrite erases ops after the one
    // looked at, so the list is walked by value.
    SmallVector<Operation *> candidates;
    for (Operation &op : block)
      if (isa<ReluOp, GeluOp, MulOp>(op))
        candidates.push_back(&op);
    llvm::SmallPtrSet<Operation *, 16> erased;
    for (Operation *hDef : candidates) {
      if (erased.contains(hDef))
        continue;
      std::optional<Forward> f = forwardOf(hDef);
      if (!f)
        continue;
      std::optional<Backward> b;
      for (Operation &op : block)
        if (auto product = dyn_cast<MatmulOp>(op))
          if ((b = backwardOf(*f, product)))
            break;
      if (!b)
        continue;
      for (Operation *op : f->ops)
        erased.insert(op);
      for (Operation *op : b->ops)
        erased.insert(op);
      rewrite(*f, *b);
    }
  }
};

} // namespace
