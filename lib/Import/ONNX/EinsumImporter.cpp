//===- EinsumImporter.cpp - Einsum as transposes, sums and matmuls --------===//
//
// Operands are contracted left to right. Before each contraction a label
// that no later operand and not the output needs is summed away; the
// contraction itself is one batched MatMul of the operands transposed to
// [shared kept, own, contracted] and [shared kept, contracted, own]. A label
// repeated inside one operand takes its diagonal (a product with an
// identity mask, summed). Ellipses broadcast from the right.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

namespace {

RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Letters are labelled by their character; ellipsis dimensions by
/// kEllipsis + their position among the broadcast dimensions.
constexpr int kEllipsis = 1000;

struct Term {
  Value value;
  SmallVector<int> labels;
};

/// Parses one side's subscripts; `ellipsisRank` dimensions stand for "...".
FailureOr<SmallVector<int>> parseSubscripts(NodeContext &ctx, StringRef s,
                                            int64_t ellipsisRank,
                                            int64_t maxEllipsis) {
  SmallVector<int> labels;
  bool seenEllipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.substr(i).starts_with("...")) {
      if (seenEllipsis)
        return ctx.emitError() << "'" << s << "' has two ellipses";
      seenEllipsis = true;
      for (int64_t j = maxEllipsis - ellipsisRank; j < maxEllipsis; ++j)
        labels.push_back(kEllipsis + j);
      i += 2;
    } else if (llvm::isAlpha(s[i])) {
      labels.push_back(s[i]);
    } else {
      return ctx.emitError() << "unexpected '" << s[i] << "' in the equation";
    }
  }
  return labels;
}

class EinsumBuilder {
public:
  EinsumBuilder(NodeContext &ctx) : ctx(ctx) {}

  FailureOr<Term> transpose(Term t, ArrayRef<int> order) {
    SmallVector<int64_t> perm;
    for (int label : order)
      perm.push_back(llvm::find(t.labels, label) - t.labels.begin());
    if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      return Term{t.value, SmallVector<int>(order)};
    FailureOr<Value> v = ctx.create<TransposeOp>(t.value, perm);
    if (failed(v))
      return failure();
    return Term{*v, SmallVector<int>(order)};
  }

  /// Sums away the labels of `t` that `keep` lacks.
  FailureOr<Term> sumExcept(Term t, const llvm::SmallSet<int, 8> &keep) {
    SmallVector<int64_t> axes;
    SmallVector<int> rest;
    for (auto [i, label] : llvm::enumerate(t.labels)) {
      if (keep.contains(label))
        rest.push_back(label);
      else
        axes.push_back(i);
    }
    if (axes.empty())
      return t;
    FailureOr<Value> v = ctx.create<ReduceSumOp>(t.value, axes, false);
    if (failed(v))
      return failure();
    return Term{*v, rest};
  }

  /// Takes the diagonal of every label repeated within `t`.
  FailureOr<Term> diagonals(Term t) {
    for (size_t q = 0; q < t.labels.size(); ++q) {
      auto first = llvm::find(t.labels, t.labels[q]);
      size_t p = first - t.labels.begin();
      if (p == q)
        continue;
      RankedTensorType type = typeOf(t.value);
      int64_t n = type.getDimSize(p);
      if (type.getDimSize(q) != n)
        return ctx.emitError()
               << "repeated subscript '" << (char)t.labels[q] << "' has sizes "
               << n << " and " << type.getDimSize(q);
      SmallVector<int64_t> shape(type.getRank(), 1);
      shape[p] = shape[q] = n;
      SmallVector<double> eye(n * n, 0.0);
      for (int64_t i = 0; i < n; ++i)
        eye[i * n + i] = 1.0;
      Value mask = ctx.constant(
          makeDense(RankedTensorType::get(shape, type.getElementType()), eye));
      FailureOr<Value> masked = ctx.create<MulOp>(t.value, mask);
      if (failed(masked))
        return failure();
      FailureOr<Value> summed = ctx.create<ReduceSumOp>(
          *masked, SmallVector<int64_t>{(int64_t)q}, false);
      if (failed(summed))
        return failure();
      t.value = *summed;
      t.labels.erase(t.labels.begin() + q);
      --q;
    }
    return t;
  }

  /// Broadcasts a unit dimension of `t` to `size` where the other operand
  /// has more.
  FailureOr<Term> broadcastTo(Term t, const std::map<int, int64_t> &sizes) {
    RankedTensorType type = typeOf(t.value);
    SmallVector<int64_t> shape(type.getShape());
    bool changed = false;
    for (auto [i, label] : llvm::enumerate(t.labels)) {
      auto it = sizes.find(label);
      if (it != sizes.end() && shape[i] != it->second) {
        if (shape[i] != 1)
          return ctx.emitError() << "subscript sizes " << shape[i] << " and "
                                 << it->second << " do not broadcast";
        shape[i] = it->second;
        changed = true;
      }
    }
    if (changed)
      t.value = ctx.createTyped<ExpandOp>(type.clone(shape), t.value);
    return t;
  }

  /// Contracts a with b, keeping the labels in `keep`.
  FailureOr<Term> contract(Term a, Term b, const llvm::SmallSet<int, 8> &keep) {
    std::map<int, int64_t> sizes;
    for (Term *t : {&a, &b})
      for (auto [i, label] : llvm::enumerate(t->labels)) {
        int64_t size = typeOf(t->value).getDimSize(i);
        auto [it, inserted] = sizes.insert({label, size});
        if (!inserted && it->second == 1)
          it->second = size;
      }
    FailureOr<Term> ab = broadcastTo(a, sizes), bb = broadcastTo(b, sizes);
    if (failed(ab) || failed(bb))
      return failure();
    a = *ab;
    b = *bb;
    SmallVector<int> batch, contracted, aOwn, bOwn;
    for (int label : a.labels) {
      bool inB = llvm::is_contained(b.labels, label);
      if (inB && keep.contains(label))
        batch.push_back(label);
      else if (inB)
        contracted.push_back(label);
      else
        aOwn.push_back(label);
    }
    for (int label : b.labels)
      if (!llvm::is_contained(a.labels, label))
        bOwn.push_back(label);
    auto product = [&](ArrayRef<int> labels) {
      int64_t p = 1;
      for (int label : labels)
        p *= sizes[label];
      return p;
    };
    int64_t nb = product(batch), m = product(aOwn), k = product(contracted),
            n = product(bOwn);
    FailureOr<Term> at = transpose(
        a, llvm::to_vector(llvm::concat<int>(batch, aOwn, contracted)));
    FailureOr<Term> bt = transpose(
        b, llvm::to_vector(llvm::concat<int>(batch, contracted, bOwn)));
    if (failed(at) || failed(bt))
      return failure();
    FailureOr<Value> y =
        batch.empty()
            ? ctx.create<MatmulOp>(ctx.reshape(at->value, {m, k}),
                                   ctx.reshape(bt->value, {k, n}), false, false)
            : ctx.create<BatchMatmulOp>(ctx.reshape(at->value, {nb, m, k}),
                                        ctx.reshape(bt->value, {nb, k, n}),
                                        false, false);
    if (failed(y))
      return failure();
    Term result;
    result.labels = llvm::to_vector(llvm::concat<int>(batch, aOwn, bOwn));
    SmallVector<int64_t> shape;
    for (int label : result.labels)
      shape.push_back(sizes[label]);
    result.value = ctx.reshape(*y, shape);
    return result;
  }

private:
  NodeContext &ctx;
};

LogicalResult importEinsum(NodeContext &ctx) {
  std::string equation;
  for (char c : ctx.getString("equation", ""))
    if (c != ' ')
      equation += c;
  StringRef eq(equation);
  auto [lhs, rhs] = eq.split("->");
  bool implicit = !eq.contains("->");
  SmallVector<StringRef> specs;
  lhs.split(specs, ',');
  if (specs.size() != ctx.getNumInputs())
    return ctx.emitError() << "the equation has " << specs.size()
                           << " operands, the node " << ctx.getNumInputs();

  SmallVector<Value> inputs;
  int64_t maxEllipsis = 0;
  SmallVector<int64_t> ellipsisRanks;
  for (auto [i, spec] : llvm::enumerate(specs)) {
    FailureOr<Value> v = ctx.getInput(i);
    if (failed(v))
      return failure();
    inputs.push_back(*v);
    int64_t letters =
        llvm::count_if(spec, [](char c) { return llvm::isAlpha(c); });
    int64_t rank = typeOf(*v).getRank();
    bool hasEllipsis = spec.contains("...");
    if ((!hasEllipsis && letters != rank) || letters > rank)
      return ctx.emitError() << "subscripts '" << spec << "' do not match "
                             << "operand " << i << " of rank " << rank;
    ellipsisRanks.push_back(hasEllipsis ? rank - letters : 0);
    maxEllipsis = std::max(maxEllipsis, ellipsisRanks.back());
  }
  SmallVector<Term> terms;
  std::map<int, int> counts;
  for (auto [i, spec] : llvm::enumerate(specs)) {
    FailureOr<SmallVector<int>> labels =
        parseSubscripts(ctx, spec, ellipsisRanks[i], maxEllipsis);
    if (failed(labels))
      return failure();
    for (int label : *labels)
      ++counts[label];
    terms.push_back(Term{inputs[i], *labels});
  }
  SmallVector<int> output;
  if (implicit) {
    for (int64_t j = 0; j < maxEllipsis; ++j)
      output.push_back(kEllipsis + j);
    for (auto [label, count] : counts)
      if (label < kEllipsis && count == 1)
        output.push_back(label);
  } else {
    FailureOr<SmallVector<int>> labels =
        parseSubscripts(ctx, rhs, maxEllipsis, maxEllipsis);
    if (failed(labels))
      return failure();
    output = *labels;
    for (int label : output) {
      if (!counts.count(label))
        return ctx.emitError() << "output subscript '" << (char)label
                               << "' names no input dimension";
      if (llvm::count(output, label) > 1)
        return ctx.emitError()
               << "output subscript '" << (char)label << "' repeats";
    }
  }

  EinsumBuilder b(ctx);
  // Labels needed by terms from `from` on, or by the output.
  auto neededFrom = [&](size_t from) {
    llvm::SmallSet<int, 8> needed;
    for (int label : output)
      needed.insert(label);
    for (size_t i = from; i < terms.size(); ++i)
      for (int label : terms[i].labels)
        needed.insert(label);
    return needed;
  };
  for (Term &t : terms) {
    FailureOr<Term> d = b.diagonals(t);
    if (failed(d))
      return failure();
    t = *d;
  }
  Term acc = terms.front();
  for (size_t i = 1; i < terms.size(); ++i) {
    llvm::SmallSet<int, 8> forAcc = neededFrom(i), forNext = neededFrom(i + 1);
    for (int label : acc.labels)
      forNext.insert(label);
    FailureOr<Term> left = b.sumExcept(acc, forAcc);
    FailureOr<Term> right = b.sumExcept(terms[i], forNext);
    if (failed(left) || failed(right))
      return failure();
    FailureOr<Term> c = b.contract(*left, *right, neededFrom(i + 1));
    if (failed(c))
      return failure();
    acc = *c;
  }
  FailureOr<Term> reduced = b.sumExcept(acc, neededFrom(terms.size()));
  if (failed(reduced))
    return failure();
  FailureOr<Term> result = b.transpose(*reduced, output);
  if (failed(result))
    return failure();
  ctx.setOutput(0, result->value);
  return success();
}

} // namespace

void onnx_import::registerEinsumImporter(NodeImporterRegistry &r) {
  r["Einsum"] = importEinsum;
}
