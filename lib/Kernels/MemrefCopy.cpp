//===- MemrefCopy.cpp - Strided copies for memref.copy --------------------===//
//
// MLIR lowers a memref.copy between non-contiguous views (slices, strided
// inserts) to a call of `memrefCopy(elemSize, src, dst)` with unranked
// descriptors. The kernel library provides it, so kernels.so needs no MLIR
// runtime library.
//
//===----------------------------------------------------------------------===//

#include "KernelABI.h"

#include <cstring>
#include <vector>

namespace {
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

/// The fields of a ranked descriptor after the two pointers.
struct View {
  char *base;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;
};

View viewOf(const UnrankedMemRef &m) {
  auto *pointers = static_cast<char **>(m.descriptor);
  auto *fields = reinterpret_cast<const int64_t *>(pointers + 2);
  return {pointers[1], fields[0], fields + 1, fields + 1 + m.rank};
}
} // namespace

/// Copies `bytes` (a multiple of 16, at most 256) inline: the pieces of a
/// head transpose or a concat are rows of a few dozen floats, for which a
/// call of memcpy per row costs more than the copy.
static inline void copySmallRun(char *to, const char *from, size_t bytes) {
  for (size_t i = 0; i < bytes; i += 16)
    __builtin_memcpy(to + i, from + i, 16);
}

ONEFLOW_KERNEL void memrefCopy(int64_t elementSize, UnrankedMemRef *source,
                               UnrankedMemRef *target) {
  int64_t rank = source->rank;
  View src = viewOf(*source), dst = viewOf(*target);
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d)
    count *= src.sizes[d];
  if (count == 0)
    return;
  // Trailing dimensions that are contiguous in both views copy as one run
  // (a slice or concat piece copies row by row, not element by element).
  int64_t inner = rank, run = 1;
  while (inner > 0 && src.strides[inner - 1] == run &&
         dst.strides[inner - 1] == run) {
    --inner;
    run *= src.sizes[inner];
  }
  size_t runBytes = run * elementSize;
  bool small = runBytes % 16 == 0 && runBytes <= 256;
  // An odometer over the outer dimensions, moving both offsets along.
  std::vector<int64_t> index(inner, 0);
  char *from = src.base + src.offset * elementSize;
  char *to = dst.base + dst.offset * elementSize;
  for (int64_t i = 0, runs = count / run; i < runs; ++i) {
    if (small)
      copySmallRun(to, from, runBytes);
    else
      std::memcpy(to, from, runBytes);
    for (int64_t d = inner - 1; d >= 0; --d) {
      from += src.strides[d] * elementSize;
      to += dst.strides[d] * elementSize;
      if (++index[d] < src.sizes[d])
        break;
      from -= src.sizes[d] * src.strides[d] * elementSize;
      to -= src.sizes[d] * dst.strides[d] * elementSize;
      index[d] = 0;
    }
  }
}
