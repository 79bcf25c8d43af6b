//===- DnnlConv.cpp - f32 convolutions on oneDNN primitives ---------------===//
//
// conv2d through dnnl::convolution_forward (oneDNN 2.6). oneDNN picks its
// own layouts (blocked nChw16c activations and weights on AVX-512), where
// its kernels run 1.5-5x faster than im2col + GEMM on NCHW (a depthwise
// conv is one tiny GEMM per channel there). The plan's buffers stay NCHW:
// each call reorders x in, y out and the weights in (a training plan may
// have updated them in place since the last call). One primitive and its
// reorders per shape, built on the first call with that shape and kept.
// Which path a shape takes is a rule (preferOneDnn), not a timing: the
// reorders can cost more than the blocked kernel gains (1x1 convs, few
// output pixels per weight), and a timed choice would differ between
// processes, so ranks and reruns would compute different bits.
//
//===----------------------------------------------------------------------===//

#include "Conv.h"
#include "Layout.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

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
/// What a primitive computes from the plan's two inputs (x, w) into y.
enum class ConvKind {
  Forward,
  /// A forward conv whose x and y are NHWC: the primitive takes them as
  /// they are (oneDNN's channels-last kernels), so nothing is reordered
  /// but the weights.
  ForwardChannelsLast,
  /// conv_transpose2d: a backward-data primitive, x its diff_dst, y its
  /// diff_src; the bias is added after it.
  Transpose,
  /// conv2d_grad_filter: a backward-weights primitive, x its src, w (in
  /// the `weights` slots) its diff_dst, y its diff_weights.
  GradFilter,
};

struct ConvPrimitive {
  bool supported = false;
  ConvKind kind = ConvKind::Forward;
  dnnl::primitive conv;
  memory::desc src, weights, dst, bias;
  memory::desc convSrc, convWeights, convDst;
  dnnl::reorder toSrc, toWeights, fromDst;
  /// toSrc / fromDst as transposeImages(images, rows, cols): NCHW <-> NHWC
  /// where that measured faster than oneDNN's reorder; images = 0 otherwise.
  std::array<int64_t, 3> srcTranspose = {0, 0, 0}, dstTranspose = {0, 0, 0};
  memory::desc scratchpad;
  size_t scratchpadBytes = 0;
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

int64_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// The transposeImages arguments (images, rows, cols) that turn `from` into
/// `to` where one is the other with channels last, and the transpose beat
/// oneDNN's reorder on this machine (`oneflow-layout-bench`):
/// 2-5x for most activation shapes (SqueezeNet's first conv output at batch
/// 8: 0.41 -> 0.08 ms), slower where oneDNN's blocked reorder applies (16
/// channels), for fewer than 16 rows or 32 columns, and where the
/// transposed rows lie a multiple of 4 KiB apart (a 16-row tile's stores
/// then share one cache set). {0, 0, 0} otherwise.
std::array<int64_t, 3> transposeFor(const memory::desc &from,
                                    const memory::desc &to) {
  if (from.dims().size() != 4 || from.dims() != to.dims())
    return {0, 0, 0};
  memory::dims d = from.dims();
  auto f32 = memory::data_type::f32;
  memory::desc nchw(d, f32, Tag::nchw), nhwc(d, f32, Tag::nhwc);
  int64_t pixels = d[2] * d[3];
  std::array<int64_t, 3> args;
  if (from == nchw && to == nhwc)
    args = {d[0], d[1], pixels};
  else if (from == nhwc && to == nchw)
    args = {d[0], pixels, d[1]};
  else
    return {0, 0, 0};
  int64_t rows = args[1], cols = args[2];
  if (d[1] == 16 || rows < 16 || cols < 32 ||
      rows * int64_t(sizeof(float)) % 4096 == 0)
    return {0, 0, 0};
  return args;
}

/// oneDNN's post-ops for an epilogue: the sum of what y holds, then the
/// activation (oneDNN 2.6's hardswish is x * relu6(x + 3) / 6).
dnnl::post_ops postOpsOf(const ConvEpilogue &epilogue) {
  dnnl::post_ops ops;
  if (epilogue.residual)
    ops.append_sum(1.f);
  using dnnl::algorithm;
  switch (epilogue.activation) {
  case ConvActivation::None:
    break;
  case ConvActivation::Relu:
    ops.append_eltwise(1.f, algorithm::eltwise_relu, 0.f, 0.f);
    break;
  case ConvActivation::Clip:
    ops.append_eltwise(1.f, algorithm::eltwise_clip, epilogue.clipMin,
                       epilogue.clipMax);
    break;
  case ConvActivation::Silu:
    ops.append_eltwise(1.f, algorithm::eltwise_swish, 1.f, 0.f);
    break;
  case ConvActivation::HardSwish:
    ops.append_eltwise(1.f, algorithm::eltwise_hardswish, 0.f, 0.f);
    break;
  }
  return ops;
}

/// A convolution (x [n, c, h, w] -> y [n, o, oh, ow]) or, `transpose`, a
/// conv_transpose2d: the data gradient of the conv from y's shape to x's,
/// with weights [c, o / groups, kh, kw] (the conv's [o, c / groups, ...]).
void build(ConvPrimitive &p, const ConvShape &s, bool hasBias, ConvKind kind,
           const ConvEpilogue &epilogue) {
  bool transpose = kind == ConvKind::Transpose;
  // The conv computed (forward) or whose data gradient is (transpose).
  int64_t n = s.n, c = s.c, h = s.h, w = s.w, o = s.o, oh = s.oh, ow = s.ow;
  if (transpose) {
    std::swap(c, o);
    std::swap(h, oh);
    std::swap(w, ow);
  }
  // The bottom and right pads that make oneDNN's output size oh, ow:
  // negative where a stride leaves the last input rows or columns unread.
  int64_t pb = (oh - 1) * s.sh + s.dh * (s.kh - 1) + 1 - h - s.pt;
  int64_t pr = (ow - 1) * s.sw + s.dw * (s.kw - 1) + 1 - w - s.pl;
  memory::dims weightDims =
      s.groups > 1
          ? memory::dims{s.groups, o / s.groups, c / s.groups, s.kh, s.kw}
          : memory::dims{o, c, s.kh, s.kw};
  auto f32 = memory::data_type::f32;
  p.kind = kind;
  Tag activations =
      kind == ConvKind::ForwardChannelsLast ? Tag::nhwc : Tag::nchw;
  p.src = memory::desc({s.n, s.c, s.h, s.w}, f32, activations);
  p.dst = memory::desc({s.n, s.o, s.oh, s.ow}, f32, activations);
  p.weights =
      memory::desc(weightDims, f32, s.groups > 1 ? Tag::goihw : Tag::oihw);
  if (kind == ConvKind::GradFilter)
    std::swap(p.weights, p.dst);
  if (hasBias)
    p.bias = memory::desc({s.o}, f32, Tag::x);
  try {
    auto any = [&](const memory::dims &dims) {
      return memory::desc(dims, f32, Tag::any);
    };
    memory::dims strides = {s.sh, s.sw}, dilations = {s.dh - 1, s.dw - 1},
                 padL = {s.pt, s.pl}, padR = {pb, pr};
    dnnl::primitive_attr attr;
    // Scratchpads come from workspace(): primitives of several threads may
    // run at once.
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (!epilogue.empty())
      attr.set_post_ops(postOpsOf(epilogue));
    // The backward primitives are chosen against the forward one they
    // differentiate.
    auto trainingHint = [&] {
      dnnl::convolution_forward::desc forward(
          dnnl::prop_kind::forward_training,
          dnnl::algorithm::convolution_direct, any({n, c, h, w}),
          any(weightDims), any({n, o, oh, ow}), strides, dilations, padL, padR);
      return dnnl::convolution_forward::primitive_desc(forward, cpuEngine());
    };
    if (kind == ConvKind::GradFilter) {
      dnnl::convolution_forward::primitive_desc hint = trainingHint();
      dnnl::convolution_backward_weights::desc desc(
          dnnl::algorithm::convolution_direct, any({n, c, h, w}),
          any(weightDims), any({n, o, oh, ow}), strides, dilations, padL, padR);
      dnnl::convolution_backward_weights::primitive_desc pd(desc, attr,
                                                            cpuEngine(), hint);
      p.conv = dnnl::convolution_backward_weights(pd);
      p.convSrc = pd.src_desc();
      p.convWeights = pd.diff_dst_desc();
      p.convDst = pd.diff_weights_desc();
      p.scratchpad = pd.scratchpad_desc();
    } else if (!transpose) {
      // Channels-last activations are the primitive's own (no reorder).
      bool channelsLast = kind == ConvKind::ForwardChannelsLast;
      dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference,
          dnnl::algorithm::convolution_direct,
          channelsLast ? p.src : any({n, c, h, w}), any(weightDims), p.bias,
          channelsLast ? p.dst : any({n, o, oh, ow}), strides, dilations, padL,
          padR);
      dnnl::convolution_forward::primitive_desc pd(desc, attr, cpuEngine());
      p.conv = dnnl::convolution_forward(pd);
      p.convSrc = pd.src_desc();
      p.convWeights = pd.weights_desc();
      p.convDst = pd.dst_desc();
      p.scratchpad = pd.scratchpad_desc();
    } else {
      dnnl::convolution_forward::primitive_desc hint = trainingHint();
      dnnl::convolution_backward_data::desc desc(
          dnnl::algorithm::convolution_direct, any({n, c, h, w}),
          any(weightDims), any({n, o, oh, ow}), strides, dilations, padL, padR);
      dnnl::convolution_backward_data::primitive_desc pd(desc, attr,
                                                         cpuEngine(), hint);
      p.conv = dnnl::convolution_backward_data(pd);
      // x is the gradient of the conv's output, y of its input.
      p.convSrc = pd.diff_dst_desc();
      p.convWeights = pd.weights_desc();
      p.convDst = pd.diff_src_desc();
      p.scratchpad = pd.scratchpad_desc();
    }
    p.scratchpadBytes = p.scratchpad.get_size();
    auto reorder = [](const memory::desc &from, const memory::desc &to) {
      return from == to ? dnnl::reorder()
                        : dnnl::reorder(dnnl::reorder::primitive_desc(
                              cpuEngine(), from, cpuEngine(), to));
    };
    p.toSrc = reorder(p.src, p.convSrc);
    p.toWeights = reorder(p.weights, p.convWeights);
    p.fromDst = reorder(p.convDst, p.dst);
    p.srcTranspose = transposeFor(p.src, p.convSrc);
    p.dstTranspose = transposeFor(p.convDst, p.dst);
    p.supported = true;
  } catch (const dnnl::error &) {
    // No implementation for this shape: im2col computes it.
    p.supported = false;
  }
}

/// The primitive of a shape, built once. Entries are never removed, so the
/// reference stays valid outside the lock.
ConvPrimitive &primitiveFor(const ConvShape &s, bool hasBias, ConvKind kind,
                            const ConvEpilogue &epilogue) {
  using Key = std::array<int64_t, 22>;
  // The engine first: statics are destroyed in reverse order, and the
  // cached primitives must go before their engine.
  cpuEngine();
  static std::mutex mutex;
  static std::map<Key, std::unique_ptr<ConvPrimitive>> cache;
  Key key = {s.n,  s.c,  s.h,  s.w,      s.o,     s.kh,
             s.kw, s.oh, s.ow, s.sh,     s.sw,    s.pt,
             s.pl, s.dh, s.dw, s.groups, hasBias, int64_t(kind)};
  // The epilogue: its post-ops are part of the primitive.
  key[18] = epilogue.residual;
  key[19] = int64_t(epilogue.activation);
  key[20] = bitsOf(epilogue.clipMin);
  key[21] = bitsOf(epilogue.clipMax);
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<ConvPrimitive> &entry = cache[key];
  if (!entry) {
    entry = std::make_unique<ConvPrimitive>();
    build(*entry, s, hasBias, kind, epilogue);
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

/// `w` in the primitive's weight layout, reordered once per weight tensor:
/// for weights that never change (an inference plan's), whose reorder would
/// otherwise read and write them on every call. Keyed by the primitive and
/// the address, which the caller promises holds the same values for the
/// life of the process. Null where the primitive takes the plan's layout.
const void *constantWeights(const ConvPrimitive &p, const float *w) {
  if (!p.toWeights)
    return nullptr;
  struct Reordered {
    void *data = nullptr;
    ~Reordered() { std::free(data); }
  };
  static std::mutex mutex;
  static std::map<std::pair<const ConvPrimitive *, const float *>, Reordered>
      cache;
  std::lock_guard<std::mutex> lock(mutex);
  Reordered &entry = cache[{&p, w}];
  if (!entry.data) {
    size_t bytes = rounded(p.convWeights.get_size());
    entry.data = std::aligned_alloc(64, bytes);
    dnnl::engine &engine = cpuEngine();
    dnnl::stream stream(engine);
    memory from(p.weights, engine, const_cast<float *>(w));
    memory to(p.convWeights, engine, entry.data);
    p.toWeights.execute(stream, from, to);
    stream.wait();
  }
  return entry.data;
}

/// One thread's memory objects and argument map for one primitive's calls,
/// made on its first call and pointed at each call's buffers: made anew on
/// every call they were a third of a small conv's time (MNASNet at batch
/// 1: 52 convs of 3-6 us, each allocating and freeing some 30 blocks).
struct CallMemories {
  memory src, weights, dst, convSrc, convWeights, convDst, bias, scratchpad;
  std::unordered_map<int, memory> args;
};

CallMemories &callMemoriesOf(const ConvPrimitive &p) {
  thread_local std::unordered_map<const ConvPrimitive *,
                                  std::unique_ptr<CallMemories>>
      calls;
  std::unique_ptr<CallMemories> &entry = calls[&p];
  if (!entry)
    entry = std::make_unique<CallMemories>();
  return *entry;
}

/// Points `m` (made with `desc` on first use) at `data`. Pointing writes
/// zeros to a blocked layout's padding, which the work space's other users
/// may have overwritten since, so memory in it (`scratch`) is always
/// re-pointed; the plan's buffers and the kept weights only when they moved.
void pointAt(memory &m, const memory::desc &desc, const void *data,
             bool scratch) {
  if (!m)
    m = memory(desc, cpuEngine(), const_cast<void *>(data));
  else if (scratch || m.get_data_handle() != data)
    m.set_data_handle(const_cast<void *>(data));
}

void execute(const ConvPrimitive &p, const float *x, const float *w,
             const float *bias, float *y, bool weightsConstant = false) {
  const void *reorderedWeights =
      weightsConstant ? constantWeights(p, w) : nullptr;
  bool reorderWeights = p.toWeights && !reorderedWeights;
  thread_local dnnl::stream stream(cpuEngine());
  // Work space layout: scratchpad, then whichever operands need reordering.
  size_t srcBytes = p.toSrc ? rounded(p.convSrc.get_size()) : 0;
  size_t weightBytes = reorderWeights ? rounded(p.convWeights.get_size()) : 0;
  size_t dstBytes = p.fromDst ? rounded(p.convDst.get_size()) : 0;
  size_t scratchBytes = rounded(p.scratchpadBytes);
  char *space = workspace(scratchBytes + srcBytes + weightBytes + dstBytes);
  char *next = space + scratchBytes;
  CallMemories &m = callMemoriesOf(p);
  // The primitive's operand: the plan's buffer, or the next work space.
  auto place = [&](memory &conv, bool reordered, const memory::desc &desc,
                   const void *plan, size_t bytes) {
    if (!reordered)
      return pointAt(conv, desc, plan, /*scratch=*/false);
    pointAt(conv, desc, next, /*scratch=*/true);
    next += bytes;
  };
  place(m.convSrc, bool(p.toSrc), p.convSrc, x, srcBytes);
  if (reorderedWeights)
    pointAt(m.convWeights, p.convWeights, reorderedWeights,
            /*scratch=*/false);
  else
    place(m.convWeights, reorderWeights, p.convWeights, w, weightBytes);
  place(m.convDst, bool(p.fromDst), p.convDst, y, dstBytes);
  pointAt(m.scratchpad, p.scratchpad, space, /*scratch=*/true);
  if (p.srcTranspose[0]) {
    transposeImages(x, static_cast<float *>(m.convSrc.get_data_handle()),
                    p.srcTranspose[0], p.srcTranspose[1], p.srcTranspose[2]);
  } else if (p.toSrc) {
    pointAt(m.src, p.src, x, /*scratch=*/false);
    p.toSrc.execute(stream, m.src, m.convSrc);
  }
  if (reorderWeights) {
    pointAt(m.weights, p.weights, w, /*scratch=*/false);
    p.toWeights.execute(stream, m.weights, m.convWeights);
  }
  // The primitive was built with or without a bias (its cache key), so
  // every call of it passes one or none.
  bool biasArg = bias && p.kind != ConvKind::Transpose;
  if (biasArg)
    pointAt(m.bias, p.bias, bias, /*scratch=*/false);
  if (m.args.empty()) {
    int srcArg = DNNL_ARG_SRC, weightsArg = DNNL_ARG_WEIGHTS,
        dstArg = DNNL_ARG_DST;
    if (p.kind == ConvKind::Transpose) {
      srcArg = DNNL_ARG_DIFF_DST;
      dstArg = DNNL_ARG_DIFF_SRC;
    } else if (p.kind == ConvKind::GradFilter) {
      weightsArg = DNNL_ARG_DIFF_DST;
      dstArg = DNNL_ARG_DIFF_WEIGHTS;
    }
    // Handles: the map's copies follow pointAt on the members.
    m.args = {{srcArg, m.convSrc},
              {weightsArg, m.convWeights},
              {dstArg, m.convDst},
              {DNNL_ARG_SCRATCHPAD, m.scratchpad}};
    if (biasArg)
      m.args[DNNL_ARG_BIAS] = m.bias;
  }
  p.conv.execute(stream, m.args);
  if (p.dstTranspose[0]) {
    stream.wait();
    transposeImages(static_cast<const float *>(m.convDst.get_data_handle()), y,
                    p.dstTranspose[0], p.dstTranspose[1], p.dstTranspose[2]);
  } else if (p.fromDst) {
    pointAt(m.dst, p.dst, y, /*scratch=*/false);
    p.fromDst.execute(stream, m.convDst, m.dst);
  }
  stream.wait();
  if (bias && p.kind == ConvKind::Transpose) {
    const dnnl_dim_t *dims = p.dst.data.dims;
    int64_t images = dims[0], channels = dims[1], pixels = dims[2] * dims[3];
    for (int64_t b = 0; b < images; ++b)
      for (int64_t ch = 0; ch < channels; ++ch) {
        float *plane = y + (b * channels + ch) * pixels;
        for (int64_t i = 0; i < pixels; ++i)
          plane[i] += bias[ch];
      }
  }
}

} // namespace

bool oneflow::kernels::preferOneDnn(const ConvShape &s) {
  // Measured with bench/conv_paths.cpp on the conv2d shapes of 13
  // torchvision models (docs/benchmarks.md): this rule's total is within 8%
  // (one thread) and 3% (two) of taking the faster path of every shape.
  // 1x1 convs: one sgemm per image (after a strided gather) beats the
  // reorders to and from oneDNN's blocked layouts.
  if (s.kh == 1 && s.kw == 1)
    return false;
  // Depthwise: the direct loops' register-blocked 3x3 stride-1 kernel wins
  // on planes of 8x8 and more; oneDNN wins strided, 5x5 and 7x7 taps and
  // tiny planes (up to 7x faster).
  if (isDepthwise(s))
    return !(s.kh == 3 && s.kw == 3 && s.sh == 1 && s.sw == 1 && s.dh == 1 &&
             s.dw == 1 && s.oh * s.ow >= 64);
  // Dense and grouped convs with taps: oneDNN, 1.5-3x faster.
  return true;
}

namespace {
bool run(const float *x, const float *w, const float *bias, float *y,
         const ConvShape &s, ConvKind kind, ConvPath path,
         bool weightsConstant = false, const ConvEpilogue &epilogue = {}) {
  if (path == ConvPath::Auto)
    path = pathFromEnvironment();
  // Where each weight meets few pixels, one product over the batch on the
  // plain weights beats oneDNN: 2x where the weights change every step (a
  // training plan's, reordered on every call), 1.1-1.4x where they are
  // reordered once (ResNet-18's last stage at batch 8).
  bool batched = (kind == ConvKind::Forward && batchesImages(s)) ||
                 (kind == ConvKind::Transpose && batchesTransposedImages(s));
  // Channels-last activations: every other path would transpose them.
  bool preferred = kind == ConvKind::GradFilter ||
                   kind == ConvKind::ForwardChannelsLast ||
                   (preferOneDnn(s) && !batched);
  if (path == ConvPath::Im2col || (path == ConvPath::Auto && !preferred))
    return false;
  ConvPrimitive &p = primitiveFor(s, bias != nullptr, kind, epilogue);
  if (!p.supported)
    return false;
  execute(p, x, w, bias, y, weightsConstant);
  return true;
}
} // namespace

bool oneflow::kernels::dnnlConv2dF32(const float *x, const float *w,
                                     const float *bias, float *y,
                                     const ConvShape &s, ConvPath path) {
  return run(x, w, bias, y, s, ConvKind::Forward, path);
}

bool oneflow::kernels::dnnlConv2dConstantWeightsF32(const float *x,
                                                    const float *w,
                                                    const float *bias, float *y,
                                                    const ConvShape &s,
                                                    ConvPath path) {
  return run(x, w, bias, y, s, ConvKind::Forward, path,
             /*weightsConstant=*/true);
}

bool oneflow::kernels::dnnlConv2dChannelsLastF32(const float *x, const float *w,
                                                 const float *bias, float *y,
                                                 const ConvShape &s,
                                                 bool constantWeights,
                                                 const ConvEpilogue &epilogue) {
  return run(x, w, bias, y, s, ConvKind::ForwardChannelsLast, ConvPath::Auto,
             constantWeights, epilogue);
}

bool oneflow::kernels::dnnlConvTranspose2dF32(const float *x, const float *w,
                                              const float *bias, float *y,
                                              const ConvShape &s,
                                              ConvPath path) {
  return run(x, w, bias, y, s, ConvKind::Transpose, path);
}

bool oneflow::kernels::dnnlConv2dGradFilterF32(const float *x, const float *dy,
                                               float *dw, const ConvShape &s,
                                               ConvPath path) {
  return run(x, dy, nullptr, dw, s, ConvKind::GradFilter, path);
}
