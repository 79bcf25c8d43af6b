//===- layout_transpose.cpp - NCHW <-> NHWC: oneDNN's reorder or ours -----===//
//
// Times oneDNN's reorder and transposeImages (lib/Kernels/Layout.cpp) in both
// directions on activation shapes read from stdin, one `n c h w` per line,
// and prints which one DnnlConv.cpp's rule (transposeFor) would take, so the
// rule can be checked or re-derived on a machine:
//
//   oneflow-layout-bench [--threads N] [--repeats R] < shapes.txt
//
//===----------------------------------------------------------------------===//

#include "Layout.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace oneflow::kernels;
using dnnl::memory;

namespace {
template <typename F> double bestMicroseconds(int repeats, F &&run) {
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double, std::micro>(
                              std::chrono::steady_clock::now() - start)
                              .count());
  }
  return best;
}
} // namespace

int main(int argc, char **argv) {
  int threads = 1, repeats = 50;
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
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::printf("n c h w direction onednn_us ours_us same\n");
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    int64_t n, c, h, w;
    if (!(in >> n >> c >> h >> w))
      continue;
    std::vector<float> src(n * c * h * w), viaDnnl(src.size()),
        viaOurs(src.size());
    for (float &e : src)
      e = uniform(rng);
    auto f32 = memory::data_type::f32;
    for (bool toChannelsLast : {false, true}) {
      memory::desc nchw({n, c, h, w}, f32, memory::format_tag::nchw),
          nhwc({n, c, h, w}, f32, memory::format_tag::nhwc);
      memory from(toChannelsLast ? nchw : nhwc, engine, src.data());
      memory to(toChannelsLast ? nhwc : nchw, engine, viaDnnl.data());
      dnnl::reorder reorder(from, to);
      double dnnlUs = bestMicroseconds(repeats, [&] {
        reorder.execute(stream, from, to);
        stream.wait();
      });
      int64_t rows = toChannelsLast ? c : h * w;
      int64_t cols = toChannelsLast ? h * w : c;
      double oursUs = bestMicroseconds(repeats, [&] {
        transposeImages(src.data(), viaOurs.data(), n, rows, cols);
      });
      std::printf("%lld %lld %lld %lld %s %.1f %.1f %s\n", (long long)n,
                  (long long)c, (long long)h, (long long)w,
                  toChannelsLast ? "nchw->nhwc" : "nhwc->nchw", dnnlUs, oursUs,
                  viaDnnl == viaOurs ? "yes" : "NO");
    }
  }
  return 0;
}
