//===- Crc32c.h - CRC-32C checksums -----------------------------*- C++ -*-===//
//
// CRC-32C (Castagnoli polynomial 0x1EDC6F41, reflected; the checksum of
// iSCSI, ext4 and TensorFlow's checkpoints) guards weights.bin and the
// checkpoint tensors against damaged bytes. The SSE4.2 crc32 instruction
// computes it at memory speed; CPUs without it use a table (slicing by 8),
// chosen once at run time.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_CRC32C_H
#define ONEFLOW_RUNTIME_CRC32C_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace oneflow {
namespace runtime {

/// The CRC-32C of `size` bytes at `data`, continuing the checksum `crc` of
/// the bytes before them (0 for none): crc32c(b, crc32c(a)) == crc32c(ab).
uint32_t crc32c(const void *data, size_t size, uint32_t crc = 0);

/// The table implementation (what crc32c uses without SSE4.2); for tests.
uint32_t crc32cPortable(const void *data, size_t size, uint32_t crc = 0);

/// Whether crc32c uses the SSE4.2 instruction on this CPU.
bool crc32cUsesHardware();

/// "0x%08x", how manifests and messages write a checksum.
std::string formatCrc32c(uint32_t crc);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_CRC32C_H
