//===- RecurrentImporters.cpp - LSTM, GRU and RNN -------------------------===//
//
// The recurrences unroll over the static sequence length into existing ops:
// one MatMul projects the inputs of all time steps, then each step multiplies
// the state by the recurrent weight, applies the gates' activations and
// updates the state. Autodiff, SBP and fusion need nothing new for them.
// `sequence_lens` masks every step with a Where: past its length a
// sequence's state stops changing and its outputs are zero (a reverse pass
// then starts from the initial state at the sequence's last element).
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

enum class Cell { RNN, GRU, LSTM };

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// One of the activation functions ONNX allows in recurrent cells.
struct Activation {
  std::string name; // Lower case.
  double alpha = 0, beta = 0;
};

bool takesAlpha(StringRef name) {
  return llvm::is_contained({"affine", "leakyrelu", "thresholdedrelu",
                             "scaledtanh", "hardsigmoid", "elu"},
                            name);
}
bool takesBeta(StringRef name) {
  return llvm::is_contained({"affine", "scaledtanh", "hardsigmoid"}, name);
}

/// The activations of every direction: `defaults` per direction unless the
/// node lists its own. Alphas and betas are consumed in order by the
/// activations that take them (as ONNX Runtime does).
FailureOr<SmallVector<Activation>> getActivations(NodeContext &ctx,
                                                  ArrayRef<StringRef> defaults,
                                                  int64_t directions) {
  SmallVector<std::string> names;
  if (const onnx::AttributeProto *attr = ctx.getAttr("activations"))
    for (const std::string &s : attr->strings())
      names.push_back(StringRef(s).lower());
  if (names.empty())
    for (int64_t d = 0; d < directions; ++d)
      for (StringRef name : defaults)
        names.push_back(name.lower());
  // A bidirectional node may list one direction's activations for both.
  if (directions == 2 && names.size() == defaults.size())
    names.append(SmallVector<std::string>(names));
  if (names.size() != defaults.size() * directions)
    return ctx.emitError() << "expects " << defaults.size() * directions
                           << " activations, got " << names.size();
  SmallVector<double> alphas, betas;
  if (const onnx::AttributeProto *attr = ctx.getAttr("activation_alpha"))
    alphas.assign(attr->floats().begin(), attr->floats().end());
  if (const onnx::AttributeProto *attr = ctx.getAttr("activation_beta"))
    betas.assign(attr->floats().begin(), attr->floats().end());
  size_t nextAlpha = 0, nextBeta = 0;
  SmallVector<Activation> result;
  for (const std::string &name : names) {
    Activation a;
    a.name = name;
    if (!llvm::is_contained({"sigmoid", "tanh", "relu", "softsign", "softplus",
                             "affine", "leakyrelu", "thresholdedrelu",
                             "scaledtanh", "hardsigmoid", "elu"},
                            StringRef(name)))
      return ctx.emitError() << "unknown activation '" << name << "'";
    // ONNX's defaults where a node gives no value.
    if (name == "leakyrelu")
      a.alpha = 0.01;
    else if (name == "hardsigmoid")
      a = {name, 0.2, 0.5};
    else if (name == "elu" || name == "thresholdedrelu" || name == "affine" ||
             name == "scaledtanh")
      a.alpha = 1.0;
    if (name == "scaledtanh")
      a.beta = 1.0;
    if (takesAlpha(name) && nextAlpha < alphas.size())
      a.alpha = alphas[nextAlpha++];
    if (takesBeta(name) && nextBeta < betas.size())
      a.beta = betas[nextBeta++];
    result.push_back(a);
  }
  return result;
}

/// Builds the unrolled recurrence. A failed op poisons every later result,
/// so the steps read straight and one check at the end reports it.
class Unroller {
public:
  Unroller(NodeContext &ctx, Type elementType, std::optional<double> clip)
      : ctx(ctx), elementType(elementType), clip(clip) {}

  bool hasFailed() const { return failed; }

  Value add(Value a, Value b) { return binary<AddOp>(a, b); }
  Value sub(Value a, Value b) { return binary<SubOp>(a, b); }
  Value mul(Value a, Value b) { return binary<MulOp>(a, b); }
  /// a * b^T.
  Value matmulT(Value a, Value b) {
    if (!a || !b)
      return poison();
    return check(ctx.create<MatmulOp>(a, b, false, true));
  }
  Value where(Value mask, Value a, Value b) {
    if (!mask || !a || !b)
      return poison();
    return check(ctx.create<WhereOp>(mask, a, b));
  }
  /// [start, end) of `axis`.
  Value slice(Value x, int64_t axis, int64_t start, int64_t end) {
    if (!x)
      return poison();
    RankedTensorType type = typeOf(x);
    SmallVector<int64_t> begin(type.getRank(), 0), limit(type.getShape()),
        step(type.getRank(), 1);
    begin[axis] = start;
    limit[axis] = end;
    return check(ctx.create<SliceOp>(x, begin, limit, step));
  }
  /// Entry `index` of the leading axis, without that axis.
  Value row(Value x, int64_t index) {
    Value s = slice(x, 0, index, index + 1);
    if (!s)
      return s;
    return ctx.reshape(s, typeOf(s).getShape().drop_front());
  }
  SmallVector<Value> split(Value x, int64_t pieces) {
    if (!x) {
      poison();
      return SmallVector<Value>(pieces, Value());
    }
    int64_t size = typeOf(x).getDimSize(1) / pieces;
    FailureOr<Operation *> op = ctx.createOp<SplitOp>(
        x, int64_t(1), SmallVector<int64_t>(pieces, size));
    if (llvm::failed(op)) {
      poison();
      return SmallVector<Value>(pieces, Value());
    }
    return SmallVector<Value>((*op)->getResults());
  }
  /// Stacks equally shaped values along a new axis `axis`.
  Value stack(ArrayRef<Value> values, int64_t axis) {
    SmallVector<Value> expanded;
    for (Value v : values) {
      if (!v)
        return poison();
      SmallVector<int64_t> shape(typeOf(v).getShape());
      shape.insert(shape.begin() + axis, 1);
      expanded.push_back(ctx.reshape(v, shape));
    }
    if (expanded.size() == 1)
      return expanded.front();
    return check(ctx.create<ConcatOp>(expanded, axis));
  }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    if (!x)
      return poison();
    return check(ctx.create<TransposeOp>(x, SmallVector<int64_t>(perm)));
  }
  Value scalar(double value) { return ctx.splat(elementType, value); }

  /// The activation applied to `x`, after the cell's clip.
  Value activate(const Activation &a, Value x) {
    if (!x)
      return poison();
    OpBuilder &b = ctx.getBuilder();
    if (clip)
      x = ctx.createTyped<ClipOp>(x, b.getF64FloatAttr(-*clip),
                                  b.getF64FloatAttr(*clip));
    StringRef n = a.name;
    if (n == "sigmoid")
      return ctx.createTyped<SigmoidOp>(x);
    if (n == "tanh")
      return ctx.createTyped<TanhOp>(x);
    if (n == "relu")
      return ctx.createTyped<ReluOp>(x);
    if (n == "softsign")
      return ctx.createTyped<SoftsignOp>(x);
    if (n == "softplus")
      return ctx.createTyped<SoftplusOp>(x);
    if (n == "leakyrelu")
      return ctx.createTyped<LeakyReluOp>(x, b.getF64FloatAttr(a.alpha));
    if (n == "elu")
      return ctx.createTyped<EluOp>(x, b.getF64FloatAttr(a.alpha));
    if (n == "hardsigmoid")
      return ctx.createTyped<HardSigmoidOp>(x, b.getF64FloatAttr(a.alpha),
                                            b.getF64FloatAttr(a.beta));
    if (n == "affine")
      return add(mul(x, scalar(a.alpha)), scalar(a.beta));
    if (n == "scaledtanh")
      return mul(ctx.createTyped<TanhOp>(mul(x, scalar(a.beta))),
                 scalar(a.alpha));
    // thresholdedrelu
    Value above = check(ctx.create<GreaterOp>(x, scalar(a.alpha)));
    return where(above, x, scalar(0));
  }

private:
  template <typename OpTy> Value binary(Value a, Value b) {
    if (!a || !b)
      return poison();
    return check(ctx.create<OpTy>(a, b));
  }
  Value check(FailureOr<Value> value) {
    if (llvm::failed(value))
      return poison();
    return *value;
  }
  Value poison() {
    failed = true;
    return Value();
  }

  NodeContext &ctx;
  Type elementType;
  std::optional<double> clip;
  bool failed = false;
};

LogicalResult importRecurrent(NodeContext &ctx, Cell cell) {
  int64_t gates = cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
  FailureOr<Value> xInput = ctx.getInput(0), w = ctx.getInput(1),
                   r = ctx.getInput(2);
  if (failed(xInput) || failed(w) || failed(r))
    return failure();
  auto optionalInput = [&](unsigned index, Value &value) {
    if (!ctx.hasInput(index))
      return success();
    FailureOr<Value> v = ctx.getInput(index);
    if (failed(v))
      return failure();
    value = *v;
    return success();
  };
  Value bias, lens, initialH, initialC, peephole;
  if (failed(optionalInput(3, bias)) || failed(optionalInput(4, lens)) ||
      failed(optionalInput(5, initialH)))
    return failure();
  if (cell == Cell::LSTM && (failed(optionalInput(6, initialC)) ||
                             failed(optionalInput(7, peephole))))
    return failure();

  std::string direction = ctx.getString("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return ctx.emitError() << "unknown direction '" << direction << "'";
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  bool batchFirst = ctx.getInt("layout", 0) != 0;
  if (cell == Cell::LSTM && ctx.getInt("input_forget", 0) != 0)
    return ctx.emitError() << "input_forget (coupled input and forget gates) "
                              "is not supported";

  RankedTensorType xType = typeOf(*xInput), wType = typeOf(*w),
                   rType = typeOf(*r);
  Type elementType = xType.getElementType();
  if (!isa<FloatType>(elementType))
    return ctx.emitError() << "X must be a floating-point tensor";
  if (xType.getRank() != 3)
    return ctx.emitError() << "X must be 3-D";
  int64_t hidden = ctx.getInt("hidden_size",
                              rType.getRank() == 3 ? rType.getDimSize(2) : -1);
  int64_t seq = xType.getDimSize(batchFirst ? 1 : 0),
          batch = xType.getDimSize(batchFirst ? 0 : 1),
          inputSize = xType.getDimSize(2), gh = gates * hidden;
  if (hidden <= 0)
    return ctx.emitError() << "hidden_size must be positive";
  if (wType.getShape() != ArrayRef<int64_t>{dirs, gh, inputSize})
    return ctx.emitError() << "W must be [" << dirs << ", " << gh << ", "
                           << inputSize << "], got " << wType;
  if (rType.getShape() != ArrayRef<int64_t>{dirs, gh, hidden})
    return ctx.emitError() << "R must be [" << dirs << ", " << gh << ", "
                           << hidden << "], got " << rType;
  if (bias && typeOf(bias).getShape() != ArrayRef<int64_t>{dirs, 2 * gh})
    return ctx.emitError() << "B must be [" << dirs << ", " << 2 * gh
                           << "], got " << typeOf(bias);
  if (lens && typeOf(lens).getShape() != ArrayRef<int64_t>{batch})
    return ctx.emitError() << "sequence_lens must be [" << batch << "], got "
                           << typeOf(lens);
  SmallVector<int64_t> stateShape =
      batchFirst ? SmallVector<int64_t>{batch, dirs, hidden}
                 : SmallVector<int64_t>{dirs, batch, hidden};
  for (auto [value, what] :
       {std::pair(initialH, "initial_h"), std::pair(initialC, "initial_c")})
    if (value && typeOf(value).getShape() != ArrayRef<int64_t>(stateShape))
      return ctx.emitError() << what << " must be [" << stateShape << "], got "
                             << typeOf(value);
  if (peephole &&
      typeOf(peephole).getShape() != ArrayRef<int64_t>{dirs, 3 * hidden})
    return ctx.emitError() << "P must be [" << dirs << ", " << 3 * hidden
                           << "], got " << typeOf(peephole);
  for (Value v : {*w, *r, bias, initialH, initialC, peephole})
    if (v && typeOf(v).getElementType() != elementType)
      return ctx.emitError() << "W, R, B, initial states and P must have X's "
                                "element type";

  SmallVector<StringRef> defaults =
      cell == Cell::LSTM  ? SmallVector<StringRef>{"Sigmoid", "Tanh", "Tanh"}
      : cell == Cell::GRU ? SmallVector<StringRef>{"Sigmoid", "Tanh"}
                          : SmallVector<StringRef>{"Tanh"};
  FailureOr<SmallVector<Activation>> activations =
      getActivations(ctx, defaults, dirs);
  if (failed(activations))
    return failure();
  std::optional<double> clip;
  if (ctx.hasAttr("clip")) {
    clip = ctx.getFloat("clip", 0);
    if (*clip <= 0)
      return ctx.emitError() << "clip must be positive";
  }

  Unroller u(ctx, elementType, clip);
  Value x = batchFirst ? u.transpose(*xInput, {1, 0, 2}) : *xInput;
  if (batchFirst) {
    if (initialH)
      initialH = u.transpose(initialH, {1, 0, 2});
    if (initialC)
      initialC = u.transpose(initialC, {1, 0, 2});
  }
  // Sequences known to run the full length need no mask.
  if (DenseElementsAttr constantLens = ctx.getConstantInput(4)) {
    SmallVector<int64_t> values = getIntValues(constantLens);
    if (llvm::any_of(values, [&](int64_t v) { return v < 0 || v > seq; }))
      return ctx.emitError() << "sequence_lens must lie in [0, " << seq << "]";
    if (llvm::all_of(values, [&](int64_t v) { return v == seq; }))
      lens = Value();
  }
  Type i64 = ctx.getBuilder().getI64Type();
  if (lens)
    lens = ctx.reshape(ctx.cast(lens, i64), {batch, 1});

  Value flatX = ctx.reshape(x, {seq * batch, inputSize});
  Value zeroState = ctx.splat(elementType, 0, {batch, hidden});
  SmallVector<Value> outputs, finalH, finalC;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    ArrayRef<Activation> act = ArrayRef<Activation>(*activations)
                                   .slice(d * defaults.size(), defaults.size());
    Value wd = u.row(*w, d), rd = u.row(*r, d);
    // The input projection of every step at once, with the biases that do
    // not depend on the state.
    Value projected = u.matmulT(flatX, wd);
    Value rb;
    if (bias) {
      Value bd = u.row(bias, d);
      Value wb = u.slice(bd, 0, 0, gh);
      rb = u.slice(bd, 0, gh, 2 * gh);
      // A GRU's recurrent biases are added per step: the hidden gate's sits
      // inside the reset product.
      projected = u.add(projected, cell == Cell::GRU ? wb : u.add(wb, rb));
    }
    projected = projected ? ctx.reshape(projected, {seq, batch, gh}) : Value();
    Value h = initialH ? u.row(initialH, d) : zeroState;
    Value c = initialC ? u.row(initialC, d) : zeroState;
    Value pi, po, pf;
    if (peephole) {
      Value pd = u.row(peephole, d);
      pi = u.slice(pd, 0, 0, hidden);
      po = u.slice(pd, 0, hidden, 2 * hidden);
      pf = u.slice(pd, 0, 2 * hidden, 3 * hidden);
    }
    // A GRU's update/reset and hidden recurrent weights.
    Value rzr, rh;
    if (cell == Cell::GRU) {
      rzr = u.slice(rd, 0, 0, 2 * hidden);
      rh = u.slice(rd, 0, 2 * hidden, 3 * hidden);
    }
    SmallVector<Value> ys(seq);
    for (int64_t step = 0; step < seq; ++step) {
      int64_t t = reverse ? seq - 1 - step : step;
      Value xt = u.row(projected, t);
      Value newH, newC;
      if (cell == Cell::LSTM) {
        SmallVector<Value> g = u.split(u.add(xt, u.matmulT(h, rd)), 4);
        Value i = g[0], o = g[1], f = g[2], cand = g[3];
        if (peephole) {
          i = u.add(i, u.mul(pi, c));
          f = u.add(f, u.mul(pf, c));
        }
        i = u.activate(act[0], i);
        f = u.activate(act[0], f);
        cand = u.activate(act[1], cand);
        newC = u.add(u.mul(f, c), u.mul(i, cand));
        if (peephole)
          o = u.add(o, u.mul(po, newC));
        o = u.activate(act[0], o);
        newH = u.mul(o, u.activate(act[2], newC));
      } else if (cell == Cell::GRU) {
        SmallVector<Value> xg = u.split(xt, 3);
        Value hzr = u.matmulT(h, rzr);
        if (bias)
          hzr = u.add(hzr, u.slice(rb, 0, 0, 2 * hidden));
        SmallVector<Value> hg = u.split(hzr, 2);
        Value z = u.activate(act[0], u.add(xg[0], hg[0]));
        Value reset = u.activate(act[0], u.add(xg[1], hg[1]));
        Value hh;
        if (ctx.getInt("linear_before_reset", 0) != 0) {
          hh = u.matmulT(h, rh);
          if (bias)
            hh = u.add(hh, u.slice(rb, 0, 2 * hidden, 3 * hidden));
          hh = u.mul(reset, hh);
        } else {
          hh = u.matmulT(u.mul(reset, h), rh);
          if (bias)
            hh = u.add(hh, u.slice(rb, 0, 2 * hidden, 3 * hidden));
        }
        Value candidate = u.activate(act[1], u.add(xg[2], hh));
        // (1 - z) * candidate + z * h
        newH = u.add(candidate, u.mul(z, u.sub(h, candidate)));
      } else {
        newH = u.activate(act[0], u.add(xt, u.matmulT(h, rd)));
      }
      if (lens) {
        Value mask;
        if (FailureOr<Value> less =
                ctx.create<LessOp>(ctx.splat(i64, (double)t), lens);
            succeeded(less))
          mask = *less;
        ys[t] = u.where(mask, newH, u.scalar(0));
        h = u.where(mask, newH, h);
        if (cell == Cell::LSTM)
          c = u.where(mask, newC, c);
      } else {
        ys[t] = h = newH;
        c = newC;
      }
    }
    outputs.push_back(u.stack(ys, 0)); // [seq, batch, hidden]
    finalH.push_back(h);
    finalC.push_back(c);
  }
  Value y = u.stack(outputs, 1); // [seq, dirs, batch, hidden]
  Value yh = u.stack(finalH, 0);
  Value yc = cell == Cell::LSTM ? u.stack(finalC, 0) : Value();
  if (batchFirst) {
    y = u.transpose(y, {2, 0, 1, 3});
    yh = u.transpose(yh, {1, 0, 2});
    if (yc)
      yc = u.transpose(yc, {1, 0, 2});
  }
  if (u.hasFailed())
    return failure();
  ctx.setOutput(0, y);
  ctx.setOutput(1, yh);
  if (cell == Cell::LSTM)
    ctx.setOutput(2, yc);
  return success();
}

} // namespace

void onnx_import::registerRecurrentImporters(NodeImporterRegistry &r) {
  r["LSTM"] = [](NodeContext &ctx) { return importRecurrent(ctx, Cell::LSTM); };
  r["GRU"] = [](NodeContext &ctx) { return importRecurrent(ctx, Cell::GRU); };
  r["RNN"] = [](NodeContext &ctx) { return importRecurrent(ctx, Cell::RNN); };
}
