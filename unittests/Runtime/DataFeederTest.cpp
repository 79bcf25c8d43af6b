//===- DataFeederTest.cpp - Training data, batch by batch -----------------===//

#include "TestSupport.h"

#include "oneflow/Runtime/DataFeeder.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <numeric>
#include <set>

using namespace oneflow;
using namespace oneflow::runtime;
using namespace oneflow::runtime::test;

namespace {

/// Samples of `shape` (without axis 0), sample i filled with i*100 + j.
HostTensor samples(int64_t n, std::vector<int64_t> sampleShape) {
  std::vector<int64_t> shape = {n};
  shape.insert(shape.end(), sampleShape.begin(), sampleShape.end());
  HostTensor tensor(plan::F32, shape);
  int64_t per = numElements(sampleShape);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < per; ++j)
      tensor.as<float>()[i * per + j] = float(i * 100 + j);
  return tensor;
}

HostTensor labels(int64_t n) {
  HostTensor tensor(plan::I64, {n});
  for (int64_t i = 0; i < n; ++i)
    tensor.as<int64_t>()[i] = 1000 + i;
  return tensor;
}

std::shared_ptr<DataFeeder> feeder(int64_t n, int64_t batch, bool shuffle,
                                   uint64_t seed = 0) {
  auto created = DataFeeder::create({{"x", samples(n, {3})}, {"y", labels(n)}},
                                    batch, shuffle, seed);
  EXPECT_TRUE(created.ok()) << created.error().message();
  return created.ok() ? created.take() : nullptr;
}

TEST(DataFeeder, TakesBatchesInOrderAndWraps) {
  auto data = feeder(5, 2, /*shuffle=*/false);
  ASSERT_TRUE(data);
  EXPECT_EQ(data->numSamples(), 5);
  EXPECT_EQ(data->batchIndices(0), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(data->batchIndices(1), (std::vector<int64_t>{2, 3}));
  // The third batch ends the epoch and starts the next one.
  EXPECT_EQ(data->batchIndices(2), (std::vector<int64_t>{4, 0}));
  EXPECT_EQ(data->batchIndices(3), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(data->batchIndices(5), (std::vector<int64_t>{0, 1}));
  // A batch larger than the data set wraps within itself.
  auto big = feeder(3, 7, false);
  EXPECT_EQ(big->batchIndices(1), (std::vector<int64_t>{1, 2, 0, 1, 2, 0, 1}));
}

TEST(DataFeeder, FillsEveryInputWithTheSameSamples) {
  auto data = feeder(5, 2, true, 7);
  ASSERT_TRUE(data);
  for (int64_t step = 0; step < 6; ++step) {
    std::vector<int64_t> indices = data->batchIndices(step);
    float x[6];
    int64_t y[2];
    ASSERT_TRUE(data->fill("x", step, x, sizeof(x)).ok());
    ASSERT_TRUE(data->fill("y", step, y, sizeof(y)).ok());
    for (int j = 0; j < 2; ++j) {
      EXPECT_EQ(y[j], 1000 + indices[j]);
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(x[j * 3 + k], float(indices[j] * 100 + k));
    }
  }
  float x[4];
  Status status = data->fill("x", 0, x, sizeof(x));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("input 'x' takes 16 bytes, a batch of 2 "
                                  "samples of its data is 24"),
            std::string::npos)
      << status.message();
  EXPECT_FALSE(data->fill("z", 0, x, sizeof(x)).ok());

  // Inputs without data come from the constants.
  InputFeed feed = DataFeeder::feed(data, {{"c", vec({1, 2, 3, 4})}});
  float c[4];
  ASSERT_TRUE(feed("c", 3, c, sizeof(c)).ok());
  EXPECT_EQ(c[3], 4);
  ASSERT_TRUE(feed("y", 3, c, 16).ok());
  EXPECT_FALSE(feed("missing", 0, c, sizeof(c)).ok());
}

TEST(DataFeeder, ShufflesDeterministically) {
  // The documented generator (DataFeeder.h), as computed independently in
  // Python.
  EXPECT_EQ(shufflePermutation(0, 0, 10),
            (std::vector<int64_t>{6, 3, 2, 9, 8, 1, 4, 7, 0, 5}));
  EXPECT_EQ(shufflePermutation(0, 1, 10),
            (std::vector<int64_t>{8, 7, 6, 5, 3, 9, 2, 4, 1, 0}));
  EXPECT_EQ(shufflePermutation(42, 0, 10),
            (std::vector<int64_t>{0, 9, 5, 8, 6, 4, 7, 2, 1, 3}));

  const int64_t n = 10, batch = 4;
  auto a = feeder(n, batch, true, 3), b = feeder(n, batch, true, 3);
  auto c = feeder(n, batch, true, 4);
  std::vector<int64_t> streamA, streamC;
  for (int64_t step = 0; step < 10; ++step) {
    std::vector<int64_t> indices = a->batchIndices(step);
    EXPECT_EQ(indices, b->batchIndices(step)) << "step " << step;
    streamA.insert(streamA.end(), indices.begin(), indices.end());
    indices = c->batchIndices(step);
    streamC.insert(streamC.end(), indices.begin(), indices.end());
  }
  EXPECT_NE(streamA, streamC); // Another seed, another order.
  // Each epoch is a permutation, and epochs differ.
  for (int epoch = 0; epoch < 4; ++epoch) {
    std::vector<int64_t> part(streamA.begin() + epoch * n,
                              streamA.begin() + (epoch + 1) * n);
    EXPECT_EQ(part, shufflePermutation(3, epoch, n));
    std::sort(part.begin(), part.end());
    std::vector<int64_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(part, all) << "epoch " << epoch;
  }
  EXPECT_NE(shufflePermutation(3, 0, n), shufflePermutation(3, 1, n));
  // A fresh feeder asked for a late step (a run resumed from a checkpoint)
  // takes the same batch as one that went through every step before.
  auto resumed = feeder(n, batch, true, 3);
  EXPECT_EQ(resumed->batchIndices(9),
            std::vector<int64_t>(streamA.begin() + 36, streamA.end()));
}

TEST(DataFeeder, CreateErrors) {
  auto scalar =
      DataFeeder::create({{"x", HostTensor(plan::F32, {})}}, 1, false, 0);
  ASSERT_FALSE(scalar.ok());
  auto counts = DataFeeder::create({{"x", samples(4, {2})}, {"y", labels(3)}},
                                   2, false, 0);
  ASSERT_FALSE(counts.ok());
  EXPECT_NE(counts.error().message().find("different sample counts"),
            std::string::npos);
  EXPECT_FALSE(DataFeeder::create({{"x", samples(0, {2})}}, 1, false, 0).ok());
  EXPECT_FALSE(DataFeeder::create({{"x", samples(2, {2})}}, 0, false, 0).ok());
}

/// A plan with inputs x f32[4,3] (a batch of 4 samples of f32[3]), y i64[4]
/// and a constant c f32[2].
plan::Plan dataPlan(int64_t batchSize = 0) {
  PlanBuilder b;
  b.input("x", b.regst("x", plan::F32, {4, 3}));
  b.input("y", b.regst("y", plan::I64, {4}));
  b.input("c", b.regst("c", plan::F32, {2}));
  b.input("s", b.regst("s", plan::F32, {}));
  b.plan.set_batch_size(batchSize);
  return b.plan;
}

std::string dataProblems(const std::map<std::string, DataFile> &data,
                         int64_t &batch, int64_t planBatch = 0) {
  Status status = checkTrainingData(dataPlan(planBatch), data, batch);
  EXPECT_FALSE(status.ok());
  return status.message();
}

TEST(DataFeeder, ChecksDataAgainstThePlan) {
  std::map<std::string, DataFile> good = {{"x", {"x.npy", samples(10, {3})}},
                                          {"y", {"y.npy", labels(10)}}};
  int64_t batch = 0;
  ASSERT_TRUE(checkTrainingData(dataPlan(), good, batch).ok());
  EXPECT_EQ(batch, 4); // Inferred from the inputs.
  batch = 4;
  EXPECT_TRUE(checkTrainingData(dataPlan(4), good, batch).ok());

  batch = 5;
  std::string message = dataProblems(good, batch);
  EXPECT_NE(message.find("--batch 5: input 'x' is f32[4,3], a batch of 4 "
                         "samples"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--batch 5: input 'y' is i64[4], a batch of 4 "
                         "samples"),
            std::string::npos)
      << message;
  batch = 5;
  message = dataProblems(good, batch, /*planBatch=*/4);
  EXPECT_NE(message.find("--batch 5: the plan's batch size is 4"),
            std::string::npos)
      << message;

  std::map<std::string, DataFile> bad = {{"x", {"x.npy", samples(10, {2})}},
                                         {"y", {"y.npy", labels(9)}},
                                         {"s", {"s.npy", samples(10, {})}},
                                         {"nope", {"n.npy", labels(10)}}};
  batch = 0;
  message = dataProblems(bad, batch);
  EXPECT_NE(message.find("--data x=x.npy: input 'x' takes samples of f32[3] "
                         "(f32[4,3] per batch of 4), the file holds samples "
                         "of f32[2] (f32[10,2])"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--data files have different sample counts: x.npy "
                         "has 10, y.npy has 9"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--data s=s.npy: input 's' is a scalar (f32[]): it "
                         "takes no batches"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--data nope=n.npy: the plan has no input 'nope' "
                         "(its inputs: 'x' f32[4,3], 'y' i64[4], 'c' f32[2], "
                         "'s' f32[])"),
            std::string::npos)
      << message;

  // The dtype of a sample counts too.
  std::map<std::string, DataFile> ints = {{"x", {"x.npy", labels(10)}}};
  batch = 0;
  message = dataProblems(ints, batch);
  EXPECT_NE(message.find("takes samples of f32[3] (f32[4,3] per batch of 4), "
                         "the file holds samples of i64[] (i64[10])"),
            std::string::npos)
      << message;
}

} // namespace
