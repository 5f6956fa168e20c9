//===- DataRace.h - Accesses no token orders ---------------------*- C++
//-*-===//
//
// The queues run concurrently; only dependency tokens (and each queue's own
// order) order their instructions. Two instructions of different queues that
// touch the same memory, one of them writing, must be ordered by a chain of
// tokens, or the values depend on timing (a LOAD overwriting a buffer a
// queued MATMUL still reads computes right on one schedule and wrong on
// another). The checker tracks happens-before with vector clocks over the
// three queues (a token carries its pusher's clock) and reports the first
// access that conflicts with an unordered one, whatever the schedule: the
// functional backend calls it, so a race faults there even when its own
// schedule happens to compute the right values. Footprints are the operands'
// address hulls (isa::accessRanges), or their exact rows where both are rows
// of one pitch (isa::accessesOverlap): a tile's column slice written beside
// another's shares their hull but no address.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SIMULATOR_DATARACE_H
#define SYSTOLE_SIMULATOR_DATARACE_H

#include "systole/ISA/Footprint.h"
#include "systole/ISA/Instruction.h"

#include "llvm/ADT/ArrayRef.h"

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace systole::sim {

class DataRaceChecker {
public:
  /// `inst` (index `index` of `stream`) runs now, after popping its tokens:
  /// checks its accesses against unordered earlier ones and records them.
  /// Returns the conflict, described, or nullopt.
  std::optional<std::string> execute(llvm::ArrayRef<isa::Instruction> stream,
                                     size_t index);

private:
  using Clock = std::array<uint64_t, 3>;
  struct Record {
    size_t index;
    uint64_t epoch;
    isa::Access access;
  };
  Clock clocks[3] = {};
  std::deque<Clock> fifos[isa::kNumTokenFifos];
  /// Per queue, the accesses some other queue has not yet seen (a queue's
  /// own accesses are ordered among themselves and never compared).
  std::vector<Record> records[3];
  size_t sincePrune = 0;
  void prune();
};

} // namespace systole::sim

#endif // SYSTOLE_SIMULATOR_DATARACE_H
