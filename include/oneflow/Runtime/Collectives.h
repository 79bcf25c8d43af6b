//===- Collectives.h - What a COLLECTIVE task moves, byte by byte -*- C++
//-*-===//
//
// The shape rules of the plan's collectives and the packing that turns a
// gather, scatter or all-to-all along any axis into MPI's rank-major blocks.
// Pure functions (no MPI): the plan validator and the unit tests use them,
// the MPI transport executes what they describe.
//
// A tensor split or concatenated along `axis` is seen as [A][n][C]: A the
// product of the dimensions before `axis`, n the axis, C the bytes of the
// dimensions after it. MPI exchanges one contiguous block per member, so:
//
//  - ALL_GATHER: MPI gathers [G][A][C] (block g is member g's whole input);
//    the output [A][G][C] is its block transpose.
//  - REDUCE_SCATTER: the input [A][G][m*C'] is packed to [G][A][m*C'] (block
//    g is piece g along `axis`), reduce-scattered, and member g's block is
//    its output as it is.
//  - ALL_TO_ALL: the input is packed as for REDUCE_SCATTER (block j goes to
//    member j), exchanged, and the received [G][A'][C'] (A', C' around
//    `concat_axis` of a piece) is transposed to the output [A'][G][C'].
//
// Whenever A (or A') is 1, e.g. along axis 0, the transpose is the identity
// and no copy is made.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_RUNTIME_COLLECTIVES_H
#define ONEFLOW_RUNTIME_COLLECTIVES_H

#include "oneflow/Runtime/Status.h"
#include "oneflow/plan.pb.h"

#include <cstdint>
#include <vector>

namespace oneflow {
namespace runtime {

/// "ALL_REDUCE", "ALL_GATHER", ...; "kind N" outside the enum.
std::string collectiveKindName(int kind);

/// Whether `kind` sums (ALL_REDUCE, REDUCE_SCATTER).
bool isReduction(plan::Collective::Kind kind);
/// Whether `kind` is SEND or RECV.
bool isPointToPoint(plan::Collective::Kind kind);

/// How one member's task of a collective moves its bytes.
struct CollectiveLayout {
  plan::Collective::Kind kind = plan::Collective::ALL_REDUCE;
  plan::DataType dtype = plan::DT_INVALID;
  int groupSize = 1;
  int64_t elementSize = 0;
  int64_t inBytes = 0, outBytes = 0;
  /// Elements exchanged with each member: ALL_REDUCE, SEND, RECV: the whole
  /// tensor; ALL_GATHER: the input; REDUCE_SCATTER: the output;
  /// ALL_TO_ALL: one piece.
  int64_t blockElements = 0;
  /// Before the exchange: the input [packOuter][G][packBytes] becomes
  /// [G][packOuter][packBytes]. packOuter == 1: sent as it is.
  int64_t packOuter = 1, packBytes = 0;
  /// After the exchange: the received [G][unpackOuter][unpackBytes]
  /// becomes the output [unpackOuter][G][unpackBytes]. unpackOuter == 1:
  /// received in place.
  int64_t unpackOuter = 1, unpackBytes = 0;
};

/// Checks the shapes of a collective (the descs of its in and out regst;
/// nullptr for RECV's missing in and SEND's missing out) for a group of
/// `groupSize` members and returns how it moves its bytes. Errors describe
/// what is expected, e.g. "ALL_GATHER along axis 1 of f32[2,3] over 3 ranks
/// makes f32[2,9], not f32[6,3]".
Expected<CollectiveLayout> layoutCollective(const plan::Collective &collective,
                                            const plan::TensorDesc *in,
                                            const plan::TensorDesc *out,
                                            int groupSize);

/// The block transpose [rows][cols][blockBytes] -> [cols][rows][blockBytes].
void transposeBlocks(const void *src, void *dst, int64_t rows, int64_t cols,
                     int64_t blockBytes);

/// IEEE half and bfloat16 to and from f32, rounding to nearest even (NaNs
/// stay NaNs, overflow becomes infinity).
float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value);

} // namespace runtime
} // namespace oneflow

#endif // ONEFLOW_RUNTIME_COLLECTIVES_H
