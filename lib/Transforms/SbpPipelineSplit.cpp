//===- SbpPipelineSplit.cpp - One program per (stage, device) -------------===//
//
// After sbp-localize, each device's program @main_rank<d> still holds every
// stage. This pass gives each stage its own ranks: rank s * D + d runs the
// ops of stage s of device d's program; a value that crosses stages is sent
// by its producer's rank and received by its consumer's (same device index,
// so the same SBP piece); collectives move to their stage's ranks. Ops that
// depend on no staged op (input slices, constants, variables read by every
// stage, the optimizer's step count) are copied into each stage that uses
// them. With an interleaved schedule the graph is cut into S * V chunks and
// rank s holds chunks s, s + S, ... (V of them). Then each rank's program
// is put in its schedule's order (PipelineSchedule.h), which the runtime
// follows.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/SBP/SBPDialect.h"
#include "oneflow/Transforms/Passes.h"
#include "oneflow/Transforms/PipelineSchedule.h"
#include "oneflow/Transforms/Provenance.h"
#include "llvm/ADT/MapVector.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cstring>
#include <functional>
#include <map>
#include <set>

namespace mlir {
namespace oneflow {
#define GEN_PASS_DEF_SBPPIPELINESPLIT
#include "oneflow/Transforms/Passes.h.inc"
} // namespace oneflow
} // namespace mlir

using namespace mlir;
using namespace mlir::oneflow;

namespace {
/// Splits one device's program into its stages' programs. Ops carry the
/// model chunk they are on (`oneflow.stage`); chunk c runs on stage
/// c mod S, as its chunk c / S (its virtual stage).
class StageSplitter {
public:
  StageSplitter(func::FuncOp graph, int64_t device, int64_t numDevices,
                int64_t numStages, int64_t virtualStages, int64_t &nextTag,
                int64_t tagStride)
      : graph(graph), device(device), numDevices(numDevices),
        numStages(numStages), numChunks(numStages * virtualStages),
        nextTag(nextTag), tagStride(tagStride), builder(graph.getContext()) {}

  FailureOr<SmallVector<func::FuncOp>> run();

private:
  int64_t rankOf(int64_t stage) const { return stage * numDevices + device; }
  int64_t stageOfChunk(int64_t chunk) const { return chunk % numStages; }
  /// Records the rank's chunk an op of model chunk `chunk` runs in.
  void setChunk(Operation *op, int64_t chunk) const;
  LogicalResult placeOps();
  void shareUpdate(Block &body, StringRef name,
                   const std::set<int64_t> &readers);
  FailureOr<Value> valueIn(Value value, int64_t stage);
  FailureOr<Operation *> cloneInto(Operation &op, int64_t stage);

  func::FuncOp graph;
  int64_t device, numDevices, numStages, numChunks;
  int64_t &nextTag;
  int64_t tagStride;
  OpBuilder builder;
  /// The model chunk of each placed op; replicable ops are absent.
  llvm::DenseMap<Operation *, int64_t> stageOf;
  llvm::DenseSet<Operation *> replicable;
  /// The update of a parameter read on several stages runs on each of
  /// them: the stages besides its own.
  llvm::DenseMap<Operation *, SmallVector<int64_t>> extraStagesOf;
  /// Backward ops that later chunks recompute (placeOps): those chunks,
  /// and whether the op moved to the first of them (its own chunk does not
  /// read it) rather than staying and being copied.
  struct LaterChunks {
    SmallVector<int64_t> chunks;
    bool moved = false;
  };
  llvm::DenseMap<Operation *, LaterChunks> laterChunksOf;
  SmallVector<func::FuncOp> programs;
  SmallVector<IRMapping> mappings;
};

/// Ops that compute the same on every stage from inputs, constants and
/// variables, so each stage can have its own copy.
bool isCopyable(Operation *op) {
  return isa<OneFlowDialect>(op->getDialect()) &&
         (op->getNumOperands() == 0 || isMemoryEffectFree(op) ||
          isa<AssignOp>(op));
}

LogicalResult StageSplitter::placeOps() {
  Block &body = graph.getBody().front();
  // Replicable: copyable ops whose operands are arguments or replicable.
  for (Operation &op : body.without_terminator()) {
    if (op.hasAttr(kStageAttrName) || !isCopyable(&op))
      continue;
    bool fromInputs = llvm::all_of(op.getOperands(), [&](Value operand) {
      Operation *producer = operand.getDefiningOp();
      return !producer || replicable.contains(producer);
    });
    if (fromInputs)
      replicable.insert(&op);
  }
  // Staged ops; the others (boxing glue, collectives) take their first
  // user's stage, or their producers' latest when nothing uses them.
  for (Operation &op : body.without_terminator())
    if (auto stage = op.getAttrOfType<IntegerAttr>(kStageAttrName)) {
      if (stage.getInt() < 0 || stage.getInt() >= numChunks)
        return op.emitOpError() << "is on stage " << stage.getInt() << " of a "
                                << numChunks << "-stage pipeline";
      stageOf[&op] = stage.getInt();
    }
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    if (stageOf.count(&op) || replicable.contains(&op))
      continue;
    int64_t stage = numChunks;
    for (Operation *user : op.getUsers())
      if (auto it = stageOf.find(user); it != stageOf.end())
        stage = std::min(stage, it->second);
    if (stage < numChunks)
      stageOf[&op] = stage;
  }
  for (Operation &op : body.without_terminator()) {
    if (stageOf.count(&op) || replicable.contains(&op))
      continue;
    int64_t stage = 0;
    for (Value operand : op.getOperands())
      if (Operation *producer = operand.getDefiningOp())
        stage = std::max(stage, stageOf.lookup_or(producer, 0));
    stageOf[&op] = stage;
  }
  // Of the backward pass: by provenance, or glue (a reshape, a boxing)
  // that reads a value of it.
  llvm::DenseMap<Operation *, bool> backwardOf;
  std::function<bool(Operation *)> isBackward = [&](Operation *op) {
    if (auto known = backwardOf.find(op); known != backwardOf.end())
      return known->second;
    bool backward = false;
    if (std::optional<Provenance> origin = getProvenance(op))
      backward = origin->phase == "backward";
    else
      backward = llvm::any_of(op->getOperands(), [&](Value operand) {
        Operation *producer = operand.getDefiningOp();
        return producer && isBackward(producer);
      });
    backwardOf[op] = backward;
    return backward;
  };
  // Values of the backward pass that a later chunk reads (the
  // recomputation of a layer the cut split keeps its forward ops' chunks):
  // that chunk's backward runs first, so waiting for a value from this
  // one's would be a cycle of waits. The later chunk recomputes them
  // itself: each such op, and the backward ops it reads in its own chunk,
  // is copied into the chunks that need it, or moved when its own chunk
  // does not read it. The copies read the forward values their originals
  // read, which the forward pass sends on as usual.
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    auto it = stageOf.find(&op);
    if (it == stageOf.end() || !isBackward(&op))
      continue;
    SmallVector<int64_t> later;
    bool readHere = false;
    auto need = [&](int64_t chunk) {
      if (stageOfChunk(chunk) != stageOfChunk(it->second) &&
          !llvm::is_contained(later, chunk))
        later.push_back(chunk);
    };
    for (Operation *user : op.getUsers()) {
      auto userChunk = stageOf.find(user);
      if (userChunk == stageOf.end()) {
        readHere = true;
        continue;
      }
      // Wherever a recomputed user goes, this value must be there too.
      auto copies = laterChunksOf.find(user);
      if (copies != laterChunksOf.end()) {
        for (int64_t chunk : copies->second.chunks)
          need(chunk);
        if (copies->second.moved)
          continue;
      }
      if (userChunk->second > it->second)
        need(userChunk->second);
      else
        readHere = true;
    }
    if (later.empty())
      continue;
    laterChunksOf[&op] = {later, !readHere};
    if (!readHere)
      it->second = later.front();
  }
  // A trained parameter read on several stages (tied embeddings, equal
  // initializers the exporter merged) lives on each of them: its gradient
  // is summed where the update runs (the contributions are sent there), the
  // sum is sent to the other stages, and each runs the same update on its
  // own copy and optimizer state, so every copy stays equal.
  for (auto variable : body.getOps<VariableOp>()) {
    if (!variable->hasAttr(kTrainableAttrName))
      continue;
    // The stages reading it, also through ops each stage computes from it
    // on its own (the slice of its piece a split use reads).
    std::set<int64_t> readers;
    SmallVector<Operation *> users(variable->getUsers());
    llvm::SmallPtrSet<Operation *, 8> seen;
    while (!users.empty()) {
      Operation *user = users.pop_back_val();
      if (!seen.insert(user).second)
        continue;
      std::optional<Provenance> origin = getProvenance(user);
      if (origin && origin->phase == "update")
        continue;
      if (replicable.contains(user))
        users.append(user->user_begin(), user->user_end());
      else if (auto it = stageOf.find(user); it != stageOf.end()) {
        readers.insert(stageOfChunk(it->second));
        // And where the backward recomputes it (the copies' chunks).
        for (int64_t chunk : laterChunksOf.lookup(user).chunks)
          readers.insert(stageOfChunk(chunk));
      }
    }
    if (readers.size() < 2)
      continue;
    shareUpdate(body, variable.getVarName(), readers);
  }
  return success();
}

void StageSplitter::shareUpdate(Block &body, StringRef name,
                                const std::set<int64_t> &readers) {
  // The update: what the assigns of the parameter and of its optimizer
  // state ("<name>.<state>") compute after the backward pass, back to the
  // gradient (computed in the backward pass, sent as any crossing value)
  // and to variables and constants (copied where used).
  SmallVector<Operation *> work;
  for (auto assign : body.getOps<AssignOp>())
    if (assign.getVarName() == name ||
        assign.getVarName().starts_with((name + ".").str()))
      work.push_back(assign);
  llvm::SmallPtrSet<Operation *, 16> update(work.begin(), work.end());
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || replicable.contains(producer) ||
          update.contains(producer))
        continue;
      std::optional<Provenance> origin = getProvenance(producer);
      if (!origin || origin->phase != "update")
        continue;
      update.insert(producer);
      work.push_back(producer);
    }
  }
  for (Operation *op : update) {
    SmallVector<int64_t> &extra = extraStagesOf[op];
    for (int64_t stage : readers)
      if (stage != stageOfChunk(stageOf.lookup(op)) &&
          !llvm::is_contained(extra, stage))
        extra.push_back(stage);
  }
}

void StageSplitter::setChunk(Operation *op, int64_t chunk) const {
  std::optional<Provenance> origin = getProvenance(op);
  if (!origin || origin->phase == "update" || numChunks == numStages)
    return;
  origin->chunk = chunk / numStages;
  setProvenance(op, *origin);
}

FailureOr<Operation *> StageSplitter::cloneInto(Operation &op, int64_t stage) {
  for (Value operand : op.getOperands())
    if (failed(valueIn(operand, stage)))
      return failure();
  builder.setInsertionPoint(programs[stage].getBody().front().getTerminator());
  Operation *clone = builder.clone(op, mappings[stage]);
  clone->removeAttr(kStageAttrName);
  // Collectives run among this stage's ranks, under tags of this stage.
  if (auto collective = dyn_cast<sbp::CollectiveOp>(clone)) {
    SmallVector<int64_t> group;
    for (int64_t member : collective.getGroup())
      group.push_back(stage * numDevices + member);
    collective.setGroup(group);
    collective.setTag(collective.getTag() * numStages + stage);
  }
  return clone;
}

FailureOr<Value> StageSplitter::valueIn(Value value, int64_t stage) {
  if (Value local = mappings[stage].lookupOrNull(value))
    return local;
  Operation *producer = value.getDefiningOp();
  if (!producer)
    return emitError(value.getLoc()) << "unmapped block argument";
  if (replicable.contains(producer)) {
    FailureOr<Operation *> copy = cloneInto(*producer, stage);
    if (failed(copy))
      return failure();
    return mappings[stage].lookup(value);
  }
  // Computed on another stage: sent from there, received here.
  int64_t from = stageOfChunk(stageOf.lookup(producer));
  if (from == stage)
    return producer->emitOpError() << "is used before it is computed";
  FailureOr<Value> source = valueIn(value, from);
  if (failed(source))
    return failure();
  int64_t tag = tagStride + nextTag++;
  Location loc = value.getLoc();
  builder.setInsertionPoint(programs[from].getBody().front().getTerminator());
  auto send = sbp::SendOp::create(builder, loc, *source, rankOf(stage), tag);
  if (std::optional<Provenance> origin = getProvenance(producer)) {
    setProvenance(send, *origin);
    setChunk(send, stageOf.lookup(producer));
  }
  builder.setInsertionPoint(programs[stage].getBody().front().getTerminator());
  auto recv =
      sbp::RecvOp::create(builder, loc, value.getType(), rankOf(from), tag);
  // It carries the producer's provenance (its name in the plan); the
  // schedule places it at its first use (scheduleProgram).
  if (std::optional<Provenance> origin = getProvenance(producer)) {
    setProvenance(recv, *origin);
    setChunk(recv, stageOf.lookup(producer));
  }
  mappings[stage].map(value, recv.getOutput());
  return recv.getOutput();
}

FailureOr<SmallVector<func::FuncOp>> StageSplitter::run() {
  if (failed(placeOps()))
    return failure();
  builder.setInsertionPoint(graph);
  for (int64_t stage = 0; stage < numStages; ++stage) {
    auto program = func::FuncOp::create(
        builder, graph.getLoc(), "stage_rank" + std::to_string(rankOf(stage)),
        graph.getFunctionType());
    if (ArrayAttr args = graph.getAllArgAttrs())
      program.setAllArgAttrs(args);
    if (ArrayAttr results = graph.getAllResultAttrs())
      program.setAllResultAttrs(results);
    Block *body = program.addEntryBlock();
    OpBuilder atEnd = OpBuilder::atBlockEnd(body);
    func::ReturnOp::create(atEnd, graph.getLoc());
    IRMapping mapping;
    for (auto [from, to] :
         llvm::zip(graph.getArguments(), body->getArguments()))
      mapping.map(from, to);
    programs.push_back(program);
    mappings.push_back(mapping);
  }

  Block &body = graph.getBody().front();
  SmallVector<AssignOp> replicatedAssigns;
  for (Operation &op : body.without_terminator()) {
    if (replicable.contains(&op)) {
      if (auto assign = dyn_cast<AssignOp>(op))
        replicatedAssigns.push_back(assign);
      continue;
    }
    int64_t chunk = stageOf.lookup(&op);
    FailureOr<Operation *> clone = cloneInto(op, stageOfChunk(chunk));
    if (failed(clone))
      return failure();
    setChunk(*clone, chunk);
    for (int64_t stage : extraStagesOf.lookup(&op))
      if (failed(cloneInto(op, stage)))
        return failure();
    if (auto copies = laterChunksOf.find(&op); copies != laterChunksOf.end())
      for (int64_t later : copies->second.chunks) {
        if (later == chunk)
          continue;
        FailureOr<Operation *> copy = cloneInto(op, stageOfChunk(later));
        if (failed(copy))
          return failure();
        setChunk(*copy, later);
      }
  }
  // Replicated state (the step count) is stored by every stage that holds
  // it, after all its reads.
  for (AssignOp assign : replicatedAssigns)
    for (int64_t stage = 0; stage < numStages; ++stage)
      if (llvm::any_of(programs[stage].getOps<VariableOp>(),
                       [&](VariableOp variable) {
                         return variable.getVarName() == assign.getVarName();
                       }) &&
          failed(cloneInto(*assign, stage)))
        return failure();

  // Outputs are whole values on the plan's rank 0 (stage 0, device 0);
  // the other programs return zeros nobody reads.
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (int64_t stage = 0; stage < numStages; ++stage) {
    SmallVector<Value> results;
    for (Value operand : ret.getOperands()) {
      if (stage == 0 && device == 0) {
        FailureOr<Value> local = valueIn(operand, 0);
        if (failed(local))
          return failure();
        results.push_back(*local);
        continue;
      }
      auto type = cast<RankedTensorType>(operand.getType());
      builder.setInsertionPoint(
          programs[stage].getBody().front().getTerminator());
      results.push_back(ConstantOp::create(
          builder, ret.getLoc(), type,
          DenseElementsAttr::get(type,
                                 builder.getZeroAttr(type.getElementType()))));
    }
    Operation *terminator = programs[stage].getBody().front().getTerminator();
    builder.setInsertionPoint(terminator);
    func::ReturnOp::create(builder, ret.getLoc(), results);
    terminator->erase();
  }
  return programs;
}

/// Orders one stage's program by the schedule. Forward and backward work of
/// each micro-batch and chunk keeps its program order; glue without
/// provenance goes with the next op that has one.
LogicalResult scheduleProgram(func::FuncOp program, int64_t stage,
                              int64_t numStages, int64_t virtualStages,
                              int64_t microbatches, StringRef schedule) {
  // Slot of each (phase, micro-batch, chunk) in this stage's order.
  SmallVector<PipelineWork> works =
      pipelineOrder(schedule, numStages, virtualStages, microbatches, stage);
  auto slotKey = [&](bool backward, int64_t m, int64_t chunk) {
    return (int64_t(backward) * microbatches + m) * virtualStages + chunk;
  };
  SmallVector<int64_t> slotOf(2 * microbatches * virtualStages, 0);
  for (auto [slot, work] : llvm::enumerate(works))
    slotOf[slotKey(work.backward, work.microbatch, work.chunk)] = slot;
  int64_t updateSlot = works.size();

  Block &body = program.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  SmallVector<int64_t> slots(ops.size(), -1);
  for (auto [index, op] : llvm::enumerate(ops)) {
    std::optional<Provenance> origin = getProvenance(op);
    if (!origin)
      continue;
    int64_t m = std::clamp<int64_t>(origin->microbatch, 0, microbatches - 1);
    int64_t chunk = std::clamp<int64_t>(origin->chunk, 0, virtualStages - 1);
    // State is stored at the end of the step, after all its reads (the
    // dropout step counter is read by every micro-batch's backward too).
    if (origin->phase == "update" || isa<AssignOp>(op))
      slots[index] = updateSlot;
    else
      slots[index] = slotOf[slotKey(origin->phase == "backward", m, chunk)];
  }
  // Glue follows the next op with a slot (what it feeds).
  int64_t next = updateSlot;
  for (int64_t index = ops.size() - 1; index >= 0; --index) {
    if (slots[index] < 0)
      slots[index] = next;
    else
      next = slots[index];
  }
  // A receive blocks the comm thread until its message arrives, so it waits
  // for its first use: a gradient contribution the next micro-batch's
  // backward accumulates, or a loss only the output reads, must not hold
  // up the receives of work that comes earlier (1F1B would deadlock). Its
  // first use, not its producer's slot: with interleaved chunks a value of
  // the backward pass may flow to a later chunk (a layer cut between two
  // chunks, recomputed in the backward), and the producer's (backward,
  // chunk) comes after its use in this rank's order; waiting for it held
  // the use and every send after it back, a cycle of waits.
  llvm::DenseMap<Operation *, int64_t> indexOf;
  for (auto [index, op] : llvm::enumerate(ops))
    indexOf[op] = index;
  for (auto [index, op] : llvm::enumerate(ops)) {
    if (!isa<sbp::RecvOp>(op))
      continue;
    int64_t firstUse = updateSlot;
    for (Operation *user : op->getUsers())
      if (auto it = indexOf.find(user); it != indexOf.end())
        firstUse = std::min(firstUse, slots[it->second]);
    slots[index] = firstUse;
  }
  // No op goes before what it reads: glue labelled with an earlier
  // micro-batch's phase (a sum of gradient contributions a later stage
  // sent) waits for its operands' slots.
  for (auto [index, op] : llvm::enumerate(ops))
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        if (auto it = indexOf.find(producer); it != indexOf.end())
          slots[index] = std::max(slots[index], slots[it->second]);
  SmallVector<int64_t> order(ops.size());
  for (int64_t i = 0, e = ops.size(); i < e; ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return slots[a] < slots[b]; });
  Operation *terminator = body.getTerminator();
  for (int64_t index : order)
    ops[index]->moveBefore(terminator);
  if (failed(verify(program)))
    return program.emitError()
           << "the " << schedule << " order breaks a dependency";
  return success();
}

/// Puts each program's receives from a peer in the order the peer sends
/// them. MPI matches a receive to its send by tag, but NCCL (CUDA plans)
/// matches them by order, and the schedules may order them differently
/// (1F1B: the loss reaches stage 0 after the gradients it is used before).
/// A receive has no operands, so it may move up: walking the sender's order
/// backwards, a receive that comes after its successor moves just before
/// it.
void reorderReceives(ArrayRef<func::FuncOp> programs) {
  llvm::DenseMap<int64_t, func::FuncOp> programOf;
  for (func::FuncOp program : programs) {
    int64_t rank = 0;
    if (!program.getSymName()
             .drop_front(strlen("main_rank"))
             .getAsInteger(10, rank))
      programOf[rank] = program;
  }
  for (auto [sender, program] : programOf) {
    // The tags each peer is sent, in order.
    llvm::MapVector<int64_t, SmallVector<int64_t>> sentTo;
    program.walk([&](sbp::SendOp send) {
      sentTo[send.getPeer()].push_back(send.getTag());
    });
    for (auto &[receiver, tags] : sentTo) {
      func::FuncOp peer = programOf.lookup(receiver);
      if (!peer)
        continue;
      llvm::DenseMap<int64_t, sbp::RecvOp> recvOf;
      peer.walk([&](sbp::RecvOp recv) {
        if (recv.getPeer() == sender)
          recvOf[recv.getTag()] = recv;
      });
      SmallVector<sbp::RecvOp> recvs;
      for (int64_t tag : tags)
        if (sbp::RecvOp recv = recvOf.lookup(tag))
          recvs.push_back(recv);
      for (int64_t k = int64_t(recvs.size()) - 2; k >= 0; --k)
        if (recvs[k]->getBlock() == recvs[k + 1]->getBlock() &&
            recvs[k + 1]->isBeforeInBlock(recvs[k]))
          recvs[k]->moveBefore(recvs[k + 1]);
    }
  }
}

struct SbpPipelineSplitPass
    : public oneflow::impl::SbpPipelineSplitBase<SbpPipelineSplitPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!isPipelineSchedule(schedule)) {
      module.emitError() << checkPipelineSchedule(schedule, stages,
                                                  virtualStages, 1);
      return signalPassFailure();
    }
    auto count =
        module->getAttrOfType<IntegerAttr>(sbp::SBPDialect::kNumRanksAttrName);
    if (!count) {
      module.emitError() << "split stages after sbp-localize";
      return signalPassFailure();
    }
    int64_t numDevices = count.getInt();
    // Shared programs (sbp-localize share-programs): device 0's program
    // serves every device, and each stage's serves that stage's ranks.
    bool shared = module->hasAttr(kRoleMeshShapeAttrName);
    SmallVector<func::FuncOp> graphs;
    int64_t maxTag = -1;
    for (int64_t device = 0; device < numDevices; ++device) {
      auto graph = module.lookupSymbol<func::FuncOp>(
          ("main_rank" + Twine(device)).str());
      if (!graph && shared && device > 0)
        break;
      if (!graph) {
        module.emitError() << "no @main_rank" << device << " program";
        return signalPassFailure();
      }
      graph.walk([&](sbp::CollectiveOp collective) {
        maxTag = std::max<int64_t>(maxTag, collective.getTag());
      });
      graphs.push_back(graph);
    }
    // Collective tags become tag * S + stage; sends come after them.
    int64_t tagStride = (maxTag + 1) * stages, nextTag = 0;
    // Micro-batches: as many as the training graph was built with.
    int64_t microbatches = 1;
    for (func::FuncOp graph : graphs)
      microbatches = std::max(microbatches, countMicrobatches(graph));
    if (std::string problem = checkPipelineSchedule(
            schedule, stages, virtualStages, microbatches);
        !problem.empty()) {
      module.emitError() << problem;
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> split;
    for (auto [device, graph] : llvm::enumerate(graphs)) {
      StageSplitter splitter(graph, device, numDevices, stages, virtualStages,
                             nextTag, tagStride);
      FailureOr<SmallVector<func::FuncOp>> programs = splitter.run();
      if (failed(programs))
        return signalPassFailure();
      for (auto [stage, program] : llvm::enumerate(*programs)) {
        if (failed(scheduleProgram(program, stage, stages, virtualStages,
                                   microbatches, schedule)))
          return signalPassFailure();
        if (shared) {
          SmallVector<int64_t> members;
          for (int64_t member = 0; member < numDevices; ++member)
            members.push_back(int64_t(stage) * numDevices + member);
          program->setAttr(kRoleMembersAttrName,
                           DenseI64ArrayAttr::get(&getContext(), members));
        }
        split.push_back(program);
      }
    }
    for (func::FuncOp graph : graphs)
      graph.erase();
    for (func::FuncOp program : split)
      program.setSymName(
          ("main_rank" + program.getSymName().drop_front(strlen("stage_rank")))
              .str());
    if (matchReceiveOrder)
      reorderReceives(split);
    module->setAttr(sbp::SBPDialect::kNumRanksAttrName,
                    IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                     numDevices * stages));
  }
};
} // namespace
