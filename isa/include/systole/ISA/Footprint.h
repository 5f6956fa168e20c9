//===- Footprint.h - Instruction footprints and their overlaps --*- C++ -*-===//
//
// Which addresses an instruction's operands touch, and whether two such sets
// share an address. Two overlap solvers live here on purpose, because their
// callers need different answers:
//
// * accessesOverlap works on the per-operand footprints of accessRanges
//   (hulls, plus exact rows when an operand is rows of one pitch). It never
//   gives up and answers in O(1), conservatively (the hulls) where the rows
//   do not describe the operand. The simulators' data-race checker and the
//   post-processor hazard check call it for every pair of in-flight accesses.
// * stridedRunsOverlap decides exactly on two-level strided sets (rows of
//   pixels of runs), with a step budget, and says when the budget ran out.
//   The verifier calls it once per output/input pair of an instruction to
//   prove the streaming-write rule (docs/isa.md §4), where hulls would reject
//   interleaved buffers that the ISA allows.
//
// The verifier checks the accessRanges hulls against the memories' sizes.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_ISA_FOOTPRINT_H
#define SYSTOLE_ISA_FOOTPRINT_H

#include "systole/ISA/Instruction.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace systole::isa {

enum class MemSpace : uint8_t { Dram, Scratchpad, Accumulator };
llvm::StringRef memSpaceName(MemSpace s);

/// The exact address hull [begin, end) of one operand: the lowest and one
/// past the highest address touched (bytes for DRAM/SP, words for ACC).
/// `end` saturates at UINT64_MAX, so out-of-range boxes cannot wrap around.
struct Access {
  MemSpace space;
  bool write;
  uint64_t begin;
  uint64_t end;
  const char *operand; ///< e.g. "A", "dst", "lut"
  /// When the operand is `rows` runs of `run` addresses, `pitch` apart
  /// (rows > 1, run <= pitch), the exact footprint; else 0 and the hull is
  /// all that is known. Column slices of one tile (a tile's channels
  /// written beside another's) have overlapping hulls but no common
  /// address: accessesOverlap tells them apart.
  uint64_t rows = 0, pitch = 0, run = 0;
};
std::vector<Access> accessRanges(const Instruction &inst);

/// The operand fields of the elementwise two-input vector instructions
/// (VADD, VMUL, VBINARY), which address their operands alike: A and B
/// (`*_bcast`: one element per row) into O, n1 rows of n0 elements.
struct ElementwiseFields {
  Field aAddr, bAddr, oAddr, n0, n1, aS1, bS1, oS1, aBcast, bBcast,
      bankConflict;
};
/// `op`'s fields, or nullopt when it is not such an instruction.
std::optional<ElementwiseFields> elementwiseFields(Opcode op);
/// Whether an elementwise instruction's B is fp32 words in ACC (VBINARY's
/// b_f32) rather than bytes in the scratchpad.
bool elementwiseBInAcc(const Instruction &I);
/// Whether two accesses of one space touch a common address: exact when
/// both are rows of one pitch or one is a single run, else their hulls.
/// The data-race checker needs this answer (conservative, never capped) for
/// every pair of accesses it compares; see stridedRunsOverlap for the exact,
/// budgeted test the verifier needs.
bool accessesOverlap(const Access &a, const Access &b);

/// {base + j*s1 + k*s2 + e : j < n1, k < n2, e < w}: rows j of pixels k of w
/// contiguous elements (VADD: one pixel per row). `name` names the operand
/// in messages.
struct StridedRuns {
  const char *name;
  uint64_t base, n1, s1, n2, s2, w;
  bool empty() const { return !n1 || !n2 || !w; }
  unsigned __int128 rowSpan() const {
    return (unsigned __int128)(n2 - 1) * s2 + w;
  }
  unsigned __int128 end() const {
    return (unsigned __int128)base + (unsigned __int128)(n1 - 1) * s1 +
           rowSpan();
  }
};
/// Do X and Y share an address? Exact: walks the runs of the operand with
/// fewer of them that lie in Y's hull, each tested against Y's rows by
/// arithmetic; nullopt when that takes more than `budget` steps. The
/// verifier needs this exact answer to accept interleaved outputs and
/// inputs (channel slices of a concat) whose hulls meet; it must be able to
/// say "not proven" instead of falling back to hulls as accessesOverlap does.
std::optional<bool> stridedRunsOverlap(StridedRuns x, StridedRuns y,
                                       uint64_t budget);

/// Two cells (y0, x0) and (y1, x1) of a grid that share an address.
struct GridCellPair {
  uint64_t y0, x0, y1, x1;
};
/// The grid {y*rowStride + x*pixStride + e : y < rows, x < cols, e < width}
/// (rows, cols, width >= 1): two distinct cells whose `width` addresses
/// meet, or nullopt when every cell owns its addresses (DWCONV's outputs,
/// which it accumulates once each while streaming). O(rows).
std::optional<GridCellPair> sharedGridCells(uint64_t rows, uint64_t cols,
                                            uint64_t width, uint64_t rowStride,
                                            uint64_t pixStride);

} // namespace systole::isa

#endif // SYSTOLE_ISA_FOOTPRINT_H
