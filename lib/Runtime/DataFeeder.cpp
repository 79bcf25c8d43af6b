//===- DataFeeder.cpp - Training data, batch by batch ---------------------===//

#include "oneflow/Runtime/DataFeeder.h"

#include <cstring>
#include <numeric>

namespace oneflow {
namespace runtime {

namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    state += kGolden;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

} // namespace

namespace {

std::vector<int64_t> withoutAxis0(const std::vector<int64_t> &shape) {
  return std::vector<int64_t>(shape.begin() + (shape.empty() ? 0 : 1),
                              shape.end());
}

} // namespace

Status checkTrainingData(const plan::Plan &plan,
                         const std::map<std::string, DataFile> &data,
                         int64_t &batch) {
  std::vector<std::string> problems;
  std::map<std::string, const plan::IOSpec *> specs;
  for (const plan::IOSpec &spec : plan.inputs())
    specs[spec.name()] = &spec;
  const bool given = batch > 0;
  if (!given)
    batch = plan.batch_size();
  if (given && plan.batch_size() > 0 && batch != plan.batch_size())
    problems.push_back("--batch " + std::to_string(batch) +
                       ": the plan's batch size is " +
                       std::to_string(plan.batch_size()));
  const DataFile *first = nullptr;
  for (const auto &[name, file] : data) {
    const std::string where = "--data " + name + "=" + file.path;
    auto spec = specs.find(name);
    if (spec == specs.end()) {
      problems.push_back(where + ": the plan has no input '" + name +
                         "' (its inputs: " + describePlanInputs(plan) + ")");
      continue;
    }
    const plan::TensorDesc &desc = spec->second->desc();
    std::vector<int64_t> shape = shapeOf(desc);
    if (shape.empty()) {
      problems.push_back(where + ": input '" + name + "' is a scalar (" +
                         describeTensor(desc) + "): it takes no batches");
      continue;
    }
    const HostTensor &tensor = file.tensor;
    if (tensor.shape.empty()) {
      problems.push_back(where + ": the file holds a scalar (" +
                         tensor.describe() + "), not samples along axis 0");
      continue;
    }
    if (tensor.dtype != desc.dtype() ||
        withoutAxis0(tensor.shape) != withoutAxis0(shape))
      problems.push_back(
          where + ": input '" + name + "' takes samples of " +
          describeTensor(desc.dtype(), withoutAxis0(shape)) + " (" +
          describeTensor(desc) + " per batch of " + std::to_string(shape[0]) +
          "), the file holds samples of " +
          describeTensor(tensor.dtype, withoutAxis0(tensor.shape)) + " (" +
          tensor.describe() + ")");
    if (batch <= 0)
      batch = shape[0]; // Inferred from the first input fed.
    if (batch != shape[0])
      problems.push_back(
          (given ? "--batch " + std::to_string(batch)
                 : "the batch size " + std::to_string(batch) +
                       (plan.batch_size() > 0 ? " (the plan's)"
                                              : " (of the other inputs)")) +
          ": input '" + name + "' is " + describeTensor(desc) +
          ", a batch of " + std::to_string(shape[0]) + " samples");
    if (tensor.shape[0] < 1)
      problems.push_back(where + ": the file holds no samples (" +
                         tensor.describe() + ")");
    if (!first)
      first = &file;
    else if (first->tensor.shape[0] != tensor.shape[0])
      problems.push_back(
          "--data files have different sample counts: " + first->path +
          " has " + std::to_string(first->tensor.shape[0]) + ", " + file.path +
          " has " + std::to_string(tensor.shape[0]));
  }
  return joinProblems(problems);
}

std::vector<int64_t> shufflePermutation(uint64_t seed, int64_t epoch,
                                        int64_t samples) {
  std::vector<int64_t> order(size_t(std::max<int64_t>(samples, 0)));
  std::iota(order.begin(), order.end(), int64_t(0));
  SplitMix64 random{seed ^ (uint64_t(epoch) * kGolden)};
  for (int64_t i = samples - 1; i >= 1; --i)
    std::swap(order[size_t(i)], order[size_t(random.next() % uint64_t(i + 1))]);
  return order;
}

Expected<std::shared_ptr<DataFeeder>>
DataFeeder::create(std::map<std::string, HostTensor> data, int64_t batch,
                   bool shuffle, uint64_t seed) {
  if (data.empty())
    return makeError("no training data");
  if (batch < 1)
    return makeError("the batch size is ", batch, " (must be >= 1)");
  int64_t samples = -1;
  for (const auto &[name, tensor] : data) {
    if (tensor.shape.empty())
      return makeError("data for input '", name, "' is a scalar (",
                       tensor.describe(), "): axis 0 must index samples");
    if (samples < 0)
      samples = tensor.shape[0];
    else if (tensor.shape[0] != samples)
      return makeError("the data sets have different sample counts");
  }
  if (samples < 1)
    return makeError("the data sets have no samples");
  std::shared_ptr<DataFeeder> feeder(new DataFeeder());
  feeder->data = std::move(data);
  feeder->samples = samples;
  feeder->batch = batch;
  feeder->shuffle = shuffle;
  feeder->seed = seed;
  return feeder;
}

const std::vector<int64_t> &DataFeeder::permutation(int64_t epoch) {
  // Called with the mutex held.
  auto it = permutations.find(epoch);
  if (it != permutations.end())
    return it->second;
  // Keep a few epochs: concurrent feeds are at most a few steps apart.
  while (permutations.size() >= 4)
    permutations.erase(permutations.begin());
  return permutations.emplace(epoch, shufflePermutation(seed, epoch, samples))
      .first->second;
}

std::vector<int64_t> DataFeeder::batchIndices(int64_t step) {
  std::vector<int64_t> indices(static_cast<size_t>(batch));
  std::lock_guard<std::mutex> lock(mutex);
  for (int64_t j = 0; j < batch; ++j) {
    // Positions in the endless stream; steps * B fits int64 for any run.
    int64_t position = step * batch + j;
    int64_t epoch = position / samples, index = position % samples;
    indices[size_t(j)] = shuffle ? permutation(epoch)[size_t(index)] : index;
  }
  return indices;
}

Status DataFeeder::fill(const std::string &input, int64_t step, void *dst,
                        int64_t bytes) {
  auto it = data.find(input);
  if (it == data.end())
    return makeError("no training data for input '", input, "'");
  const HostTensor &tensor = it->second;
  const int64_t sampleBytes = int64_t(tensor.data.size()) / samples;
  if (bytes != sampleBytes * batch)
    return makeError("input '", input, "' takes ", bytes, " bytes, a batch of ",
                     batch, " samples of its data is ", sampleBytes * batch);
  char *out = static_cast<char *>(dst);
  for (int64_t index : batchIndices(step)) {
    std::memcpy(out, tensor.data.data() + index * sampleBytes,
                size_t(sampleBytes));
    out += sampleBytes;
  }
  return Status::success();
}

InputFeed DataFeeder::feed(std::shared_ptr<DataFeeder> feeder,
                           std::map<std::string, HostTensor> constants) {
  InputFeed rest = feedTensors({std::move(constants)});
  return [feeder, rest](const std::string &name, int64_t step, void *dst,
                        int64_t bytes) -> Status {
    if (feeder && feeder->feeds(name))
      return feeder->fill(name, step, dst, bytes);
    return rest(name, step, dst, bytes);
  };
}

} // namespace runtime
} // namespace oneflow
