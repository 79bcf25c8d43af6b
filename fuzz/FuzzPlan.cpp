//===- FuzzPlan.cpp - Fuzz target: the plan loader ------------------------===//
//
// plan.pb as oneflow-run loads it, up to the kernels: parse, expand the
// roles, validate (PlanGraph), plan the memory and list the variables. Any
// bytes give a checked plan or an error; a plan that validates must plan
// its memory without overflow.
//
//===----------------------------------------------------------------------===//

#include "oneflow/Runtime/MemoryPlanner.h"
#include "oneflow/Runtime/PlanGraph.h"
#include "oneflow/Runtime/Variables.h"

#include <google/protobuf/stubs/logging.h>

#include <cstdlib>

using namespace oneflow;
using namespace oneflow::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // protobuf logs every invalid UTF-8 string it parses: silence, not speed.
  static bool quiet = (google::protobuf::SetLogHandler(nullptr), true);
  (void)quiet;
  plan::Plan plan;
  if (!plan.ParseFromArray(data, int(size)))
    return 0;
  if (!expandRoles(plan).ok())
    return 0;
  Expected<PlanGraph> graph = PlanGraph::build(plan);
  if (!graph.ok())
    return 0;
  MemoryPlan memory = planMemory(*graph, MemoryPlanOptions());
  for (int64_t bytes : memory.arenaBytes)
    if (bytes < 0)
      std::abort();
  for (int64_t bytes : memory.persistentBytes)
    if (bytes < 0)
      std::abort();
  (void)planVariables(*graph);
  return 0;
}
