//===- DataFeeder.h - Training data, batch by batch -------------*- C++ -*-===//
//
// Feeds graph inputs from data sets whose axis 0 indexes samples: step i
// takes the B samples at positions i*B .. i*B+B-1 of an endless stream that
// runs through the samples epoch after epoch (so a batch may end one epoch
// and start the next). Without shuffling every epoch is in file order;
// with shuffling, epoch e is permutation(e) of the sample indices:
//
//   state = seed XOR (e * 0x9E3779B97F4A7C15)       (64-bit arithmetic)
//   next() = SplitMix64: state += 0x9E3779B97F4A7C15;
//            z = state; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
//            z = (z ^ (z >> 27)) * 0x94D049BB133111EB; return z ^ (z >> 31)
//   p = [0, 1, ..., N-1]; for i = N-1 down to 1: swap(p[i], p[next() % (i+1)])
//
// Every input fed this way uses the same sample indices in a step, so the
// samples of x and of its labels stay together. The order depends only on
// the seed, N, B and the step: a run that continues from a checkpoint
// (RunOptions::firstStep) takes the batches the uninterrupted run would
// have taken.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_DATAFEEDER_H
#define ONEFLOW_RUNTIME_DATAFEEDER_H

#include "oneflow/Runtime/Executor.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace oneflow {
namespace runtime {

/// A data set read from a file, for the graph input of its name.
struct DataFile {
  std::string path;
  HostTensor tensor;
};

/// Checks data sets against the plan's inputs, all problems at once (one
/// per line): each names an input of the plan that is not a scalar; a
/// sample (the tensor without axis 0) has the dtype and shape of the input
/// without axis 0; every data set has the same number of samples (>= 1);
/// the batch size equals axis 0 of every input fed and Plan.batch_size when
/// set. `batch` 0 is inferred (Plan.batch_size, else axis 0 of the inputs
/// fed) and returned there.
Status checkTrainingData(const plan::Plan &plan,
                         const std::map<std::string, DataFile> &data,
                         int64_t &batch);

/// The permutation of epoch `epoch` of `samples` sample indices (see above).
std::vector<int64_t> shufflePermutation(uint64_t seed, int64_t epoch,
                                        int64_t samples);

class DataFeeder {
public:
  /// `data`: per graph input, the whole data set (axis 0: samples; every
  /// tensor has the same number N >= 1 of them). `batch` >= 1.
  static Expected<std::shared_ptr<DataFeeder>>
  create(std::map<std::string, HostTensor> data, int64_t batch, bool shuffle,
         uint64_t seed);

  int64_t numSamples() const { return samples; }
  int64_t batchSize() const { return batch; }
  bool feeds(const std::string &input) const { return data.count(input); }

  /// The sample indices of `step`'s batch.
  std::vector<int64_t> batchIndices(int64_t step);

  /// Writes `input`'s batch of `step` into `dst` (`bytes`: B samples).
  /// Thread-safe.
  Status fill(const std::string &input, int64_t step, void *dst, int64_t bytes);

  /// A feed that serves the inputs of this feeder and takes the others
  /// from `constants` (the same value every step).
  static InputFeed feed(std::shared_ptr<DataFeeder> feeder,
                        std::map<std::string, HostTensor> constants);

private:
  DataFeeder() = default;
  const std::vector<int64_t> &permutation(int64_t epoch);

  std::map<std::string, HostTensor> data;
  int64_t samples = 0, batch = 1;
  bool shuffle = false;
  uint64_t seed = 0;
  std::mutex mutex;
  // The permutations of the last epochs used (steps of one epoch, and of
  // the next, may be fed concurrently).
  std::map<int64_t, std::vector<int64_t>> permutations;
};

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_DATAFEEDER_H
