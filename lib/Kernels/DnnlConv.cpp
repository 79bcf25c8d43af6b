//===- DnnlConv.cpp - f32 convolutions on oneDNN primitives ---------------===//
//
// conv2d through dnnl::convolution_forward (oneDNN 2.6). oneDNN picks its
// own layouts (blocked nChw16c activations and weights on AVX-512), where
// its kernels run 1.5-5x faster than im2col + GEMM on NCHW (a depthwise
// conv is one tiny GEMM per channel there). The plan's buffers stay NCHW:
// each call reorders x in, y out and the weights in (a training plan may
// have updated them in place since the last call). One primitive and its
// reorders per shape, built on the first call with that shape and kept;
// that call also times it against im2col + GEMM and keeps the faster: the
// reorders can cost more than the blocked kernel gains (1x1 convs, few
// output pixels per weight).
//
//===----------------------------------------------------------------------===//

#include "Conv.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

using namespace oneflow::kernels;

namespace {
using dnnl::memory;
using Tag = memory::format_tag;

dnnl::engine &cpuEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

/// One convolution shape's primitive, and the reorders between the plan's
/// layouts and the primitive's (empty where they are the same).
struct ConvPrimitive {
  bool supported = false;
  dnnl::convolution_forward conv;
  memory::desc src, weights, dst, bias;
  memory::desc convSrc, convWeights, convDst;
  dnnl::reorder toSrc, toWeights, fromDst;
  memory::desc scratchpad;
  size_t scratchpadBytes = 0;
  /// Auto's choice: 0 not timed yet, 1 oneDNN, 2 im2col.
  std::atomic<int> choice{0};
};

/// The per-call work space: oneDNN's scratchpad and the reordered operands,
/// in one buffer per thread that only grows.
char *workspace(size_t bytes) {
  struct Buffer {
    char *data = nullptr;
    size_t size = 0;
    ~Buffer() { std::free(data); }
  };
  thread_local Buffer buffer;
  if (bytes > buffer.size) {
    std::free(buffer.data);
    buffer.size = (bytes + 4095) / 4096 * 4096;
    buffer.data = static_cast<char *>(std::aligned_alloc(4096, buffer.size));
  }
  return buffer.data;
}

size_t rounded(size_t bytes) { return (bytes + 63) / 64 * 64; }

void build(ConvPrimitive &p, const ConvShape &s, bool hasBias) {
  // The bottom and right pads that make oneDNN's output size oh, ow:
  // negative where a stride leaves the last input rows or columns unread.
  int64_t pb = (s.oh - 1) * s.sh + s.dh * (s.kh - 1) + 1 - s.h - s.pt;
  int64_t pr = (s.ow - 1) * s.sw + s.dw * (s.kw - 1) + 1 - s.w - s.pl;
  memory::dims weightDims =
      s.groups > 1
          ? memory::dims{s.groups, s.o / s.groups, s.c / s.groups, s.kh, s.kw}
          : memory::dims{s.o, s.c, s.kh, s.kw};
  auto f32 = memory::data_type::f32;
  p.src = memory::desc({s.n, s.c, s.h, s.w}, f32, Tag::nchw);
  p.dst = memory::desc({s.n, s.o, s.oh, s.ow}, f32, Tag::nchw);
  p.weights =
      memory::desc(weightDims, f32, s.groups > 1 ? Tag::goihw : Tag::oihw);
  if (hasBias)
    p.bias = memory::desc({s.o}, f32, Tag::x);
  try {
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
        memory::desc({s.n, s.c, s.h, s.w}, f32, Tag::any),
        memory::desc(weightDims, f32, Tag::any), p.bias,
        memory::desc({s.n, s.o, s.oh, s.ow}, f32, Tag::any), {s.sh, s.sw},
        {s.dh - 1, s.dw - 1}, {s.pt, s.pl}, {pb, pr});
    dnnl::primitive_attr attr;
    // Scratchpads come from workspace(): primitives of several threads may
    // run at once.
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, cpuEngine());
    p.conv = dnnl::convolution_forward(pd);
    p.convSrc = pd.src_desc();
    p.convWeights = pd.weights_desc();
    p.convDst = pd.dst_desc();
    p.scratchpad = pd.scratchpad_desc();
    p.scratchpadBytes = p.scratchpad.get_size();
    auto reorder = [](const memory::desc &from, const memory::desc &to) {
      return from == to ? dnnl::reorder()
                        : dnnl::reorder(dnnl::reorder::primitive_desc(
                              cpuEngine(), from, cpuEngine(), to));
    };
    p.toSrc = reorder(p.src, p.convSrc);
    p.toWeights = reorder(p.weights, p.convWeights);
    p.fromDst = reorder(p.convDst, p.dst);
    p.supported = true;
  } catch (const dnnl::error &) {
    // No implementation for this shape: im2col computes it.
    p.supported = false;
  }
}

/// The primitive of a shape, built once. Entries are never removed, so the
/// reference stays valid outside the lock.
ConvPrimitive &primitiveFor(const ConvShape &s, bool hasBias) {
  using Key = std::array<int64_t, 17>;
  static std::mutex mutex;
  static std::map<Key, std::unique_ptr<ConvPrimitive>> cache;
  Key key = {s.n,  s.c,  s.h,  s.w,  s.o,  s.kh, s.kw, s.oh,     s.ow,
             s.sh, s.sw, s.pt, s.pl, s.dh, s.dw, s.groups, hasBias};
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<ConvPrimitive> &entry = cache[key];
  if (!entry) {
    entry = std::make_unique<ConvPrimitive>();
    build(*entry, s, hasBias);
  }
  return *entry;
}

/// ONEFLOW_DNNL_CONV=0 keeps every conv on im2col, =1 puts every conv
/// oneDNN has a primitive for on it (for comparisons); unset: Auto.
ConvPath pathFromEnvironment() {
  static ConvPath path = [] {
    const char *value = std::getenv("ONEFLOW_DNNL_CONV");
    if (value && std::strcmp(value, "0") == 0)
      return ConvPath::Im2col;
    if (value && std::strcmp(value, "1") == 0)
      return ConvPath::OneDnn;
    return ConvPath::Auto;
  }();
  return path;
}

void execute(const ConvPrimitive &p, const float *x, const float *w,
             const float *bias, float *y) {
  dnnl::engine &engine = cpuEngine();
  thread_local dnnl::stream stream(engine);
  // Work space layout: scratchpad, then whichever operands need reordering.
  size_t srcBytes = p.toSrc ? rounded(p.convSrc.get_size()) : 0;
  size_t weightBytes = p.toWeights ? rounded(p.convWeights.get_size()) : 0;
  size_t dstBytes = p.fromDst ? rounded(p.convDst.get_size()) : 0;
  size_t scratchBytes = rounded(p.scratchpadBytes);
  char *space = workspace(scratchBytes + srcBytes + weightBytes + dstBytes);
  char *next = space + scratchBytes;
  auto place = [&](bool reordered, const memory::desc &convDesc,
                   const memory::desc &planDesc, const void *plan,
                   size_t bytes) {
    if (!reordered)
      return memory(planDesc, engine, const_cast<void *>(plan));
    memory m(convDesc, engine, next);
    next += bytes;
    return m;
  };
  memory src(p.src, engine, const_cast<float *>(x));
  memory weights(p.weights, engine, const_cast<float *>(w));
  memory dst(p.dst, engine, y);
  memory convSrc = place(bool(p.toSrc), p.convSrc, p.src, x, srcBytes);
  memory convWeights =
      place(bool(p.toWeights), p.convWeights, p.weights, w, weightBytes);
  memory convDst = place(bool(p.fromDst), p.convDst, p.dst, y, dstBytes);
  if (p.toSrc)
    p.toSrc.execute(stream, src, convSrc);
  if (p.toWeights)
    p.toWeights.execute(stream, weights, convWeights);
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, convSrc},
      {DNNL_ARG_WEIGHTS, convWeights},
      {DNNL_ARG_DST, convDst},
      {DNNL_ARG_SCRATCHPAD, memory(p.scratchpad, engine, space)}};
  if (bias)
    args[DNNL_ARG_BIAS] = memory(p.bias, engine, const_cast<float *>(bias));
  p.conv.execute(stream, args);
  if (p.fromDst)
    p.fromDst.execute(stream, convDst, dst);
  stream.wait();
}

double milliseconds(const std::function<void()> &run) {
  auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}
} // namespace

bool oneflow::kernels::dnnlConv2dF32(const float *x, const float *w,
                                     const float *bias, float *y,
                                     const ConvShape &s, ConvPath path,
                                     const std::function<void()> &im2col) {
  if (path == ConvPath::Auto)
    path = pathFromEnvironment();
  if (path == ConvPath::Im2col)
    return false;
  ConvPrimitive &p = primitiveFor(s, bias != nullptr);
  if (!p.supported)
    return false;
  if (path == ConvPath::Auto && p.choice.load() == 0) {
    // Which is faster depends on the shape and the machine (a 1x1 conv or
    // one with few pixels per weight loses more to the reorders than the
    // blocked kernel gains): the best of three runs of each, on this
    // call's operands (both write the same y).
    static std::mutex tuning;
    std::lock_guard<std::mutex> lock(tuning);
    if (p.choice.load() == 0) {
      double ours = 1e30, theirs = 1e30;
      for (int i = 0; i < 3; ++i) {
        theirs = std::min(theirs,
                          milliseconds([&] { execute(p, x, w, bias, y); }));
        ours = std::min(ours, milliseconds(im2col));
      }
      p.choice.store(theirs < ours ? 1 : 2);
    }
  }
  if (path == ConvPath::Auto && p.choice.load() == 2)
    return false;
  execute(p, x, w, bias, y);
  return true;
}
