//===- TokenRules.h - Dependency-token pops and pushes ----------*- C++ -*-===//
//
// Shared by both backends: which FIFOs an instruction pops and pushes, the
// overflow rule (a push into a FIFO holding token_depth tokens faults) and
// the deadlock report naming the blocked instruction.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SIMULATOR_TOKENRULES_H
#define SYSTOLE_SIMULATOR_TOKENRULES_H

#include "systole/Simulator/Machine.h"

#include "llvm/ADT/ArrayRef.h"

#include <deque>
#include <optional>
#include <string>

namespace systole::sim {

/// Are the tokens `inst` pops present?
bool tokensReady(const isa::Instruction &inst, const MachineState &state);
/// The FIFOs `inst` waits on that are empty, e.g. "load->compute".
std::string missingTokens(const isa::Instruction &inst,
                          const MachineState &state);
void popTokens(const isa::Instruction &inst, MachineState &state);
/// Pushes; on overflow returns the message (the token is not pushed).
std::optional<std::string> pushTokens(const isa::Instruction &inst,
                                      MachineState &state,
                                      const isa::HwConfig &cfg);

struct BlockedHead {
  size_t index = 0;
  std::string others; ///< the other blocked queues, for the message
  std::string detail(llvm::ArrayRef<isa::Instruction> stream,
                     const MachineState &state) const;
};
/// The oldest head among non-empty queues, plus a description of the rest.
BlockedHead oldestBlockedHead(llvm::ArrayRef<isa::Instruction> stream,
                              const std::deque<size_t> queues[3]);
BlockedHead oldestBlockedHead(llvm::ArrayRef<isa::Instruction> stream,
                              llvm::ArrayRef<std::optional<size_t>> heads);

} // namespace systole::sim

#endif // SYSTOLE_SIMULATOR_TOKENRULES_H
