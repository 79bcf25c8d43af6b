//===- Calibration.cpp - oneflow-run --calibrate --------------------------===//

#include "Calibration.h"

#include "oneflow/Runtime/Calibrate.h"
#include "oneflow/Runtime/Distributed.h"
#include "oneflow/Runtime/FileUtil.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace oneflow {
namespace run {

using namespace runtime;

Status runCalibration(const Options &options, World *world) {
  if (world && options.numRanks != 0 && options.numRanks != world->size())
    return makeError("--np ", options.numRanks, ": but ", world->size(),
                     " processes were started");
  const bool root = !world || world->rank() == 0;
  // The threads a plan's ranks get (Distributed.h's budget: CPUs / local
  // ranks unless the user set OMP_NUM_THREADS / OPENBLAS_NUM_THREADS), set
  // before the kernels (and their OpenMP and BLAS libraries) load.
  applyThreadBudget(world ? world->localSize() : 1);
  const char *omp = std::getenv("OMP_NUM_THREADS");
  int threads = omp ? std::atoi(omp) : 0;

  // Fail on an unwritable destination before measuring, not after.
  Status ready = Status::success();
  std::filesystem::path dir =
      std::filesystem::path(options.calibrateFile).parent_path();
  std::error_code ec;
  if (root && !dir.empty() && !std::filesystem::is_directory(dir, ec))
    ready = makeError("cannot write '", options.calibrateFile, "': directory '",
                      dir.string(), "' does not exist");
  if (world)
    ready = world->agree(ready);
  if (!ready.ok())
    return ready;

  CalibrationOptions calibration;
  calibration.quick = options.calibrateQuick;
  calibration.threadsPerRank = threads > 0 ? threads : 1;
  calibration.progress = [](const std::string &phase) {
    std::cerr << "calibrating: " << phase << "\n";
  };
  Expected<Calibration> result = calibrate(calibration, world);
  Status status = result.ok() ? Status::success() : result.error();
  if (status.ok() && root) {
    status = writeClusterFile(options.calibrateFile, result->cluster);
    if (status.ok() && !options.calibrateTimings.empty())
      status = writeFileAtomic(options.calibrateTimings, result->timings);
    if (status.ok())
      std::cerr << result->summary << "wrote " << options.calibrateFile << "\n";
  }
  return world ? world->agree(status) : status;
}

} // namespace run
} // namespace oneflow
