//===- Crc32c.cpp - CRC-32C checksums -------------------------------------===//

#include "oneflow/Runtime/Crc32c.h"

#include <array>
#include <cstdio>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace oneflow {
namespace runtime {

namespace {

constexpr uint32_t kPolynomial = 0x82F63B78; // 0x1EDC6F41 reflected

/// tables[k][b]: the CRC of byte b followed by k zero bytes.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

Tables makeTables() {
  Tables tables{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc >> 1) ^ (kPolynomial & (0u - (crc & 1)));
    tables[0][b] = crc;
  }
  for (uint32_t b = 0; b < 256; ++b)
    for (int k = 1; k < 8; ++k)
      tables[k][b] =
          (tables[k - 1][b] >> 8) ^ tables[0][tables[k - 1][b] & 0xFF];
  return tables;
}

const Tables &tables() {
  static const Tables instance = makeTables();
  return instance;
}

/// On the inverted register (~crc), as both implementations keep it.
uint32_t updatePortable(uint32_t state, const unsigned char *p, size_t n) {
  const Tables &t = tables();
  for (; n >= 8; n -= 8, p += 8) {
    uint32_t low, high;
    std::memcpy(&low, p, 4);
    std::memcpy(&high, p + 4, 4);
    low ^= state; // little-endian: byte 0 is the low byte
    state = t[7][low & 0xFF] ^ t[6][(low >> 8) & 0xFF] ^
            t[5][(low >> 16) & 0xFF] ^ t[4][low >> 24] ^ t[3][high & 0xFF] ^
            t[2][(high >> 8) & 0xFF] ^ t[1][(high >> 16) & 0xFF] ^
            t[0][high >> 24];
  }
  for (; n > 0; --n, ++p)
    state = (state >> 8) ^ t[0][(state ^ *p) & 0xFF];
  return state;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t
updateHardware(uint32_t state, const unsigned char *p, size_t n) {
  uint64_t wide = state;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    wide = _mm_crc32_u64(wide, word);
  }
  state = uint32_t(wide);
  for (; n > 0; --n, ++p)
    state = _mm_crc32_u8(state, *p);
  return state;
}

bool detectHardware() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
#else
uint32_t updateHardware(uint32_t state, const unsigned char *p, size_t n) {
  return updatePortable(state, p, n);
}
bool detectHardware() { return false; }
#endif

} // namespace

bool crc32cUsesHardware() {
  static const bool hardware = detectHardware();
  return hardware;
}

uint32_t crc32c(const void *data, size_t size, uint32_t crc) {
  auto *p = static_cast<const unsigned char *>(data);
  if (crc32cUsesHardware())
    return ~updateHardware(~crc, p, size);
  return ~updatePortable(~crc, p, size);
}

uint32_t crc32cPortable(const void *data, size_t size, uint32_t crc) {
  return ~updatePortable(~crc, static_cast<const unsigned char *>(data), size);
}

std::string formatCrc32c(uint32_t crc) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", crc);
  return text;
}

} // namespace runtime
} // namespace oneflow
