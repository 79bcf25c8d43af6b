//===- Launch.cpp - Starting the ranks of a multi-rank run ----------------===//

#include "Launch.h"

#include "oneflow/Runtime/Distributed.h"
#include "oneflow/Runtime/Watchdog.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace oneflow {
namespace run {

namespace {

volatile sig_atomic_t childPid = 0;

/// Termination requests go to mpirun, which passes them on to the ranks.
void forwardSignal(int signal) {
  if (childPid > 0)
    kill(pid_t(childPid), signal);
}

} // namespace

int launchRanks(int ranks, int argc, char **argv) {
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    self = argv[0];
  const char *override = std::getenv("ONEFLOW_MPIRUN");
  std::string mpirun = override && *override ? override : "mpirun";

  std::vector<std::string> args = {mpirun, "-q", "-n", std::to_string(ranks),
                                   "--oversubscribe"};
  if (int cpus = runtime::availableCpus(); ranks > cpus) {
    setenv(runtime::kJobCpusVariable, std::to_string(cpus).c_str(), 1);
    // More ranks than CPUs: rank r runs on CPU r mod cpus. A rank that
    // waits in a collective yields its CPU, and the kernel hands it to a
    // rank queued on that CPU; unbound, the waiting rank's queue was often
    // empty, so it spun while its partner sat behind another rank's time
    // slice on the other CPU (4 ranks on 2 CPUs: 25-39 ms per GPT step
    // unbound, 25-26 ms bound; a real-time time slice is 100 ms).
    for (const char *arg : {"--use-hwthread-cpus", "--map-by", "hwthread",
                            "--bind-to", "hwthread:overload-allowed"})
      args.push_back(arg);
  } else {
    // Each rank's OpenMP and BLAS threads spread over the CPUs it shares.
    args.push_back("--bind-to");
    args.push_back("none");
  }
  if (geteuid() == 0)
    args.push_back("--allow-run-as-root");
  args.push_back(self);
  for (int i = 1; i < argc; ++i)
    args.push_back(argv[i]);
  std::vector<char *> cargs;
  for (std::string &arg : args)
    cargs.push_back(arg.data());
  cargs.push_back(nullptr);

  setenv(kLaunchedVariable, "1", 1);
  // When a rank fails, mpirun ends the others with SIGTERM and waits a
  // second before SIGKILL; ranks need no grace period (outputs are written
  // atomically, after success only): end a failed job at once.
  setenv("OMPI_MCA_odls_base_sigkill_timeout", "0", /*overwrite=*/0);
  // Blocked receives yield their core instead of spinning: local ranks
  // often outnumber the cores, and a spinning receiver starves the rank it
  // waits for (a 2-stage pipeline on a busy 2-core machine ran 4-7x slower).
  setenv("OMPI_MCA_mpi_yield_when_idle", "1", /*overwrite=*/0);
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, mpirun.c_str(), nullptr, nullptr, cargs.data(),
                        environ);
  if (rc != 0) {
    std::cerr << "error: cannot launch " << ranks << " ranks: '" << mpirun
              << "': " << std::strerror(rc)
              << (rc == ENOENT ? " (install OpenMPI's openmpi-bin, or start "
                                 "the ranks with mpirun yourself)"
                               : "")
              << "\n";
    return 1;
  }
  childPid = pid;
  struct sigaction forward = {};
  forward.sa_handler = forwardSignal;
  sigemptyset(&forward.sa_mask);
  sigaction(SIGTERM, &forward, nullptr);
  sigaction(SIGHUP, &forward, nullptr);
  // Ctrl-C reaches mpirun (same process group): wait for it to finish.
  signal(SIGINT, SIG_IGN);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      std::cerr << "error: waiting for mpirun: " << std::strerror(errno)
                << "\n";
      return 1;
    }
  childPid = 0;
  if (WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    // The ranks reported their errors ("error: ..."), or the watchdog its
    // stall: keep its distinct status.
    if (code == 0 || code == 1 || code == runtime::kWatchdogExitCode)
      return code;
    std::cerr << "error: a rank failed: mpirun exited with status " << code
              << "\n";
    return 1;
  }
  if (WIFSIGNALED(status))
    std::cerr << "error: mpirun was killed by signal " << WTERMSIG(status)
              << " (" << strsignal(WTERMSIG(status)) << ")\n";
  return 1;
}

} // namespace run
} // namespace oneflow
