//===- MatmulPipeline.h - When the next MATMUL may enter the array -*- C++ -*-//
//
// With array.matmul_inflight > 1 consecutive WS MATMULs stream through the
// systolic array back to back (docs/isa.md section 6): each PE has a shadow
// weight register that the next MATMUL's preload fills while the current
// one's rows pass, and a switch bit travelling with the next MATMUL's first
// row of A moves the shadow weights into use PE by PE. This class is the one
// statement of the resulting issue rule; the cycle model and the estimate
// model call it, the RTL controller (rtl/npu_controller.sv) implements the
// same rule and the co-simulation compares them cycle by cycle.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_ISA_MATMULPIPELINE_H
#define SYSTOLE_ISA_MATMULPIPELINE_H

#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Instruction.h"

#include <deque>
#include <optional>

namespace systole::isa {

class MatmulPipeline {
public:
  explicit MatmulPipeline(const HwConfig &cfg) : cfg(cfg) {}

  /// The earliest cycle at which the MATMUL `inst` may issue as far as the
  /// array is concerned (the queue adds fetch, tokens and its other units).
  uint64_t earliestIssue(const Instruction &inst) const;
  /// Records that `inst` issued at `start`; returns its completion cycle
  /// (start + computeCycles).
  uint64_t issue(const Instruction &inst, uint64_t start);
  /// The cycle at which every MATMUL issued so far has completed (ends are
  /// non-decreasing, so this is the last one's end).
  uint64_t drained() const { return history.empty() ? 0 : history.back().end; }

  /// Whether `later` may stream behind `earlier` (both MATMULs) without
  /// waiting for it to complete: both WS, and their accumulator writes
  /// either disjoint or mapped to the same columns (then every write of
  /// `earlier` to a column precedes every write of `later` to it).
  static bool mayFollow(const Instruction &earlier, const Instruction &later);

private:
  struct Issued {
    Instruction inst;
    uint64_t start, end;
  };
  const HwConfig &cfg;
  /// The last matmul_inflight MATMULs (the only ones possibly in flight).
  std::deque<Issued> history;
  /// Issue cycle of the last MATMUL that preloaded weights.
  std::optional<uint64_t> lastPreload;
};

} // namespace systole::isa

#endif // SYSTOLE_ISA_MATMULPIPELINE_H
