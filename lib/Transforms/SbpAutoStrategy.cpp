//===- SbpAutoStrategy.cpp - Cost-based SBP of every op -------------------===//
//
// The SBP graph: one node per op (and graph argument; all reads of one
// variable are one node), its candidates the valid nd-signatures, each with
// the seconds of its local work; one edge per producer -> consumer use with
// the seconds of the boxing between every pair of candidates. Nodes with a
// single candidate, one neighbour or two neighbours are eliminated exactly
// (their best choice folded into the neighbours), parallel edges merged;
// the remaining core is enumerated when small (exact), else solved greedily
// in program order and improved node by node until no move helps, with the
// sum of per-node and per-edge minima as the stated lower bound.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Transforms/SbpAutoStrategy.h"

#include "SbpUtils.h"

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/SBP/BoxingCost.h"
#include "oneflow/Transforms/Passes.h"
#include "oneflow/Transforms/Provenance.h"
#include "oneflow/Transforms/Recompute.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <set>

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SBPAUTOSTRATEGY
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;
using sbp::Sbp;
using sbp::SbpFactorRule;
using sbp::SbpSignature;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
/// Seconds per byte of variables: between layouts of equal time, the one
/// holding less (1 GiB weighs 0.1 us).
constexpr double kMemoryTieBreak = 1e-16;
/// The largest core the branch and bound searches (its recursion depth).
constexpr size_t kMaxSearchDepth = 1000;

struct Candidate : NdSignature {
  /// Seconds of the op's local work under this signature.
  double compute = 0;
  /// Per-device bytes of the result (variables only) and extra seconds.
  double memory = 0, extra = 0;
};

struct Node {
  Operation *op = nullptr; // null: a graph argument
  int argument = -1;
  SmallVector<Candidate, 4> candidates;
  bool isVariable = false;
  /// How many ops share this node: a repeated layer's op and its copies in
  /// the identical layers, solved once (their costs add up).
  double multiplicity = 1;
};

/// A use of a producer's result: by a consumer's operand, by an assign
/// (the variable's layout), or by the graph's return (all-B).
struct Use {
  unsigned producer, result, consumer;
  enum Kind { Operand, Assign, Return } kind;
  unsigned operand;
  double bytes, scale;
};

/// A pairwise cost between two live nodes, `a`-major.
struct Edge {
  unsigned a, b;
  std::vector<double> cost;
  bool alive = true;
};

/// How an eliminated node's choice follows from its neighbours'.
struct Elimination {
  unsigned node;
  int kind; // 0: fixed, 1: by `i`, 2: by (`i`, `j`)
  unsigned i = 0, j = 0;
  std::vector<uint16_t> table;
};

/// Identical layers: the ops of each layer (module path up to its first
/// index, as full recomputation groups them), in program order, keyed by a
/// structural key (each op's name, attributes other than a variable's name
/// and data, operand and result types, and which earlier op of the layer
/// each operand comes from, or none); every layer whose key an earlier
/// layer has maps its ops to that layer's, position by position.
struct RepeatedLayers {
  llvm::DenseMap<Operation *, Operation *> representative;
  int64_t layers = 0, repeated = 0, groups = 0;
};

RepeatedLayers findRepeatedLayers(func::FuncOp graph) {
  RepeatedLayers out;
  llvm::StringMap<unsigned> known;
  SmallVector<std::pair<std::string, SmallVector<Operation *>>> ordered;
  for (Operation &op : graph.getOps()) {
    if (isa<func::ReturnOp>(op))
      continue;
    std::string layer = layerOfName(locationName(op.getLoc()));
    // Only indexed layers (`blocks.3`) repeat.
    if (layer.empty() || !llvm::isDigit(layer.back()))
      continue;
    auto [it, inserted] = known.try_emplace(layer, ordered.size());
    if (inserted)
      ordered.push_back({layer, {}});
    ordered[it->second].second.push_back(&op);
  }
  out.layers = ordered.size();
  std::map<std::string, unsigned> firstWithKey;
  std::set<unsigned> heads;
  for (auto [index, entry] : llvm::enumerate(ordered)) {
    ArrayRef<Operation *> ops = entry.second;
    llvm::DenseMap<Operation *, unsigned> position;
    std::string key;
    llvm::raw_string_ostream os(key);
    for (auto [i, op] : llvm::enumerate(ops)) {
      position[op] = i;
      os << op->getName() << "(";
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && position.count(def))
          os << "%" << position[def] << "."
             << cast<OpResult>(operand).getResultNumber();
        else
          os << "%in";
        os << ":" << operand.getType() << ",";
      }
      os << ")->(";
      llvm::interleaveComma(op->getResultTypes(), os);
      os << "){";
      // A variable's candidates and costs follow from its type and role
      // alone (its name, data and the piece of which logical variable it
      // is do not matter).
      if (isa<VariableOp>(op))
        os << op->hasAttr(kTrainableAttrName) << op->hasAttr(kStateOfAttrName);
      else
        for (NamedAttribute attr : op->getAttrs())
          os << attr.getName() << "=" << attr.getValue() << ";";
      os << "}\n";
    }
    auto [it, inserted] = firstWithKey.try_emplace(key, index);
    if (inserted)
      continue;
    ArrayRef<Operation *> first = ordered[it->second].second;
    for (auto [op, rep] : llvm::zip(ops, first))
      out.representative[op] = rep;
    heads.insert(it->second);
    ++out.repeated;
  }
  out.groups = heads.size();
  return out;
}

class SbpGraphSolver {
public:
  SbpGraphSolver(const SbpAutoOptions &options) : options(options) {}

  /// Which candidates to keep (all when it rejects every one of a node):
  /// the op, or null and the argument's index.
  std::function<bool(Operation *, int, const Candidate &)> keep;
  /// The chosen candidate of an op or an argument after solve().
  const Candidate *chosen(Operation *op, int argument) const {
    if (op) {
      auto it = nodeOfOp.find(op);
      return it == nodeOfOp.end()
                 ? nullptr
                 : &nodes[it->second].candidates[choice[it->second]];
    }
    return &nodes[argument].candidates[choice[argument]];
  }

  LogicalResult build(func::FuncOp graph);
  /// The cheapest assignment with variable bytes weighted by `lambda`.
  void solve(double lambda);
  SbpAutoResult evaluate() const;
  /// The objective of `assignment` with variable bytes weighted by lambda.
  double objective(ArrayRef<unsigned> assignment, double lambda) const;
  /// The least objective over every assignment (a check of the solve on
  /// small graphs); -1 when there are more than `limit` assignments.
  double enumerate(double lambda, double limit, double &count) const;
  double minimalVariableBytes() const;
  void write(func::FuncOp graph, FlatSymbolRefAttr placement);

  /// Identical layers to solve once (null: none).
  const RepeatedLayers *repeated = nullptr;
  std::vector<unsigned> choice;
  bool exact = true;
  double lowerBound = 0;
  int64_t coreNodes = 0;

private:
  double boxingSeconds(ArrayRef<Sbp> from, ArrayRef<Sbp> to,
                       double bytes) const;
  LogicalResult addOpCandidates(Node &node, Operation *op);
  void filter(Node &node) {
    if (!keep || node.candidates.size() <= 1)
      return;
    SmallVector<Candidate, 4> kept;
    for (Candidate &c : node.candidates)
      if (keep(node.op, node.argument, c))
        kept.push_back(c);
    if (!kept.empty())
      node.candidates = std::move(kept);
  }
  void addArgumentCandidates(Node &node, BlockArgument arg);
  double useCost(const Use &use, unsigned from, unsigned to) const;
  const NdSbp &useTarget(const Use &use, unsigned consumerChoice) const;

  // Elimination state.
  double edgeCost(const Edge &e, unsigned x, unsigned cx, unsigned cy) const {
    unsigned cb = nodes[e.b].candidates.size();
    return e.a == x ? e.cost[cx * cb + cy] : e.cost[cy * cb + cx];
  }
  void addEdge(unsigned a, unsigned b, std::vector<double> cost);
  void removeEdge(unsigned id);
  void solveCore(ArrayRef<unsigned> core);

  const SbpAutoOptions &options;
  SmallVector<int64_t> mesh;
  std::vector<Node> nodes;
  std::vector<Use> uses;
  llvm::DenseMap<Value, std::pair<unsigned, unsigned>> producerOf;
  llvm::StringMap<unsigned> variableNode;
  llvm::DenseMap<Operation *, unsigned> nodeOfOp;

  std::vector<std::vector<double>> unary;
  std::vector<Edge> edges;
  std::vector<llvm::DenseMap<unsigned, unsigned>> adjacent;
  std::vector<bool> alive;
};

double localBytes(Type type, ArrayRef<Sbp> nd, ArrayRef<int64_t> mesh) {
  double bytes = tensorBytes(type);
  for (auto [axis, s] : llvm::enumerate(nd))
    if (s.isSplit())
      bytes /= double(mesh[axis]);
  return bytes;
}

double SbpGraphSolver::boxingSeconds(ArrayRef<Sbp> from, ArrayRef<Sbp> to,
                                     double bytes) const {
  if (from == to)
    return 0;
  double seconds = 0;
  for (const sbp::BoxingStep &step : sbp::boxingStepsND(from, to, bytes, mesh))
    seconds += options.pricer(step, mesh);
  return seconds;
}

Type elementTypeOf(Operation *op) {
  for (Type type : op->getOperandTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      return tensor.getElementType();
  for (Type type : op->getResultTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      return tensor.getElementType();
  return {};
}

LogicalResult SbpGraphSolver::addOpCandidates(Node &node, Operation *op) {
  if (auto pinned = op->getAttrOfType<sbp::SignatureAttr>(
          sbp::SBPDialect::kSignatureAttrName)) {
    Candidate c;
    for (sbp::NdSbpAttr nd : pinned.getInputs())
      c.operands.push_back(NdSbp(nd.getValues()));
    for (sbp::NdSbpAttr nd : pinned.getOutputs())
      c.results.push_back(NdSbp(nd.getValues()));
    node.candidates.push_back(std::move(c));
    return success();
  }
  auto ruleOp = dyn_cast<sbp::SbpRuleOpInterface>(op);
  if (!ruleOp)
    return op->emitOpError() << "has no SBP rule and cannot be distributed";
  SbpFactorRule rule = ruleOp.getSbpFactorRule();
  OpCost work = estimateCost(op);
  bool source = op->getNumOperands() == 0;
  Type element = elementTypeOf(op);
  forEachNdSignature(
      rule, mesh, op->getNumOperands(), op->getNumResults(),
      [&](const NdSignature &sig, double degree, bool wholeUnits) {
        bool valid = wholeUnits;
        for (auto [value, nd] : llvm::zip(op->getOperands(), sig.operands))
          valid &= splitsDivide(nd, value.getType(), mesh);
        for (auto [value, nd] : llvm::zip(op->getResults(), sig.results))
          valid &= splitsDivide(nd, value.getType(), mesh);
        if (!valid)
          return;
        Candidate c;
        c.operands = sig.operands;
        c.results = sig.results;
        if (!source) {
          OpCost local = work.dividedBy(degree);
          double bytes = 0;
          for (auto [value, nd] : llvm::zip(op->getOperands(), c.operands))
            bytes += localBytes(value.getType(), nd, mesh);
          for (auto [value, nd] : llvm::zip(op->getResults(), c.results))
            bytes += localBytes(value.getType(), nd, mesh);
          c.compute = options.kernelPricer(local, bytes, element);
        }
        node.candidates.push_back(std::move(c));
      });
  if (node.candidates.empty())
    return op->emitOpError()
           << "has no valid SBP signature on the mesh " << meshString(mesh);
  return success();
}

void SbpGraphSolver::addArgumentCandidates(Node &node, BlockArgument arg) {
  auto graph = cast<func::FuncOp>(arg.getOwner()->getParentOp());
  size_t axes = mesh.size();
  if (graph.getArgAttr(arg.getArgNumber(), sbp::SBPDialect::kNdSbpAttrName)) {
    Candidate c;
    c.results.push_back(argumentSbp(graph, arg.getArgNumber(), axes));
    node.candidates.push_back(std::move(c));
    return;
  }
  auto tensor = dyn_cast<RankedTensorType>(arg.getType());
  int64_t rank = tensor ? tensor.getRank() : 0;
  // Per axis: B, or a split of any dimension.
  SmallVector<int64_t> index(axes, -1);
  while (true) {
    NdSbp nd(axes);
    for (size_t axis = 0; axis < axes; ++axis)
      nd[axis] = index[axis] < 0 ? Sbp::broadcast() : Sbp::split(index[axis]);
    if (splitsDivide(nd, arg.getType(), mesh)) {
      Candidate c;
      c.results.push_back(nd);
      node.candidates.push_back(std::move(c));
    }
    size_t axis = 0;
    while (axis < axes && ++index[axis] == rank)
      index[axis++] = -1;
    if (axis == axes)
      break;
  }
}

LogicalResult SbpGraphSolver::build(func::FuncOp graph) {
  mesh = options.meshShape;
  for (BlockArgument arg : graph.getArguments()) {
    Node node;
    node.argument = arg.getArgNumber();
    addArgumentCandidates(node, arg);
    filter(node);
    producerOf[arg] = {unsigned(nodes.size()), 0};
    nodes.push_back(std::move(node));
  }
  auto addUse = [&](Value value, unsigned consumer, Use::Kind kind,
                    unsigned operand) {
    auto [producer, result] = producerOf.lookup(value);
    Operation *def = value.getDefiningOp();
    double scale =
        def && def->getNumOperands() == 0 ? options.sourceEdgeScale : 1.0;
    uses.push_back({producer, result, consumer, kind, operand,
                    tensorBytes(value.getType()), scale});
  };
  for (Operation &op : graph.getOps()) {
    if (isa<func::ReturnOp>(op)) {
      for (Value operand : op.getOperands())
        addUse(operand, 0, Use::Return, 0);
      continue;
    }
    if (auto assign = dyn_cast<AssignOp>(op)) {
      auto it = variableNode.find(assign.getVarName());
      if (it == variableNode.end())
        return op.emitOpError() << "stores to @" << assign.getVarName()
                                << ", which the graph does not read before";
      addUse(assign.getValue(), it->second, Use::Assign, 0);
      continue;
    }
    if (auto variable = dyn_cast<VariableOp>(op)) {
      // Every read of a variable is one node: one layout.
      auto it = variableNode.find(variable.getVarName());
      if (it != variableNode.end()) {
        producerOf[variable.getResult()] = {it->second, 0};
        nodeOfOp[&op] = it->second;
        continue;
      }
    }
    // An op of a repeated layer shares the node of its copy in the first
    // identical layer.
    if (repeated) {
      auto rep = repeated->representative.find(&op);
      if (rep != repeated->representative.end()) {
        auto shared = nodeOfOp.find(rep->second);
        if (shared != nodeOfOp.end()) {
          unsigned id = shared->second;
          nodes[id].multiplicity += 1;
          nodeOfOp[&op] = id;
          if (auto variable = dyn_cast<VariableOp>(op))
            variableNode[variable.getVarName()] = id;
          for (auto [index, operand] : llvm::enumerate(op.getOperands()))
            addUse(operand, id, Use::Operand, index);
          for (auto [index, result] : llvm::enumerate(op.getResults()))
            producerOf[result] = {id, unsigned(index)};
          continue;
        }
      }
    }
    Node node;
    node.op = &op;
    if (auto boxing = dyn_cast<sbp::BoxingOp>(op)) {
      // A cast written by the user: its target is pinned.
      Candidate c;
      NdSbp to(boxing.getTo().getValues());
      c.operands.push_back(to);
      c.results.push_back(to);
      node.candidates.push_back(std::move(c));
    } else if (failed(addOpCandidates(node, &op))) {
      return failure();
    } else {
      filter(node);
    }
    unsigned id = nodes.size();
    nodeOfOp[&op] = id;
    if (auto variable = dyn_cast<VariableOp>(op)) {
      node.isVariable = true;
      variableNode[variable.getVarName()] = id;
      bool trainable =
          op.hasAttr(kTrainableAttrName) || !op.hasAttr(kStateOfAttrName);
      for (Candidate &c : node.candidates) {
        c.memory = localBytes(variable.getType(), c.results[0], mesh);
        if (options.variableExtra && trainable)
          c.extra = options.variableExtra(c.memory, c.results[0]);
      }
    }
    for (auto [index, operand] : llvm::enumerate(op.getOperands()))
      addUse(operand, id, Use::Operand, index);
    for (auto [index, result] : llvm::enumerate(op.getResults()))
      producerOf[result] = {id, unsigned(index)};
    nodes.push_back(std::move(node));
  }
  return success();
}

const NdSbp &SbpGraphSolver::useTarget(const Use &use,
                                       unsigned consumerChoice) const {
  const Candidate &c = nodes[use.consumer].candidates[consumerChoice];
  return use.kind == Use::Assign ? c.results[0] : c.operands[use.operand];
}

double SbpGraphSolver::useCost(const Use &use, unsigned from,
                               unsigned to) const {
  const NdSbp &source =
      nodes[use.producer].candidates[from].results[use.result];
  if (use.kind == Use::Return)
    return boxingSeconds(source, broadcastNd(mesh.size()), use.bytes) *
           use.scale;
  return boxingSeconds(source, useTarget(use, to), use.bytes) * use.scale;
}

void SbpGraphSolver::addEdge(unsigned a, unsigned b, std::vector<double> cost) {
  auto it = adjacent[a].find(b);
  if (it == adjacent[a].end()) {
    unsigned id = edges.size();
    edges.push_back({a, b, std::move(cost)});
    adjacent[a][b] = id;
    adjacent[b][a] = id;
    return;
  }
  Edge &e = edges[it->second];
  unsigned ca = nodes[a].candidates.size(), cb = nodes[b].candidates.size();
  if (e.a == a) {
    for (size_t k = 0; k < cost.size(); ++k)
      e.cost[k] += cost[k];
  } else {
    for (unsigned x = 0; x < ca; ++x)
      for (unsigned y = 0; y < cb; ++y)
        e.cost[y * ca + x] += cost[x * cb + y];
  }
}

void SbpGraphSolver::removeEdge(unsigned id) {
  Edge &e = edges[id];
  e.alive = false;
  adjacent[e.a].erase(e.b);
  adjacent[e.b].erase(e.a);
  std::vector<double>().swap(e.cost);
}

void SbpGraphSolver::solve(double lambda) {
  size_t n = nodes.size();
  unary.assign(n, {});
  for (size_t k = 0; k < n; ++k)
    for (const Candidate &c : nodes[k].candidates)
      unary[k].push_back(
          nodes[k].multiplicity *
          (c.compute + c.extra + (lambda + kMemoryTieBreak) * c.memory));
  edges.clear();
  adjacent.clear();
  adjacent.resize(n);
  alive.assign(n, true);
  // Uses become unary costs (returns) or edges, parallel ones merged.
  for (const Use &use : uses) {
    unsigned p = use.producer;
    unsigned cp = nodes[p].candidates.size();
    if (use.kind == Use::Return) {
      for (unsigned x = 0; x < cp; ++x)
        unary[p][x] += useCost(use, x, 0);
      continue;
    }
    unsigned q = use.consumer;
    unsigned cq = nodes[q].candidates.size();
    if (p == q) // an update of a variable from its own value: no boxing
      continue;
    // Distinct (source, target) pairs are few: price each once.
    std::vector<double> cost(size_t(cp) * cq);
    SmallVector<std::pair<const NdSbp *, const NdSbp *>> seen;
    SmallVector<double> seenCost;
    for (unsigned x = 0; x < cp; ++x)
      for (unsigned y = 0; y < cq; ++y) {
        const NdSbp &from = nodes[p].candidates[x].results[use.result];
        const NdSbp &to = useTarget(use, y);
        double seconds = -1;
        for (auto [pair, value] : llvm::zip(seen, seenCost))
          if (*pair.first == from && *pair.second == to) {
            seconds = value;
            break;
          }
        if (seconds < 0) {
          seconds = boxingSeconds(from, to, use.bytes) * use.scale;
          seen.push_back({&from, &to});
          seenCost.push_back(seconds);
        }
        cost[size_t(x) * cq + y] = seconds;
      }
    addEdge(p, q, std::move(cost));
  }

  // Exact eliminations.
  std::vector<Elimination> eliminations;
  std::deque<unsigned> work;
  for (unsigned k = 0; k < n; ++k)
    work.push_back(k);
  constexpr double kMaxTriple = 4e6;
  while (!work.empty()) {
    unsigned k = work.front();
    work.pop_front();
    if (!alive[k])
      continue;
    unsigned ck = nodes[k].candidates.size();
    size_t degree = adjacent[k].size();
    SmallVector<std::pair<unsigned, unsigned>> neighbours(adjacent[k].begin(),
                                                          adjacent[k].end());
    llvm::sort(neighbours);
    if (ck == 1) {
      for (auto [j, id] : neighbours) {
        for (unsigned y = 0; y < nodes[j].candidates.size(); ++y)
          unary[j][y] += edgeCost(edges[id], k, 0, y);
        removeEdge(id);
        work.push_back(j);
      }
      eliminations.push_back({k, 0, 0, 0, {0}});
    } else if (degree == 0) {
      unsigned best = 0;
      for (unsigned x = 1; x < ck; ++x)
        if (unary[k][x] < unary[k][best])
          best = x;
      eliminations.push_back({k, 0, 0, 0, {uint16_t(best)}});
    } else if (degree == 1) {
      auto [j, id] = neighbours[0];
      unsigned cj = nodes[j].candidates.size();
      Elimination e{k, 1, j, 0, std::vector<uint16_t>(cj)};
      for (unsigned y = 0; y < cj; ++y) {
        double best = kInf;
        for (unsigned x = 0; x < ck; ++x) {
          double c = unary[k][x] + edgeCost(edges[id], k, x, y);
          if (c < best) {
            best = c;
            e.table[y] = x;
          }
        }
        unary[j][y] += best;
      }
      removeEdge(id);
      eliminations.push_back(std::move(e));
      work.push_back(j);
    } else if (degree == 2) {
      auto [i, ei] = neighbours[0];
      auto [j, ej] = neighbours[1];
      unsigned ci = nodes[i].candidates.size(), cj = nodes[j].candidates.size();
      if (double(ci) * cj * ck > kMaxTriple)
        continue;
      Elimination e{k, 2, i, j, std::vector<uint16_t>(size_t(ci) * cj)};
      std::vector<double> cost(size_t(ci) * cj);
      for (unsigned x = 0; x < ci; ++x)
        for (unsigned y = 0; y < cj; ++y) {
          double best = kInf;
          for (unsigned z = 0; z < ck; ++z) {
            double c = unary[k][z] + edgeCost(edges[ei], k, z, x) +
                       edgeCost(edges[ej], k, z, y);
            if (c < best) {
              best = c;
              e.table[size_t(x) * cj + y] = z;
            }
          }
          cost[size_t(x) * cj + y] = best;
        }
      removeEdge(ei);
      removeEdge(ej);
      addEdge(i, j, std::move(cost));
      eliminations.push_back(std::move(e));
      work.push_back(i);
      work.push_back(j);
    } else {
      continue;
    }
    alive[k] = false;
  }

  choice.assign(n, 0);
  SmallVector<unsigned> core;
  for (unsigned k = 0; k < n; ++k)
    if (alive[k])
      core.push_back(k);
  coreNodes = core.size();
  solveCore(core);
  for (const Elimination &e : llvm::reverse(eliminations)) {
    if (e.kind == 0)
      choice[e.node] = e.table[0];
    else if (e.kind == 1)
      choice[e.node] = e.table[choice[e.i]];
    else
      choice[e.node] =
          e.table[size_t(choice[e.i]) * nodes[e.j].candidates.size() +
                  choice[e.j]];
  }
}

void SbpGraphSolver::solveCore(ArrayRef<unsigned> core) {
  exact = true;
  lowerBound = 0;
  if (core.empty())
    return;
  auto localCost = [&](unsigned k, unsigned x) {
    double c = unary[k][x];
    for (auto [j, id] : adjacent[k])
      c += edgeCost(edges[id], k, x, choice[j]);
    return c;
  };
  // An incumbent: greedy in program order against the neighbours fixed so
  // far, then one node at a time moved while that helps. Sources
  // (parameters, optimizer state, constants, inputs) go last: alone they
  // would pick the least memory, which need not suit their users.
  std::vector<bool> fixed(nodes.size(), false);
  auto isSource = [&](unsigned k) {
    return !nodes[k].op || nodes[k].op->getNumOperands() == 0;
  };
  SmallVector<unsigned> order;
  for (unsigned k : core)
    if (!isSource(k))
      order.push_back(k);
  for (unsigned k : core)
    if (isSource(k))
      order.push_back(k);
  for (unsigned k : order) {
    double best = kInf;
    for (unsigned x = 0; x < nodes[k].candidates.size(); ++x) {
      double c = unary[k][x];
      for (auto [j, id] : adjacent[k])
        if (fixed[j])
          c += edgeCost(edges[id], k, x, choice[j]);
      if (c < best) {
        best = c;
        choice[k] = x;
      }
    }
    fixed[k] = true;
  }
  for (int sweep = 0; sweep < 50; ++sweep) {
    bool changed = false;
    for (unsigned k : core) {
      double current = localCost(k, choice[k]);
      for (unsigned x = 0; x < nodes[k].candidates.size(); ++x) {
        double c = localCost(k, x);
        if (c < current - 1e-12 * std::max(1e-12, std::fabs(current))) {
          current = c;
          choice[k] = x;
          changed = true;
        }
      }
    }
    if (!changed)
      break;
  }
  double incumbent = 0;
  for (unsigned k : core) {
    incumbent += unary[k][choice[k]];
    for (auto [j, id] : adjacent[k])
      if (j < k)
        incumbent += edgeCost(edges[id], k, choice[k], choice[j]);
  }

  // Branch and bound in core order: the cost of the fixed prefix (each
  // node's edges to earlier core nodes added as it is fixed) plus every
  // later node's cheapest candidate bounds a branch (edge costs are not
  // negative). Proves the optimum when it finishes within its budget.
  llvm::DenseMap<unsigned, unsigned> position;
  for (auto [p, k] : llvm::enumerate(core))
    position[k] = p;
  // Each node's cheapest candidate counting its edges to earlier nodes at
  // their minimum over both ends: each edge is bounded once, by its later
  // end, and counted exactly once both ends are fixed.
  std::vector<double> rest(core.size() + 1, 0);
  for (size_t p = core.size(); p-- > 0;) {
    unsigned k = core[p];
    double least = kInf;
    for (unsigned x = 0; x < nodes[k].candidates.size(); ++x) {
      double c = unary[k][x];
      for (auto [j, id] : adjacent[k]) {
        if (position.lookup(j) >= p)
          continue;
        double edgeLeast = kInf;
        for (unsigned y = 0; y < nodes[j].candidates.size(); ++y)
          edgeLeast = std::min(edgeLeast, edgeCost(edges[id], k, x, y));
        c += edgeLeast;
      }
      least = std::min(least, c);
    }
    rest[p] = rest[p + 1] + least;
  }
  std::vector<unsigned> best(core.size()), current(nodes.size());
  for (auto [p, k] : llvm::enumerate(core))
    best[p] = choice[k];
  double bestCost = incumbent;
  int64_t budget = 300000;
  bool finished = true;
  double tolerance = 1e-12 * std::max(1e-12, incumbent);
  std::function<void(size_t, double)> visit = [&](size_t p, double cost) {
    if (cost + rest[p] >= bestCost - tolerance)
      return;
    if (p == core.size()) {
      bestCost = cost;
      for (auto [q, k] : llvm::enumerate(core))
        best[q] = current[k];
      return;
    }
    if (--budget < 0) {
      finished = false;
      return;
    }
    unsigned k = core[p];
    unsigned count = nodes[k].candidates.size();
    // Cheapest first, so that good solutions tighten the bound early.
    SmallVector<std::pair<double, unsigned>, 64> order;
    for (unsigned x = 0; x < count; ++x) {
      double c = unary[k][x];
      for (auto [j, id] : adjacent[k])
        if (position.lookup(j) < p)
          c += edgeCost(edges[id], k, x, current[j]);
      order.push_back({c, x});
    }
    llvm::sort(order);
    for (auto [c, x] : order) {
      if (!finished)
        return;
      current[k] = x;
      visit(p + 1, cost + c);
    }
  };
  // Recursion depth is the core's size: large cores keep the incumbent.
  if (core.size() <= kMaxSearchDepth)
    visit(0, 0);
  else
    finished = false;
  for (auto [q, k] : llvm::enumerate(core))
    choice[k] = best[q];
  exact = finished;
  if (exact) {
    lowerBound = bestCost;
    return;
  }
  // The stated lower bound of the optimum.
  lowerBound = rest[0];
}

double SbpGraphSolver::minimalVariableBytes() const {
  double bytes = 0;
  for (const Node &node : nodes)
    if (node.isVariable) {
      double least = kInf;
      for (const Candidate &c : node.candidates)
        least = std::min(least, c.memory);
      bytes += least;
    }
  return bytes;
}

double SbpGraphSolver::objective(ArrayRef<unsigned> assignment,
                                 double lambda) const {
  double total = 0;
  for (auto [k, node] : llvm::enumerate(nodes)) {
    const Candidate &c = node.candidates[assignment[k]];
    total += node.multiplicity *
             (c.compute + c.extra + (lambda + kMemoryTieBreak) * c.memory);
  }
  for (const Use &use : uses)
    if (use.producer != use.consumer || use.kind == Use::Return)
      total += useCost(use, assignment[use.producer], assignment[use.consumer]);
  return total;
}

double SbpGraphSolver::enumerate(double lambda, double limit,
                                 double &count) const {
  count = 1;
  for (const Node &node : nodes)
    count *= double(node.candidates.size());
  if (count > limit)
    return -1;
  std::vector<unsigned> assignment(nodes.size(), 0);
  double best = kInf;
  while (true) {
    best = std::min(best, objective(assignment, lambda));
    size_t k = 0;
    while (k < nodes.size() && ++assignment[k] == nodes[k].candidates.size())
      assignment[k++] = 0;
    if (k == nodes.size())
      break;
  }
  return best;
}

SbpAutoResult SbpGraphSolver::evaluate() const {
  SbpAutoResult r;
  r.nodes = nodes.size();
  r.coreNodes = coreNodes;
  r.exact = exact;
  for (auto [k, node] : llvm::enumerate(nodes)) {
    const Candidate &c = node.candidates[choice[k]];
    double times = node.multiplicity;
    r.computeSeconds += times * c.compute;
    r.extraSeconds += times * c.extra;
    if (node.isVariable)
      r.variableBytes += times * c.memory;
    else if (node.op && !isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp,
                             ConstantOp>(node.op)) // views hold no bytes
      for (auto [value, nd] : llvm::zip(node.op->getResults(), c.results))
        r.activationBytes += times * localBytes(value.getType(), nd, mesh);
  }
  for (const Use &use : uses)
    if (use.producer != use.consumer || use.kind == Use::Return)
      r.communicationSeconds +=
          useCost(use, choice[use.producer], choice[use.consumer]);
  // The core's bound plus what the exact eliminations folded in is not
  // separable; the bound is stated for the core alone when heuristic.
  r.lowerBound = exact ? r.total() : lowerBound;
  return r;
}

void SbpGraphSolver::write(func::FuncOp graph, FlatSymbolRefAttr placement) {
  MLIRContext *context = graph.getContext();
  auto toAttr = [&](ArrayRef<NdSbp> list) {
    return llvm::map_to_vector(list, [&](const NdSbp &nd) {
      return sbp::NdSbpAttr::get(context, nd);
    });
  };
  for (auto [k, node] : llvm::enumerate(nodes)) {
    const Candidate &c = node.candidates[choice[k]];
    if (!node.op) {
      graph.setArgAttr(node.argument, sbp::SBPDialect::kNdSbpAttrName,
                       sbp::NdSbpAttr::get(context, c.results[0]));
      continue;
    }
  }
  for (auto [op, k] : nodeOfOp) {
    if (isa<sbp::BoxingOp>(op))
      continue;
    const Candidate &c = nodes[k].candidates[choice[k]];
    op->setAttr(sbp::SBPDialect::kSignatureAttrName,
                sbp::SignatureAttr::get(context, toAttr(c.operands),
                                        toAttr(c.results)));
    op->setAttr(sbp::SBPDialect::kPlacementAttrName, placement);
  }
}

} // namespace

LogicalResult mlir::oneflow::solveSbpAuto(ModuleOp module,
                                          const SbpAutoOptions &options,
                                          SbpAutoResult *resultOut) {
  auto graph = lookupGraph(module, "to place");
  if (!graph)
    return failure();
  SmallVector<int64_t> shape(options.meshShape);
  if (shape.empty())
    shape.push_back(1);
  if (shape.size() > 3 || llvm::any_of(shape, [](int64_t d) { return d < 1; }))
    return module.emitError()
           << "unsupported mesh: 1 to 3 axes of at least one device each";
  SbpAutoOptions local = options;
  local.meshShape = shape;
  SbpGraphSolver solver(local);
  // Identical layers solved once: every copy takes its first layer's
  // signatures (exact for that restriction).
  RepeatedLayers repeated;
  if (options.repeatedLayers) {
    repeated = findRepeatedLayers(graph);
    solver.repeated = &repeated;
  }
  // The ops the solve has nodes for (a repeated layer's copies have none).
  int64_t numOps = std::distance(graph.getOps().begin(), graph.getOps().end()) -
                   int64_t(repeated.representative.size());
  bool axisWise = shape.size() > 1 && numOps > options.fullSolveLimit;
  // The outer search's variable layouts, when it gave some for this mesh:
  // kept when the graph is solved one axis at a time (a small graph's
  // whole solve knows better than the forward-only search).
  auto pinned = [&](Operation *op, const Candidate &c) {
    auto variable = dyn_cast_or_null<VariableOp>(op);
    if (!variable)
      return true;
    auto it = options.variablePins.find(variable.getVarName());
    return it == options.variablePins.end() ||
           it->second.size() != shape.size() ||
           ArrayRef<Sbp>(it->second) == ArrayRef<Sbp>(c.results[0]);
  };
  // A ZeRO stage held on the data axes: the optimizer state split on every
  // data axis from stage 1 (replicated at stage 0), the trained parameters
  // too at stage 3 (below it their layout stays the solve's); a filter
  // that rejects every candidate of a node keeps them all.
  if (llvm::any_of(options.dataAxes, [&](int64_t axis) {
        return axis < 0 || axis >= int64_t(shape.size());
      }))
    return module.emitError() << "sbp-auto: a data axis is not an axis of the "
                                 "mesh "
                              << meshString(shape);
  if (options.zero > 3)
    return module.emitError()
           << "sbp-auto: zero must be -1 (the solve's choice) or 0 to 3, not "
           << options.zero;
  auto zeroKeeps = [&](Operation *op, const Candidate &c) {
    auto variable = dyn_cast_or_null<VariableOp>(op);
    if (options.zero < 0 || !variable)
      return true;
    bool state = op->hasAttr(kStateOfAttrName);
    if (!state && (!op->hasAttr(kTrainableAttrName) || options.zero < 3))
      return true;
    bool split = state ? options.zero >= 1 : true;
    for (int64_t axis : options.dataAxes)
      if (axis < int64_t(c.results[0].size()) &&
          c.results[0][axis].isSplit() != split)
        return false;
    return true;
  };
  solver.keep = [&](Operation *op, int, const Candidate &c) {
    return zeroKeeps(op, c);
  };
  // A graph too large for the nd candidates of every op is solved one mesh
  // axis at a time (a heuristic): the outermost axis alone first, then
  // the whole mesh keeping that axis' choice.
  std::unique_ptr<SbpGraphSolver> outer;
  if (axisWise) {
    SbpAutoOptions first = local;
    first.meshShape = {shape[0]};
    outer = std::make_unique<SbpGraphSolver>(first);
    outer->keep = [&](Operation *op, int, const Candidate &c) {
      return zeroKeeps(op, c);
    };
    if (failed(outer->build(graph)))
      return failure();
    outer->solve(0);
    auto sameOuter = [](ArrayRef<NdSbp> a, ArrayRef<NdSbp> b) {
      for (auto [x, y] : llvm::zip(a, b))
        if (x[0] != y[0])
          return false;
      return true;
    };
    solver.keep = [&](Operation *op, int argument, const Candidate &c) {
      const Candidate *first = outer->chosen(op, argument);
      return pinned(op, c) && zeroKeeps(op, c) &&
             (!first || (sameOuter(first->operands, c.operands) &&
                         sameOuter(first->results, c.results)));
    };
  }
  if (failed(solver.build(graph)))
    return failure();
  double lambda = 0;
  solver.solve(0);
  SbpAutoResult result = solver.evaluate();
  double capacity = options.memoryCapacity;
  if (capacity > 0 && result.variableBytes > capacity) {
    double least = solver.minimalVariableBytes();
    if (least > capacity) {
      result.fits = false;
      if (resultOut)
        *resultOut = result;
      return module.emitError()
             << "sbp-auto: the variables need at least " << int64_t(least)
             << " bytes per device on the mesh " << meshString(shape)
             << " however they are split, more than the " << int64_t(capacity)
             << " bytes of memory";
    }
    // Lagrangian relaxation of the limit: weigh variable bytes by lambda
    // seconds per byte, the least lambda (by bisection) whose solution fits.
    double lo = 0, hi = 1e-18;
    while (true) {
      solver.solve(hi);
      if (solver.evaluate().variableBytes <= capacity || hi > 1e6)
        break;
      lo = hi;
      hi *= 4;
    }
    for (int step = 0; step < 24; ++step) {
      double mid = std::sqrt(std::max(lo, 1e-30) * hi);
      solver.solve(mid);
      if (solver.evaluate().variableBytes <= capacity)
        hi = mid;
      else
        lo = mid;
    }
    lambda = hi;
    solver.solve(hi);
    result = solver.evaluate();
    // The penalty makes the solve a heuristic for the constrained problem.
    result.exact = false;
    result.lowerBound = std::min(result.lowerBound, result.total());
    if (result.variableBytes > capacity) {
      result.fits = false;
      if (resultOut)
        *resultOut = result;
      return module.emitError() << "sbp-auto: found no layout of the "
                                   "variables within the memory limit";
    }
  }

  result.layers = repeated.layers;
  result.repeatedLayers = repeated.repeated;
  result.layerGroups = repeated.groups;

  // Place the graph and pin the solution.
  solver.write(graph, placeGraph(module, graph, shape, options.device));

  if (options.enumerate && options.report) {
    // Every assignment of every node, priced like the solve (with the
    // memory penalty it ended with, so within a limit the same problem).
    double count = 0;
    double best = solver.enumerate(lambda, 2e7, count);
    llvm::raw_ostream &os = *options.report;
    if (best < 0)
      os << "sbp-auto: enumeration: " << llvm::format("%.3g", count)
         << " assignments, too many\n";
    else
      os << "sbp-auto: enumeration of " << int64_t(count)
         << " assignments: optimum " << llvm::format("%.6g", best)
         << "; the solve's "
         << llvm::format("%.6g", solver.objective(solver.choice, lambda))
         << "\n";
  }
  if (options.report) {
    llvm::raw_ostream &os = *options.report;
    os << "sbp-auto: mesh " << meshString(shape) << ": " << result.nodes
       << " nodes, " << result.coreNodes << " left after eliminations, ";
    if (axisWise)
      os << "one mesh axis at a time (over " << options.fullSolveLimit
         << " ops), ";
    if (options.repeatedLayers && repeated.repeated > 0)
      os << result.repeatedLayers << " of " << result.layers
         << " layers repeat one of " << result.layerGroups
         << " (solved once), ";
    if (result.exact)
      os << "solved exactly";
    else
      os << "solved heuristically (the optimum is at least "
         << llvm::format("%.4g", result.lowerBound) << " s)";
    os << "; predicted compute " << llvm::format("%.4g", result.computeSeconds)
       << " s + communication "
       << llvm::format("%.4g", result.communicationSeconds) << " s";
    if (result.extraSeconds > 0)
      os << " + " << llvm::format("%.4g", result.extraSeconds) << " s";
    os << "; variables " << llvm::format("%.4g", result.variableBytes / 1048576)
       << " MiB per device\n";
  }
  if (resultOut)
    *resultOut = result;
  return success();
}

namespace {
struct SbpAutoStrategyPass
    : public oneflow::impl::SbpAutoStrategyBase<SbpAutoStrategyPass> {
  using Base::Base;
  SbpAutoStrategyPass() = default;
  /// From C++: the pricers, pins and report already made (the ODS options
  /// are then unused).
  explicit SbpAutoStrategyPass(SbpAutoOptions options)
      : given(std::move(options)), fromOptions(false) {}
  SbpAutoStrategyPass(const SbpAutoStrategyPass &other)
      : Base(other), given(other.given), fromOptions(other.fromOptions) {}

  void runOnOperation() override {
    if (!fromOptions) {
      if (failed(solveSbpAuto(getOperation(), given)))
        signalPassFailure();
      return;
    }
    SbpAutoOptions options;
    StringRef path = cluster.empty() ? defaultAutoCluster() : cluster;
    ClusterSummary summary;
    if (device != "cpu" && device != "cuda") {
      getOperation().emitError()
          << "sbp-auto-strategy: device must be cpu or cuda, not '" << device
          << "'";
      return signalPassFailure();
    }
    if (!makeAutoPricers(path, device == "cuda", options, &summary))
      return signalPassFailure();
    options.meshShape.assign(meshShape.begin(), meshShape.end());
    options.device = device;
    options.memoryCapacity = summary.memoryCapacity;
    options.enumerate = enumerate;
    options.zero = zero;
    options.dataAxes.assign(dataAxes.begin(), dataAxes.end());
    options.repeatedLayers = repeatedLayers;
    options.report = &llvm::errs();
    if (failed(solveSbpAuto(getOperation(), options)))
      signalPassFailure();
  }

  SbpAutoOptions given;
  bool fromOptions = true;
};
} // namespace

std::unique_ptr<Pass>
mlir::oneflow::createSbpAutoStrategyPass(SbpAutoOptions options) {
  if (!options.report)
    options.report = &llvm::errs();
  return std::make_unique<SbpAutoStrategyPass>(std::move(options));
}
