//===- Fuse.cpp - Group ops into fused kernels ----------------------------===//
//
// Greedy producer-consumer fusion in the spirit of XLA's and IREE's dispatch
// formation, on a rank's program after boxing and localization:
//
//  * elementwise and broadcasting ops fuse with their producers and
//    consumers;
//  * a reduction (reduce_*, softmax, layer_norm and their gradients,
//    cross-entropy) takes its elementwise producers and consumers, so a
//    normalization or a softmax backward is one kernel;
//  * a matrix product or convolution takes elementwise consumers of its
//    result as an epilogue (bias, activation, residual add) and may compute
//    its operands first in the same kernel; a kernel holds at most one such
//    library call;
//  * data movement (reshape, transpose, slices, concatenation) goes with
//    any of them;
//  * the optimizer's elementwise updates of all parameters, independent of
//    each other, become one kernel (horizontal fusion, like PyTorch's
//    multi-tensor apply).
//
// Every op lands in exactly one group, so nothing is computed twice: a
// value used both inside and after a group becomes one of its results.
// Collectives, sends and receives are never fused and groups never reach
// across one (the program is cut into segments at each of them), nor across
// forward/backward/update phases or micro-batches, except that a parameter's
// update may join the kernel computing its gradient (the gradient is used
// while in cache). Groups that would make the program cyclic are not merged.
//
// A variable's assign has no SSA edge from the ops reading the variable, yet
// it must follow every one of them (a parameter read by several ops: tied,
// or merged by an exporter). Fusion treats each read of a variable as a
// predecessor of the variable's assign and of the op computing the assigned
// value (so the update can be written in place), both when it checks that a
// merge keeps the program acyclic and when it reorders the block.
//
// Cost: groups are a union-find with per-group summaries (first and last
// program index, whether the group holds a library call or only elementwise
// work, the groups it has edges to and from), so a merge never walks a
// group's members. Whether a merge would close a cycle is a search from
// both ends at once (successors of one group, predecessors of the other,
// one group at a time each), which stops as soon as either side runs out:
// the side with less to explore bounds the cost, so joining a parameter's
// update to its gradient's kernel, or the updates of all parameters into
// one kernel, no longer explores the rest of the program.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Transforms/Passes.h"
#include "oneflow/Transforms/Provenance.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

#include <queue>

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_FUSE
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

FusionKind mlir::oneflow::getFusionKind(Operation *op) {
  if (!isa<OneFlowDialect>(op->getDialect()) ||
      isa<ConstantOp, VariableOp, AssignOp, FusedOp, YieldOp>(op))
    return FusionKind::Opaque;
  if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
          SoftmaxOp, LogSoftmaxOp, LayerNormOp, LayerNormGradOp,
          SoftmaxCrossEntropyOp, SoftmaxCrossEntropyGradOp, MseLossOp>(op))
    return FusionKind::Reduction;
  if (isa<MatmulOp, BatchMatmulOp, Conv2DOp, Conv2DEpilogueOp, MatmulActAuxOp,
          MatmulActGradOp>(op))
    return FusionKind::Library;
  if (isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, TransposeOp, ExpandOp,
          SliceOp, SplitOp, ConcatOp, CoordinateSliceOp>(op))
    return FusionKind::Movement;
  // Unary ops keep their operand's type; binary ops broadcast.
  if ((op->hasTrait<OpTrait::SameOperandsAndResultType>() &&
       op->getNumOperands() == 1 && !isa<CumSumOp>(op)) ||
      op->hasTrait<OpTrait::ResultsBroadcastableShape>() ||
      isa<WhereOp, CastOp, BatchNormOp, DropoutOp>(op))
    return FusionKind::Elementwise;
  return FusionKind::Opaque;
}

Operation *mlir::oneflow::getFusionRoot(Block &body) {
  Operation *root = nullptr;
  for (FusionKind kind : {FusionKind::Reduction, FusionKind::Library})
    for (Operation &op : body)
      if (getFusionKind(&op) == kind)
        root = &op;
  if (root)
    return root;
  for (Operation &op : llvm::reverse(body))
    if (!op.hasTrait<OpTrait::IsTerminator>())
      return &op;
  return nullptr;
}

namespace {

/// The most ops a group holds. Compile time grows faster than a kernel's
/// size (LLVM optimizes and emits whole functions), and one kind of group
/// grows with the model: the optimizer update, whose elementwise work for
/// every parameter would otherwise be one kernel (the 128-layer GPT's:
/// 9,000 ops, a minute of LLVM). Bounded, the update is a run of kernels of
/// consecutive parameters, which repeat with the layers and are then
/// compiled once (oneflow-share-kernels).
constexpr int64_t kMaxGroupOps = 1024;

class Fuser {
public:
  explicit Fuser(Block &block) : block(block) {}

  /// Forms the groups and rewrites the block; returns the number of groups
  /// with more than one op.
  unsigned run() {
    number();
    for (Operation *consumer : ops)
      for (Value operand : consumer->getOperands())
        if (Operation *producer = operand.getDefiningOp();
            producer && producer->getBlock() == &block)
          tryMerge(producer, consumer);
    mergeUpdates();
    rematerializeCheapValues();
    return materialize();
  }

private:
  void number() {
    int64_t segment = 0;
    for (Operation &op : block.without_terminator()) {
      index[&op] = ops.size();
      ops.push_back(&op);
      // Communication ops cut the program: nothing fuses across them.
      if (!isa<OneFlowDialect>(op.getDialect()))
        ++segment;
      segmentOf[&op] = segment;
      addNode(&op);
      microbatched |= phaseOf(&op).second > 0;
      if (auto assign = dyn_cast<AssignOp>(op))
        assignsOf[assign.getVarName()].push_back(assign);
    }
    buildEdges();
  }

  //===--------------------------------------------------------------------===//
  // Groups: a union-find over the ops with per-group summaries.
  //===--------------------------------------------------------------------===//

  /// What a merge needs to know of a group without walking its members.
  struct Summary {
    int64_t first, last; // program indices of the first and last member
    bool library;        // holds a library call
    bool elementwise;    // holds only elementwise and movement ops
  };

  /// Makes `op` a group of its own (`index[op]` set).
  void addNode(Operation *op) {
    unsigned id = nodeOp.size();
    nodeOp.push_back(op);
    nodeOf[op] = id;
    parent.push_back(id);
    groupSize.push_back(1);
    FusionKind kind = getFusionKind(op);
    summary.push_back(
        {index[op], index[op], kind == FusionKind::Library,
         kind == FusionKind::Elementwise || kind == FusionKind::Movement});
    succs.emplace_back();
    preds.emplace_back();
    forwardMark.push_back(0);
    backwardMark.push_back(0);
    neighborMark.push_back(0);
  }

  unsigned find(unsigned id) {
    while (parent[id] != id) {
      parent[id] = parent[parent[id]];
      id = parent[id];
    }
    return id;
  }
  unsigned groupOf(Operation *op) { return find(nodeOf.at(op)); }
  Operation *leader(Operation *op) { return nodeOp[groupOf(op)]; }

  /// The edges between ops that searches follow: values, and from a read of
  /// a variable to its writers. An opaque op never joins a group, so one
  /// without successors (an assign) ends every path and one without
  /// predecessors (a variable, a constant) starts only: the lists leave
  /// them out.
  void buildEdges() {
    unsigned count = nodeOp.size();
    std::vector<std::vector<unsigned>> out(count), in(count);
    for (unsigned id = 0; id < count; ++id) {
      Operation *op = nodeOp[id];
      auto add = [&](Operation *user) {
        user = block.findAncestorOpInBlock(*user);
        if (!user || user->hasTrait<OpTrait::IsTerminator>())
          return;
        unsigned target = nodeOf.at(user);
        if (target != id)
          out[id].push_back(target);
      };
      for (Operation *user : op->getUsers())
        add(user);
      for (Operation *writer : writersAfter(op))
        add(writer);
      llvm::sort(out[id]);
      out[id].erase(llvm::unique(out[id]), out[id].end());
      for (unsigned target : out[id])
        in[target].push_back(id);
    }
    auto keep = [&](const std::vector<std::vector<unsigned>> &edges,
                    unsigned id) {
      return !edges[id].empty() ||
             getFusionKind(nodeOp[id]) != FusionKind::Opaque;
    };
    for (unsigned id = 0; id < count; ++id) {
      for (unsigned target : out[id])
        if (keep(out, target))
          succs[id].push_back(target);
      for (unsigned source : in[id])
        if (keep(in, source))
          preds[id].push_back(source);
    }
  }

  /// Calls `visit` on each group that group `group` has an edge to in
  /// `edges` (its successors or predecessors) until it returns true; returns
  /// whether it did. Drops the entries that now lie inside the group or
  /// repeat another's group.
  template <typename Visit>
  bool forEachNeighbor(std::vector<std::vector<unsigned>> &edges,
                       unsigned group, Visit visit) {
    std::vector<unsigned> &list = edges[group];
    ++neighborStamp;
    size_t kept = 0;
    for (size_t i = 0, e = list.size(); i < e; ++i) {
      unsigned other = find(list[i]);
      if (other == group || neighborMark[other] == neighborStamp)
        continue;
      neighborMark[other] = neighborStamp;
      list[kept++] = other;
      if (visit(other)) {
        list.erase(list.begin() + kept, list.begin() + i + 1);
        return true;
      }
    }
    list.resize(kept);
    return false;
  }

  /// The ops that must follow `op` though no value flows to them: when `op`
  /// reads a variable, the variable's assigns and the ops computing the
  /// values they store (the update reads the old value last, which lets it
  /// write the new one in place).
  SmallVector<Operation *> writersAfter(Operation *op) {
    SmallVector<Operation *> writers;
    for (Value operand : op->getOperands()) {
      auto variable = operand.getDefiningOp<VariableOp>();
      if (!variable)
        continue;
      auto it = assignsOf.find(variable.getVarName());
      if (it == assignsOf.end())
        continue;
      for (AssignOp assign : it->second) {
        if (assign != op)
          writers.push_back(assign);
        Operation *value = assign.getValue().getDefiningOp();
        if (value && value != op && value->getBlock() == &block)
          writers.push_back(value);
      }
    }
    return writers;
  }

  /// Phase, micro-batch and model chunk (interleaved pipelines): ops of
  /// different ones never share a kernel.
  struct Phase {
    StringRef first;
    int64_t second = 0, chunk = 0;
    bool operator==(const Phase &other) const {
      return first == other.first && second == other.second &&
             chunk == other.chunk;
    }
  };
  static Phase phaseOf(Operation *op) {
    if (std::optional<Provenance> p = getProvenance(op))
      return {p->phase, p->microbatch, p->chunk};
    return {"", 0, 0};
  }

  /// Ops of different phases or micro-batches never share a kernel, but
  /// for an update applied to the gradient its kernel computes in a step
  /// of one micro-batch: the gradient is then used while it is still in
  /// cache and never stored. (Micro-batched steps keep their updates apart:
  /// pipeline schedules order whole phases.)
  bool phasesAllow(Operation *producer, Operation *consumer) {
    auto from = phaseOf(producer), to = phaseOf(consumer);
    // Ops that localization made outside any phase (a rank's slice of a
    // replicated parameter for its sharded update) go with their consumer.
    if (from.first.empty() && !getProvenance(producer))
      return true;
    return from == to ||
           (!microbatched && from.first == "backward" && to.first == "update");
  }

  /// Whether the edge producer -> consumer may be fused, by op kinds.
  static bool kindsAllow(Operation *producer, Operation *consumer) {
    FusionKind p = getFusionKind(producer), c = getFusionKind(consumer);
    if (p == FusionKind::Opaque || c == FusionKind::Opaque)
      return false;
    // A library call reads whole operands, which its kernel may compute
    // first (a prologue: nothing is recomputed, it only saves a kernel).
    if (c == FusionKind::Library)
      return true;
    // An epilogue runs over one of the product's own results (a bias
    // gradient is one too), not a broadcast or reduced view of it.
    if (p == FusionKind::Library)
      return (c == FusionKind::Elementwise || c == FusionKind::Movement) &&
             llvm::any_of(consumer->getOperands(), [&](Value operand) {
               return operand.getDefiningOp() == producer &&
                      operand.getType() == consumer->getResult(0).getType();
             });
    return true;
  }

  /// Merges the groups of `a` and `b`, keeping their summaries.
  void unite(Operation *a, Operation *b) {
    unsigned x = groupOf(a), y = groupOf(b);
    if (x == y)
      return;
    if (groupSize[x] < groupSize[y])
      std::swap(x, y);
    parent[y] = x;
    groupSize[x] += groupSize[y];
    Summary &into = summary[x], &from = summary[y];
    into.first = std::min(into.first, from.first);
    into.last = std::max(into.last, from.last);
    into.library |= from.library;
    into.elementwise &= from.elementwise;
    for (auto *edges : {&succs, &preds}) {
      std::vector<unsigned> &list = (*edges)[x], &other = (*edges)[y];
      if (list.size() < other.size())
        list.swap(other);
      list.insert(list.end(), other.begin(), other.end());
      other = {};
    }
  }

  /// Whether some op outside both groups lies on a path from group `from`
  /// to group `to` (merging them would then need that op inside). Paths
  /// follow values and, from a read of a variable, its writers, and only
  /// pass groups whose first op precedes the last op of `to`.
  ///
  /// A group becomes one kernel: reaching one of its ops reaches the users
  /// of all of them. The search goes forward from `from` and backward from
  /// `to` in turn, one group each, and ends when the two meet or either
  /// side has nothing left.
  bool pathOutside(Operation *fromOp, Operation *toOp) {
    unsigned from = groupOf(fromOp), to = groupOf(toOp);
    int64_t limit = summary[to].last;
    ++searchStamp;
    auto allowed = [&](unsigned group) {
      return group != from && group != to && summary[group].first <= limit;
    };
    SmallVector<unsigned> forward, backward;
    // The groups `from` reaches directly (an edge straight to `to` is no
    // path outside).
    forEachNeighbor(succs, from, [&](unsigned group) {
      if (allowed(group) && forwardMark[group] != searchStamp) {
        forwardMark[group] = searchStamp;
        forward.push_back(group);
      }
      return false;
    });
    if (forward.empty())
      return false;
    auto stepBackward = [&](unsigned group) {
      return forEachNeighbor(preds, group, [&](unsigned pred) {
        if (pred == from && group != to)
          return true;
        if (!allowed(pred) || backwardMark[pred] == searchStamp)
          return false;
        if (forwardMark[pred] == searchStamp)
          return true;
        backwardMark[pred] = searchStamp;
        backward.push_back(pred);
        return false;
      });
    };
    if (stepBackward(to))
      return true;
    while (!forward.empty() && !backward.empty()) {
      unsigned group = forward.pop_back_val();
      if (forEachNeighbor(succs, group, [&](unsigned succ) {
            if (succ == to || backwardMark[succ] == searchStamp)
              return true;
            if (!allowed(succ) || forwardMark[succ] == searchStamp)
              return false;
            forwardMark[succ] = searchStamp;
            forward.push_back(succ);
            return false;
          }))
        return true;
      if (stepBackward(backward.pop_back_val()))
        return true;
    }
    return false;
  }

  /// A reshape is a view: as a library call's prologue it costs nothing.
  /// Joined to its producer's kernel instead, when that kernel already holds
  /// a library call (so the reshape's library consumer can never join it)
  /// and the producer's value leaves the kernel anyway, both values would be
  /// stored (one copy too many). The reshape is left for its consumer then.
  bool leavesReshapeToConsumers(Operation *producer, Operation *consumer) {
    if (!isa<ReshapeOp>(consumer) || !summary[groupOf(producer)].library)
      return false;
    auto isLibrary = [](Operation *user) {
      return getFusionKind(user) == FusionKind::Library;
    };
    return llvm::any_of(consumer->getUsers(), isLibrary) &&
           llvm::any_of(consumer->getOperand(0).getUsers(),
                        [&](Operation *user) { return user != consumer; });
  }

  void tryMerge(Operation *producer, Operation *consumer) {
    Operation *from = leader(producer), *to = leader(consumer);
    if (from == to || segmentOf[producer] != segmentOf[consumer] ||
        !phasesAllow(producer, consumer) || !kindsAllow(producer, consumer))
      return;
    if ((summary[groupOf(from)].library && summary[groupOf(to)].library) ||
        tooLarge(from, to) || leavesReshapeToConsumers(producer, consumer) ||
        pathOutside(from, to) || pathOutside(to, from))
      return;
    unite(from, to);
  }

  /// Whether the groups of `a` and `b` together exceed kMaxGroupOps.
  bool tooLarge(Operation *a, Operation *b) {
    return int64_t(groupSize[groupOf(a)]) + groupSize[groupOf(b)] >
           kMaxGroupOps;
  }

  /// Merges the groups of the optimizer update that are pure elementwise
  /// work, segment by segment, when neither reaches the other; a group that
  /// would grow past kMaxGroupOps is left and the next one starts, or
  /// earlier, where the updates repeat with the layers (alignedCuts).
  void mergeUpdates() {
    DenseSet<Operation *> cutBefore = alignedCuts();
    DenseMap<int64_t, Operation *> current; // segment -> update group
    for (Operation *op : ops) {
      if (phaseOf(op).first != "update")
        continue;
      Operation *lead = leader(op);
      if (!summary[groupOf(lead)].elementwise)
        continue;
      Operation *&group = current[segmentOf[op]];
      if (!group) {
        group = lead;
        continue;
      }
      Operation *other = leader(group);
      if (other == lead)
        continue;
      if (tooLarge(other, lead) || cutBefore.contains(op)) {
        group = lead;
        continue;
      }
      if (pathOutside(other, lead) || pathOutside(lead, other))
        continue;
      unite(other, lead);
      group = leader(lead);
    }
  }

  /// Where the horizontally fused update of a segment whose elementwise
  /// update groups hold more than kMaxGroupOps ops should start a new
  /// kernel (the first op of a group) so that its kernels repeat: the
  /// groups of a deep model repeat with its layers, a period of p groups
  /// and P ops, and a kernel of L = kMaxGroupOps / P whole periods, cut
  /// where the periods start, is the same for every L layers, so it is
  /// compiled once. The period is the smallest p over which most of the
  /// groups' signatures (op names, result types, attributes, which operands
  /// come from inside) repeat. Models whose update fits one kernel get no
  /// cut.
  DenseSet<Operation *> alignedCuts() {
    // The elementwise update groups of each segment, by their first op.
    llvm::MapVector<int64_t, SmallVector<Operation *>> firstOps;
    DenseSet<unsigned> seen;
    for (Operation *op : ops)
      if (phaseOf(op).first == "update" && summary[groupOf(op)].elementwise &&
          seen.insert(groupOf(op)).second)
        firstOps[segmentOf[op]].push_back(op);
    DenseMap<unsigned, SmallVector<Operation *>> members;
    for (Operation *op : ops)
      if (seen.contains(groupOf(op)))
        members[groupOf(op)].push_back(op);

    DenseSet<Operation *> cuts;
    for (auto &[segment, firsts] : firstOps) {
      size_t count = firsts.size();
      SmallVector<llvm::hash_code> signature;
      SmallVector<int64_t> size;
      int64_t total = 0;
      for (Operation *first : firsts) {
        unsigned group = groupOf(first);
        llvm::hash_code hash = 0;
        for (Operation *member : members[group]) {
          hash =
              llvm::hash_combine(hash, member->getName().getAsOpaquePointer(),
                                 member->getRawDictionaryAttrs(),
                                 member->getPropertiesAsAttribute());
          for (Type type : member->getResultTypes())
            hash = llvm::hash_combine(hash, type.getAsOpaquePointer());
          for (Value operand : member->getOperands()) {
            Operation *def = operand.getDefiningOp();
            hash = llvm::hash_combine(
                hash, operand.getType().getAsOpaquePointer(),
                def && def->getBlock() == &block && groupOf(def) == group);
          }
        }
        signature.push_back(hash);
        size.push_back(groupSize[group]);
        total += groupSize[group];
      }
      if (total <= kMaxGroupOps || count < 4)
        continue;
      // The smallest period whose longest run of repeats covers half the
      // groups.
      size_t period = 0, start = 0, run = 0;
      for (size_t p = 1; p <= std::min<size_t>(count / 2, 512); ++p) {
        size_t length = 0, longest = 0, from = 0;
        for (size_t i = 0; i + p < count; ++i) {
          length = signature[i] == signature[i + p] ? length + 1 : 0;
          if (length > longest) {
            longest = length;
            from = i + 1 - length;
          }
        }
        if (longest >= (count - p) / 2) {
          period = p;
          start = from;
          run = longest;
          break;
        }
      }
      if (!period)
        continue;
      int64_t periodOps = 0;
      for (size_t i = start; i < start + period; ++i)
        periodOps += size[i];
      size_t step = period * (kMaxGroupOps / periodOps);
      if (step == 0)
        continue;
      // Groups [start, start + run) equal the ones a period later: the
      // periods fill [start, end). Kernels start where a period does.
      size_t end = start + run + period;
      for (size_t i = start; i <= end && i < count; i += step)
        if (i > 0)
          cuts.insert(firsts[i]);
    }
    return cuts;
  }

  /// The one tensor a cheap op computes from (its other operands are
  /// scalar constants), or null: an add, sub, mul, div or neg whose result
  /// costs one instruction per element to compute again.
  static Value cheapSource(Operation *op) {
    if (!isa<AddOp, SubOp, MulOp, DivOp, NegOp>(op))
      return nullptr;
    Value source;
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (operand.getDefiningOp<ConstantOp>() && type && type.getRank() == 0)
        continue;
      if (source || operand.getType() != op->getResult(0).getType())
        return nullptr;
      source = operand;
    }
    return source;
  }

  /// A kernel that reads both x and f(x), f cheap, computes f(x) itself:
  /// then f(x) need not be stored by its producer and loaded again (GELU's
  /// x / sqrt(2), kept for the backward pass next to x). The copy joins the
  /// consumer's group; nothing expensive is ever recomputed.
  void rematerializeCheapValues() {
    bool changed = false;
    for (Operation *op : llvm::make_early_inc_range(ops)) {
      Value source = cheapSource(op);
      if (!source)
        continue;
      Operation *home = leader(op);
      // Users in other groups that read `source` themselves.
      llvm::MapVector<Operation *, SmallVector<OpOperand *>> usesByGroup;
      for (OpOperand &use : op->getResult(0).getUses()) {
        Operation *user = block.findAncestorOpInBlock(*use.getOwner());
        if (!user || user->hasTrait<OpTrait::IsTerminator>() ||
            leader(user) == home)
          continue;
        usesByGroup[leader(user)].push_back(&use);
      }
      for (auto &[group, uses] : usesByGroup) {
        bool readsSource = llvm::any_of(source.getUsers(), [&](Operation *u) {
          Operation *user = block.findAncestorOpInBlock(*u);
          return user && user != op &&
                 !user->hasTrait<OpTrait::IsTerminator>() &&
                 leader(user) == group;
        });
        if (!readsSource)
          continue;
        Operation *first =
            block.findAncestorOpInBlock(*uses.front()->getOwner());
        for (OpOperand *use : uses) {
          Operation *user = block.findAncestorOpInBlock(*use->getOwner());
          if (index[user] < index[first])
            first = user;
        }
        OpBuilder builder(first);
        Operation *copy = builder.clone(*op);
        for (OpOperand *use : uses)
          use->set(copy->getResult(0));
        index[copy] = index[first]; // Until the renumbering below.
        segmentOf[copy] = segmentOf[first];
        addNode(copy);
        unite(group, copy);
        changed = true;
      }
    }
    if (!changed)
      return;
    // Number again in block order (the copies sit before their users).
    ops.clear();
    for (Operation &op : block.without_terminator()) {
      index[&op] = ops.size();
      ops.push_back(&op);
    }
  }

  /// Reorders the block so each group is contiguous (a topological order
  /// that keeps the original one where it can), then wraps the groups of
  /// two or more ops into oneflow.fused regions.
  unsigned materialize() {
    // Nodes are group leaders, ordered by their first member: a group that
    // a parameter's update joined has its last member at the end of the
    // step, and ordering by it would let independent work that comes later
    // (activations recomputed for the next layers' backward) run first and
    // stay alive meanwhile.
    DenseMap<Operation *, int64_t> priority;
    llvm::MapVector<Operation *, SmallVector<Operation *>> members;
    for (Operation *op : ops) {
      Operation *lead = leader(op);
      members[lead].push_back(op);
      priority.try_emplace(lead, index[op]);
    }
    SmallVector<Operation *> order = topologicalOrder(members, priority,
                                                      /*readsFirst=*/true);
    // The merges kept reads before writes acyclic; should they not be,
    // the values' order alone is kept (the plan builder reports the read).
    if (order.size() != members.size())
      order = topologicalOrder(members, priority, /*readsFirst=*/false);

    Operation *terminator = block.getTerminator();
    OpBuilder builder(terminator);
    unsigned fused = 0;
    for (Operation *lead : order) {
      SmallVector<Operation *> &list = members[lead];
      if (list.size() == 1) {
        list.front()->moveBefore(terminator);
        continue;
      }
      wrap(builder, list);
      ++fused;
    }
    return fused;
  }

  /// The group leaders in a topological order of the values flowing
  /// between them (and, with `readsFirst`, of reads of a variable before
  /// its writers), lowest priority first among the ready ones; shorter than
  /// `members` if the edges form a cycle.
  SmallVector<Operation *> topologicalOrder(
      llvm::MapVector<Operation *, SmallVector<Operation *>> &members,
      DenseMap<Operation *, int64_t> &priority, bool readsFirst) {
    DenseMap<Operation *, unsigned> pending;
    DenseMap<Operation *, SmallVector<Operation *>> successors;
    DenseMap<Operation *, DenseSet<Operation *>> preds;
    auto addEdge = [&](Operation *from, Operation *to) {
      from = block.findAncestorOpInBlock(*from);
      if (!from || leader(from) == to)
        return;
      if (preds[to].insert(leader(from)).second)
        successors[leader(from)].push_back(to);
    };
    for (auto &[lead, list] : members)
      for (Operation *op : list)
        op->walk([&](Operation *nested) {
          for (Value operand : nested->getOperands())
            if (Operation *def = operand.getDefiningOp())
              addEdge(def, lead);
          if (readsFirst)
            for (Operation *writer : writersAfter(nested))
              if (Operation *in = block.findAncestorOpInBlock(*writer))
                addEdge(op, leader(in));
        });
    for (auto &[lead, list] : members)
      pending[lead] = preds.lookup(lead).size();
    using Entry = std::pair<int64_t, Operation *>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
    for (auto &[lead, count] : pending)
      if (count == 0)
        ready.push({priority[lead], lead});
    SmallVector<Operation *> order;
    while (!ready.empty()) {
      Operation *lead = ready.top().second;
      ready.pop();
      order.push_back(lead);
      for (Operation *next : successors[lead])
        if (--pending[next] == 0)
          ready.push({priority[next], next});
    }
    return order;
  }

  /// Moves `list` (in program order) into a new oneflow.fused before the
  /// block's terminator.
  void wrap(OpBuilder &builder, ArrayRef<Operation *> list) {
    DenseSet<Operation *> inside(list.begin(), list.end());
    SmallVector<Value> escaping;
    for (Operation *op : list)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !inside.contains(block.findAncestorOpInBlock(*user));
            }))
          escaping.push_back(result);

    // The kernel is named and located after its main op.
    Block staging;
    for (Operation *op : list)
      op->moveBefore(&staging, staging.end());
    Operation *root = getFusionRoot(staging);
    auto fusedOp = FusedOp::create(builder, root->getLoc(),
                                   ValueRange(escaping).getTypes());
    Block &body = fusedOp.getBody().front();
    body.getOperations().splice(body.end(), staging.getOperations());
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&body);
    YieldOp::create(builder, root->getLoc(), escaping);
    for (auto [value, result] : llvm::zip(escaping, fusedOp.getResults()))
      value.replaceUsesWithIf(result, [&](OpOperand &use) {
        return !fusedOp->isProperAncestor(use.getOwner());
      });
  }

  Block &block;
  SmallVector<Operation *> ops;
  DenseMap<Operation *, int64_t> index, segmentOf;
  /// Whether the step runs several micro-batches.
  bool microbatched = false;
  /// The union-find: per node (an op), its op, parent and (for a group's
  /// root) size and summary.
  SmallVector<Operation *> nodeOp;
  DenseMap<Operation *, unsigned> nodeOf;
  SmallVector<unsigned> parent, groupSize;
  SmallVector<Summary> summary;
  /// Per group root: the nodes its members have edges to, and from, in
  /// other groups (entries that have since joined the group, or repeat
  /// another's group, are dropped when next read).
  std::vector<std::vector<unsigned>> succs, preds;
  /// Per node: the search that reached it forward or backward, and the
  /// last neighbor listing that saw it.
  SmallVector<unsigned> forwardMark, backwardMark, neighborMark;
  unsigned searchStamp = 0, neighborStamp = 0;
  /// The assigns of each variable.
  llvm::StringMap<SmallVector<AssignOp, 1>> assignsOf;
};

struct FusePass : public oneflow::impl::FuseBase<FusePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration() || func->hasAttr(kKernelAttrName))
      return;
    Fuser(func.getBody().front()).run();
  }
};
} // namespace
