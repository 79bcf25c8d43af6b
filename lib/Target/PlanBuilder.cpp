//===- PlanBuilder.cpp - The task graph of @main as a plan ----------------===//

#include "Target.h"

#include "oneflow/Cost/OpCost.h"
#include "oneflow/Cost/TaskWork.h"
#include "oneflow/Dialect/OneFlow/ElementsUtils.h"
#include "oneflow/Dialect/OneFlow/OneFlowDialect.h"
#include "oneflow/Dialect/SBP/SBPDialect.h"
#include "oneflow/Runtime/Crc32c.h"
#include "oneflow/Transforms/Passes.h"
#include "oneflow/Transforms/Provenance.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::oneflow;
namespace pb = ::oneflow::plan;

/// Persistent data is aligned for any vector load.
static constexpr size_t kWeightsAlignment = 64;

static FailureOr<pb::DataType> dataTypeOf(Type type) {
  if (type.isF32())
    return pb::F32;
  if (type.isF64())
    return pb::F64;
  if (type.isF16())
    return pb::F16;
  if (type.isBF16())
    return pb::BF16;
  if (type.isInteger(1))
    return pb::BOOL;
  if (type.isInteger(32))
    return pb::I32;
  if (type.isInteger(64))
    return pb::I64;
  return failure();
}

static int64_t bytesOf(RankedTensorType type) {
  int64_t element = type.getElementType().isInteger(1)
                        ? 1
                        : type.getElementType().getIntOrFloatBitWidth() / 8;
  return type.getNumElements() * element;
}


static FailureOr<pb::Collective::Kind> collectiveKindOf(StringRef kind) {
  if (kind == "all_reduce")
    return pb::Collective::ALL_REDUCE;
  if (kind == "all_gather")
    return pb::Collective::ALL_GATHER;
  if (kind == "reduce_scatter")
    return pb::Collective::REDUCE_SCATTER;
  if (kind == "all_to_all")
    return pb::Collective::ALL_TO_ALL;
  return failure();
}

FailureOr<BuiltPlan> mlir::oneflow::buildPlan(ArrayRef<RankGraph> graphs,
                                              int64_t numRanks) {
  BuiltPlan built;
  pb::Plan &plan = built.plan;
  plan.set_version(1);
  plan.set_num_ranks(numRanks);
  plan.set_kernel_library("kernels.so");
  plan.set_weights_file("weights.bin");

  llvm::DenseMap<Value, int64_t> regstOf;
  // Replicated parameters share their bytes in weights.bin.
  llvm::DenseMap<Attribute, int64_t> weightsOffsetOf;
  int64_t nextTask = 0;
  int64_t rank = 0;
  auto newRegst = [&](Value value, StringRef name) -> FailureOr<pb::Regst *> {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    FailureOr<pb::DataType> dtype =
        type ? dataTypeOf(type.getElementType()) : FailureOr<pb::DataType>();
    if (!type || failed(dtype))
      return emitError(value.getLoc())
             << "cannot hold " << value.getType() << " in a plan register";
    pb::Regst *regst = plan.add_regsts();
    regst->set_id(plan.regsts_size() - 1);
    regst->mutable_desc()->set_dtype(*dtype);
    for (int64_t dim : type.getShape())
      regst->mutable_desc()->add_shape(dim);
    regst->set_size_bytes(bytesOf(type));
    regst->set_num_slots(1);
    regst->set_weights_offset(-1);
    regst->set_name(name.str());
    regst->set_rank(rank);
    regstOf[value] = regst->id();
    return regst;
  };
  auto persistent = [&](Value value, ElementsAttr data,
                        StringRef name) -> FailureOr<pb::Regst *> {
    FailureOr<pb::Regst *> regst = newRegst(value, name);
    if (failed(regst))
      return failure();
    (*regst)->set_persistent(true);
    // Zeros (fresh optimizer state) need no bytes in the weights file.
    if (auto dense = dyn_cast_or_null<DenseElementsAttr>(data);
        dense && dense.isSplat() &&
        ((isa<FloatType>(dense.getElementType()) &&
          dense.getSplatValue<APFloat>().isPosZero()) ||
         (isa<IntegerType>(dense.getElementType()) &&
          dense.getSplatValue<APInt>().isZero())))
      return regst;
    if (!data)
      return regst;
    if (auto it = weightsOffsetOf.find(data); it != weightsOffsetOf.end()) {
      (*regst)->set_weights_offset(it->second);
      return regst;
    }
    // The padding belongs to the tensor before it, so the checksums cover
    // every byte of the file.
    size_t unpadded = built.weights.size();
    built.weights.resize(llvm::alignTo(unpadded, kWeightsAlignment));
    if (plan.weights_checksums_size() > 0) {
      pb::WeightsChecksum *last =
          plan.mutable_weights_checksums(plan.weights_checksums_size() - 1);
      last->set_size(built.weights.size() - last->offset());
      last->set_crc32c(::oneflow::runtime::crc32c(
          built.weights.data() + unpadded, built.weights.size() - unpadded,
          last->crc32c()));
    }
    int64_t offset = built.weights.size();
    (*regst)->set_weights_offset(offset);
    weightsOffsetOf[data] = offset;
    if (failed(appendElementBytes(data, built.weights)))
      return emitError(value.getLoc())
             << "cannot read the data of '" << name << "'";
    pb::WeightsChecksum *checksum = plan.add_weights_checksums();
    checksum->set_offset(offset);
    checksum->set_size(built.weights.size() - offset);
    checksum->set_crc32c(::oneflow::runtime::crc32c(
        built.weights.data() + offset, built.weights.size() - offset));
    return regst;
  };
  // Which piece of which logical variable a variable's regst holds.
  auto describeVariable = [&](VariableOp variable, pb::Regst &regst) {
    pb::VariableSlice *slice = regst.mutable_variable();
    auto logicalName =
        variable->getAttrOfType<StringAttr>(kLogicalNameAttrName);
    slice->set_name(logicalName ? logicalName.str()
                                : variable.getVarName().str());
    auto type = cast<RankedTensorType>(variable.getType());
    auto shape =
        variable->getAttrOfType<DenseI64ArrayAttr>(kLogicalShapeAttrName);
    auto offsets =
        variable->getAttrOfType<DenseI64ArrayAttr>(kLogicalOffsetsAttrName);
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      slice->add_global_shape(shape ? shape[dim] : type.getDimSize(dim));
      slice->add_offsets(offsets ? offsets[dim] : 0);
    }
    slice->set_trainable(variable->hasAttr(kTrainableAttrName));
  };
  // How the runtime draws a variable's piece: the stream follows the
  // logical variable, so every piece of it draws from one tensor.
  auto describeInitializer = [&](InitializerAttr init, pb::Regst &regst) {
    pb::Initializer *out = regst.mutable_initializer();
    switch (init.getDistribution()) {
    case InitDistribution::Zeros:
      out->set_kind(pb::Initializer::ZEROS);
      break;
    case InitDistribution::Ones:
      out->set_kind(pb::Initializer::ONES);
      break;
    case InitDistribution::Normal:
      out->set_kind(pb::Initializer::NORMAL);
      break;
    case InitDistribution::Uniform:
      out->set_kind(pb::Initializer::UNIFORM);
      break;
    case InitDistribution::TruncatedNormal:
      out->set_kind(pb::Initializer::TRUNCATED_NORMAL);
      break;
    }
    if (!init.isRandom())
      return;
    out->set_mean(init.getMeanValue());
    out->set_std(init.getStdValue());
    out->set_a(init.getAValue());
    out->set_b(init.getBValue());
    out->set_seed(init.getSeed());
    out->set_stream(init.getStreamFor(regst.variable().name()));
  };
  // Per rank: the tasks that read each persistent regst so far, the regst
  // of each variable, and the variables already assigned this step.
  llvm::DenseMap<int64_t, SmallVector<int64_t>> readersOf;
  llvm::StringMap<int64_t> variableRegstOf;
  // Per assigned regst: the variable's name and the op that stored it.
  llvm::DenseMap<int64_t, std::pair<std::string, Operation *>> assigned;
  // What `op` is, for messages, with the ONNX nodes it stands for: the
  // call's, else in its kernel those of the ops using the arguments held in
  // regst `id` (or, for the writer, computing its results); their phase
  // from the provenance.
  auto describe = [&](Operation *op, int64_t id, bool writes) {
    SmallVector<std::string> nodes;
    auto note = [&](Operation *of) {
      std::string name = locationName(of->getLoc());
      if (!name.empty() && !llvm::is_contained(nodes, name))
        nodes.push_back(name);
    };
    std::string what = op->getName().getStringRef().str();
    if (auto call = dyn_cast<func::CallOp>(op)) {
      what = call.getCallee().str();
      // Identical kernels are shared (repeated layers): the body's
      // locations may be another call's, the call's own come first.
      note(call);
      auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (nodes.empty() && kernel && !kernel.isDeclaration()) {
        for (auto [position, operand] : llvm::enumerate(call.getOperands()))
          if (regstOf.lookup(operand) == id)
            for (Operation *user : kernel.getArgument(position).getUsers())
              note(user);
        if (writes)
          for (Value value :
               kernel.getBody().front().getTerminator()->getOperands())
            if (Operation *def = value.getDefiningOp())
              note(def);
      }
    } else if (auto assign = dyn_cast<AssignOp>(op)) {
      what = "assign @" + assign.getVarName().str();
    }
    std::optional<Provenance> provenance = getProvenance(op);
    // Optimizer updates are located at the optimizer, not at a node.
    if (nodes.empty() && !(provenance && provenance->phase == "update"))
      note(op);
    std::string text = what;
    std::string origin;
    for (const std::string &node : nodes)
      origin += (origin.empty() ? "ONNX node '" : ", '") + node + "'";
    if (provenance)
      origin += (origin.empty() ? "" : "; ") + provenance->phase.str();
    return origin.empty() ? text : text + " (" + origin + ")";
  };
  auto noteReads = [&](Operation *op, const pb::Task &task) -> LogicalResult {
    for (int64_t id : task.in_regsts()) {
      if (!plan.regsts(id).persistent())
        continue;
      if (auto it = assigned.find(id); it != assigned.end()) {
        auto &[name, writer] = it->second;
        return op->emitError()
               << "reads variable @" << name
               << " after it was assigned in the same step: "
               << describe(op, id, /*writes=*/false) << " reads it after "
               << describe(writer, id, /*writes=*/true) << " stores it";
      }
      readersOf[id].push_back(task.id());
    }
    return success();
  };
  // What one firing of a kernel computes and moves, counted once per
  // kernel (repeated layers share theirs).
  llvm::DenseMap<Operation *, pb::TaskCost> costOf;
  auto costOfKernel = [&](func::FuncOp kernel) -> const pb::TaskCost & {
    auto [it, added] = costOf.try_emplace(kernel);
    if (!added)
      return it->second;
    KernelCost counted = estimateKernelCost(kernel);
    pb::TaskCost &cost = it->second;
    setTaskWork(counted, cost);
    cost.set_bytes(counted.bytes);
    FailureOr<pb::DataType> dtype = counted.elementType
                                        ? dataTypeOf(counted.elementType)
                                        : FailureOr<pb::DataType>(failure());
    cost.set_dtype(succeeded(dtype) ? *dtype : pb::F32);
    return cost;
  };
  auto ioName = [&](DictionaryAttr attrs, StringRef fallback) {
    if (attrs)
      if (auto name = attrs.getAs<StringAttr>("onnx.name"))
        return name.getValue().str();
    return fallback.str();
  };

  auto newTask = [&](pb::TaskKind kind, StringRef name, StringRef stream) {
    pb::Task *task = plan.add_tasks();
    task->set_id(nextTask++);
    task->set_kind(kind);
    task->set_name(name.str());
    task->set_rank(rank);
    task->set_stream(stream.str());
    return task;
  };
  // Point-to-point transfers: a SEND or RECV task on the "comm" stream,
  // named after its peer; its group is [sender, receiver] on both sides.
  auto checkPeer = [&](Operation *op, int64_t peer) -> LogicalResult {
    if (peer >= numRanks)
      return op->emitOpError()
             << "names rank " << peer << " as its peer, but the plan has "
             << numRanks << " rank" << (numRanks == 1 ? "" : "s");
    if (peer == rank)
      return op->emitOpError()
             << "names its own rank " << rank << " as its peer";
    return success();
  };
  auto newPointToPoint = [&](Operation *op, pb::Collective::Kind kind,
                             int64_t peer, int64_t tag) {
    bool isSend = kind == pb::Collective::SEND;
    std::string where = locationName(op->getLoc());
    pb::Task *task =
        newTask(pb::COLLECTIVE,
                (isSend ? "send to rank " : "recv from rank ") +
                    std::to_string(peer) + " (tag " + std::to_string(tag) +
                    (where.empty() ? "" : ", " + where) + ")",
                "comm");
    pb::Collective *spec = task->mutable_collective();
    spec->set_kind(kind);
    spec->add_group(isSend ? rank : peer);
    spec->add_group(isSend ? peer : rank);
    spec->set_peer(peer);
    spec->set_tag(tag);
    return task;
  };
  // One rank's program: its inputs, kernels, collectives and (on rank 0)
  // the graph outputs.
  auto addGraph = [&](func::FuncOp graph) -> LogicalResult {
    for (BlockArgument arg : graph.getArguments()) {
      std::string name = ioName(graph.getArgAttrDict(arg.getArgNumber()),
                                "input" + std::to_string(arg.getArgNumber()));
      FailureOr<pb::Regst *> regst = newRegst(arg, name);
      if (failed(regst))
        return failure();
      // Every rank reads the whole input; the specs name rank 0's.
      pb::Task *task = newTask(pb::INPUT, "input " + name, "io");
      task->set_io_name(name);
      task->add_out_regsts((*regst)->id());
      if (rank != graphs.front().rank)
        continue;
      pb::IOSpec *spec = plan.add_inputs();
      spec->set_name(name);
      *spec->mutable_desc() = (*regst)->desc();
      spec->set_regst((*regst)->id());
    }

    // Kernels, parameters and constants in program order.
    for (Operation &op : graph.getOps()) {
      int firstTask = plan.tasks_size();
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(&op)
              .Case([&](VariableOp variable) -> LogicalResult {
                // A piece of a program shared by ranks: the data is the
                // whole tensor, each rank loads its piece.
                auto whole =
                    variable->getAttrOfType<ElementsAttr>(kWholeValueAttrName);
                FailureOr<pb::Regst *> regst =
                    persistent(variable.getOutput(),
                               whole ? whole : variable.getInitialValueAttr(),
                               variable.getVarName());
                if (failed(regst))
                  return failure();
                std::optional<InitializerAttr> init = variable.getInitializer();
                if (init && init->getDistribution() ==
                                InitDistribution::MeshCoordinates) {
                  // Not a parameter: the rank's own coordinates (the
                  // representative's are zeros).
                  pb::Initializer *out = (*regst)->mutable_initializer();
                  out->set_kind(pb::Initializer::MESH_COORDINATES);
                  for (int64_t i = 0; i < variable.getType().getNumElements();
                       ++i)
                    out->add_values(0);
                  return success();
                }
                if (whole && (*regst)->weights_offset() >= 0)
                  for (int64_t dim :
                       cast<ShapedType>(whole.getType()).getShape()) {
                    (*regst)->add_weights_shape(dim);
                    (*regst)->add_weights_piece_offsets(0);
                  }
                if (auto splits =
                        variable->getAttrOfType<ArrayAttr>(kMeshSplitsAttrName))
                  for (Attribute axes : splits) {
                    pb::MeshSplit *split = (*regst)->add_mesh_splits();
                    for (int64_t axis :
                         cast<DenseI64ArrayAttr>(axes).asArrayRef())
                      split->add_mesh_axes(axis);
                  }
                describeVariable(variable, **regst);
                if (init)
                  describeInitializer(*init, **regst);
                variableRegstOf[variable.getVarName()] = (*regst)->id();
                return success();
              })
              .Case([&](ConstantOp constant) {
                return persistent(constant.getOutput(), constant.getValue(),
                                  "constant " +
                                      std::to_string(plan.regsts_size()));
              })
              .Case([&](AssignOp assign) -> LogicalResult {
                auto it = variableRegstOf.find(assign.getVarName());
                if (it == variableRegstOf.end())
                  return assign.emitOpError()
                         << "stores to @" << assign.getVarName()
                         << ", which this rank's graph does not read before";
                int64_t target = it->second,
                        source = regstOf.at(assign.getValue());
                // The kernel computing the value updated it in place.
                if (source == target)
                  return success();
                if (plan.regsts(target).desc().SerializeAsString() !=
                    plan.regsts(source).desc().SerializeAsString())
                  return assign.emitOpError()
                         << "stores a value whose type differs from @"
                         << assign.getVarName() << "'s";
                pb::Task *task =
                    newTask(pb::ASSIGN, "assign " + assign.getVarName().str(),
                            "compute");
                task->add_in_regsts(source);
                task->add_out_regsts(target);
                // Every read of the old value comes first.
                for (int64_t reader : readersOf[target])
                  task->add_wait_for(reader);
                assigned[target] = {assign.getVarName().str(), assign};
                return noteReads(assign, *task);
              })
              .Case([&](func::CallOp call) -> LogicalResult {
                std::string where = locationName(call.getLoc());
                pb::Task *task =
                    newTask(pb::KERNEL,
                            call.getCallee().str() +
                                (where.empty() ? "" : " (" + where + ")"),
                            "compute");
                task->set_kernel_symbol(call.getCallee().str());
                for (Value operand : call.getOperands())
                  task->add_in_regsts(regstOf.at(operand));
                if (failed(noteReads(call, *task)))
                  return failure();
                auto kernel =
                    SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                        call, call.getCalleeAttr());
                if (kernel)
                  *task->mutable_cost() = costOfKernel(kernel);
                auto inPlace = kernel
                                   ? kernel->getAttrOfType<DenseI64ArrayAttr>(
                                         kUpdatesInPlaceAttrName)
                                   : DenseI64ArrayAttr();
                for (auto [index, result] :
                     llvm::enumerate(call.getResults())) {
                  // Written into the variable it reads: after every other
                  // read of the old value, and no read may follow.
                  if (inPlace && inPlace[index] >= 0) {
                    int64_t target =
                        regstOf.at(call.getOperand(inPlace[index]));
                    if (!plan.regsts(target).persistent())
                      return call.emitOpError()
                             << "updates argument #" << inPlace[index]
                             << " in place, which is not a variable";
                    for (int64_t reader : readersOf[target])
                      if (reader != task->id() &&
                          !llvm::is_contained(task->wait_for(), reader))
                        task->add_wait_for(reader);
                    assigned[target] = {plan.regsts(target).name(), call};
                    regstOf[result] = target;
                    task->add_out_regsts(target);
                    continue;
                  }
                  FailureOr<pb::Regst *> regst = newRegst(
                      result, task->name() + "#" + std::to_string(index));
                  if (failed(regst))
                    return failure();
                  task->add_out_regsts((*regst)->id());
                }
                return success();
              })
              .Case([&](sbp::CollectiveOp collective) -> LogicalResult {
                FailureOr<pb::Collective::Kind> kind =
                    collectiveKindOf(collective.getKind());
                if (failed(kind))
                  return collective.emitOpError() << "has no plan form";
                std::string where = locationName(collective.getLoc());
                pb::Task *task =
                    newTask(pb::COLLECTIVE,
                            collective.getKind().str() +
                                (where.empty() ? "" : " (" + where + ")"),
                            "comm");
                pb::Collective *spec = task->mutable_collective();
                spec->set_kind(*kind);
                for (int64_t member : collective.getGroup())
                  spec->add_group(member);
                spec->set_axis(collective.getAxis());
                spec->set_concat_axis(collective.getConcatAxis());
                spec->set_tag(collective.getTag());
                if (std::optional<int64_t> axis = collective.getMeshAxis())
                  spec->set_mesh_axis(*axis);
                task->add_in_regsts(regstOf.at(collective.getInput()));
                if (failed(noteReads(collective, *task)))
                  return failure();
                FailureOr<pb::Regst *> regst =
                    newRegst(collective.getOutput(), task->name());
                if (failed(regst))
                  return failure();
                task->add_out_regsts((*regst)->id());
                return success();
              })
              .Case([&](sbp::SendOp send) -> LogicalResult {
                if (failed(checkPeer(send, send.getPeer())))
                  return failure();
                pb::Task *task = newPointToPoint(send, pb::Collective::SEND,
                                                 send.getPeer(), send.getTag());
                task->add_in_regsts(regstOf.at(send.getInput()));
                return noteReads(send, *task);
              })
              .Case([&](sbp::RecvOp recv) -> LogicalResult {
                if (failed(checkPeer(recv, recv.getPeer())))
                  return failure();
                pb::Task *task = newPointToPoint(recv, pb::Collective::RECV,
                                                 recv.getPeer(), recv.getTag());
                FailureOr<pb::Regst *> regst =
                    newRegst(recv.getOutput(), task->name());
                if (failed(regst))
                  return failure();
                task->add_out_regsts((*regst)->id());
                return success();
              })
              .Case([&](func::ReturnOp ret) {
                // Outputs are whole values, written by rank 0 alone.
                if (rank != graphs.front().rank)
                  return success();
                for (auto [index, operand] :
                     llvm::enumerate(ret.getOperands())) {
                  std::string name = ioName(graph.getResultAttrDict(index),
                                            "output" + std::to_string(index));
                  pb::Task *task = newTask(pb::OUTPUT, "output " + name, "io");
                  task->set_io_name(name);
                  task->add_in_regsts(regstOf.at(operand));
                  pb::IOSpec *spec = plan.add_outputs();
                  spec->set_name(name);
                  *spec->mutable_desc() =
                      plan.regsts(regstOf.at(operand)).desc();
                  spec->set_regst(regstOf.at(operand));
                  if (auto of = graph.getResultAttrOfType<StringAttr>(
                          index, kExtentOfAttrName)) {
                    spec->set_extent_of(of.str());
                    if (auto axis = graph.getResultAttrOfType<IntegerAttr>(
                            index, kExtentAxisAttrName))
                      spec->set_extent_axis(axis.getInt());
                  }
                }
                return success();
              })
              .Default([&](Operation *other) {
                return other->emitOpError()
                       << "cannot be a task of the plan (kernels must be "
                          "outlined first)";
              });
      if (failed(result))
        return failure();
      // Training work says what it is, for traces: "fwd mb2 ...", and
      // "fwd mb2 v1 ..." in chunk 1 of an interleaved pipeline's rank.
      if (std::optional<Provenance> origin = getProvenance(&op))
        for (int i = firstTask; i < plan.tasks_size(); ++i) {
          pb::Task *task = plan.mutable_tasks(i);
          std::string work =
              origin->phase == "update"
                  ? std::string("update ")
                  : (origin->phase == "forward" ? "fwd mb" : "bwd mb") +
                        std::to_string(origin->microbatch) + " " +
                        (origin->chunk
                             ? "v" + std::to_string(origin->chunk) + " "
                             : "");
          task->set_name(work + task->name());
        }
    }
    return success();
  };

  for (const RankGraph &rankGraph : graphs) {
    rank = rankGraph.rank;
    readersOf.clear();
    variableRegstOf.clear();
    assigned.clear();
    if (failed(addGraph(rankGraph.graph)))
      return failure();
    // A program every rank of a role runs.
    func::FuncOp program = rankGraph.graph;
    if (auto members =
            program->getAttrOfType<DenseI64ArrayAttr>(kRoleMembersAttrName)) {
      if (members.empty() || members[0] != rank)
        return program.emitError()
               << "a shared program's first member must be its own rank "
               << rank;
      pb::Role *role = plan.add_roles();
      for (int64_t member : members.asArrayRef())
        role->add_members(member);
    }
  }
  if (plan.roles_size() > 0) {
    auto module =
        func::FuncOp(graphs.front().graph)->getParentOfType<ModuleOp>();
    auto shape =
        module->getAttrOfType<DenseI64ArrayAttr>(kRoleMeshShapeAttrName);
    if (!shape || plan.roles_size() != int64_t(graphs.size()))
      return module.emitError()
             << "shared programs need the mesh shape and a role for every "
                "program";
    for (int64_t size : shape.asArrayRef())
      plan.add_mesh_shape(size);
  }
  return built;
}
