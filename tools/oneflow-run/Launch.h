//===- Launch.h - Starting the ranks of a multi-rank run --------*- C++ -*-===//

#ifndef ONEFLOW_TOOLS_ONEFLOW_RUN_LAUNCH_H
#define ONEFLOW_TOOLS_ONEFLOW_RUN_LAUNCH_H

namespace oneflow {
namespace run {

/// Set in the environment of the ranks oneflow-run launches (a rank that
/// has it but no MPI environment was not started by OpenMPI's mpirun).
constexpr const char *kLaunchedVariable = "ONEFLOW_RUN_LAUNCHED";

/// Runs this program again as `ranks` local ranks with the same arguments:
///   mpirun -q -n RANKS --oversubscribe --bind-to none [--allow-run-as-root]
///          /proc/self/exe ARGS...
/// (mpirun from PATH, or $ONEFLOW_MPIRUN; a failed job is ended without
/// mpirun's one-second grace period). Waits for it and returns the exit
/// status for oneflow-run: 0 when every rank succeeded, 124 when the
/// watchdog ended the job, 1 otherwise (the ranks printed their errors; a
/// rank that died without one is reported here).
int launchRanks(int ranks, int argc, char **argv);

} // namespace run
} // namespace oneflow

#endif // ONEFLOW_TOOLS_ONEFLOW_RUN_LAUNCH_H
