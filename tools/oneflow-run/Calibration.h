//===- Calibration.h - oneflow-run --calibrate ------------------*- C++ -*-===//

#ifndef ONEFLOW_TOOLS_ONEFLOW_RUN_CALIBRATION_H
#define ONEFLOW_TOOLS_ONEFLOW_RUN_CALIBRATION_H

#include "Options.h"

namespace oneflow {
namespace runtime {
class World;
} // namespace runtime

namespace run {

/// Measures this machine on every rank of `world` (or this process alone)
/// and writes options.calibrateFile on rank 0. Collective over `world`:
/// every rank returns the same status.
runtime::Status runCalibration(const Options &options, runtime::World *world);

} // namespace run
} // namespace oneflow

#endif // ONEFLOW_TOOLS_ONEFLOW_RUN_CALIBRATION_H
