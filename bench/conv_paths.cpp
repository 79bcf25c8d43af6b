//===- conv_paths.cpp - oneDNN against im2col per convolution shape -------===//
//
// Times each f32 conv2d shape read from stdin on both paths of the kernel
// library (oneDNN's primitive with its reorders, the weights' on every call
// as for a training plan and once as for constant weights; and im2col +
// GEMM, one GEMM over the batch, or the direct depthwise / pointwise loops)
// and prints them, with the shape and the path the library's rule takes,
// so that the rule (preferOneDnn, batchesImages) can be checked or
// re-derived on a machine. One line per shape:
//   name n c h w o kh kw oh ow sh sw pt pl dh dw groups bias
// (bench/conv_shapes.py writes those of the torchvision models).
//
//   oneflow-conv-paths-bench [--threads N] [--repeats R] < shapes.txt
//
//===----------------------------------------------------------------------===//

#include "Conv.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <list>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace oneflow::kernels;

namespace {
template <typename F> double bestMilliseconds(int repeats, F &&run) {
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start)
                              .count());
  }
  return best;
}
} // namespace

int main(int argc, char **argv) {
  int threads = 1, repeats = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc)
      repeats = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr,
                   "usage: %s [--threads N] [--repeats R] < shapes.txt\n",
                   argv[0]);
      return 2;
    }
  }
  omp_set_num_threads(threads);
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::printf("name n c h w o kh kw oh ow sh sw pt pl dh dw groups bias "
              "onednn_ms onednn_constant_ms im2col_ms rule\n");
  // The constant-weights path keys its blocked copies by address: every
  // shape's weights live to the end.
  std::list<std::vector<float>> weights;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string name;
    ConvShape s;
    int64_t bias;
    if (!(in >> name >> s.n >> s.c >> s.h >> s.w >> s.o >> s.kh >> s.kw >>
          s.oh >> s.ow >> s.sh >> s.sw >> s.pt >> s.pl >> s.dh >> s.dw >>
          s.groups >> bias))
      continue;
    std::vector<float> x(s.n * s.c * s.h * s.w), b(s.o),
        y(s.n * s.o * s.oh * s.ow);
    std::vector<float> &w =
        weights.emplace_back(s.o * (s.c / s.groups) * s.kh * s.kw);
    for (std::vector<float> *v : {&x, &w, &b})
      for (float &e : *v)
        e = uniform(rng);
    const float *biasData = bias ? b.data() : nullptr;
    auto im2col = [&] {
      conv2dWithoutDnnlF32(x.data(), w.data(), biasData, y.data(), s);
    };
    bool supported = true;
    double onednn = bestMilliseconds(repeats, [&] {
      supported = dnnlConv2dF32(x.data(), w.data(), biasData, y.data(), s,
                                ConvPath::OneDnn);
    });
    double constant = bestMilliseconds(repeats, [&] {
      supported &= dnnlConv2dConstantWeightsF32(x.data(), w.data(), biasData,
                                                y.data(), s, ConvPath::OneDnn);
    });
    double ours = bestMilliseconds(repeats, im2col);
    std::printf("%s %s %.4f %.4f %.4f %s\n", name.c_str(),
                line.substr(name.size() + 1).c_str(), supported ? onednn : -1.0,
                supported ? constant : -1.0, ours,
                preferOneDnn(s) && !batchesImages(s) ? "onednn" : "im2col");
  }
  return 0;
}
