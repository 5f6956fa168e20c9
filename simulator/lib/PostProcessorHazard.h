//===- PostProcessorHazard.h - MATMUL vs in-flight REQUANT ------*- C++ -*-===//
//
// With vector.requant_overlap = 1 a MATMUL may issue while an earlier
// REQUANT (VADD, VMUL, VLUT) still runs on the post-processor (docs/isa.md,
// section 3). The hardware does not stall for data hazards between the two; the
// program must keep them apart (the compiler's double-buffered accumulator
// tiles do). Both timed backends fault on a violation, since their values take
// effect at completion and would otherwise hide it.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SIMULATOR_POSTPROCESSORHAZARD_H
#define SYSTOLE_SIMULATOR_POSTPROCESSORHAZARD_H

#include "systole/ISA/Instruction.h"

#include <optional>
#include <string>

namespace systole::sim {

/// Does `matmul` write accumulator words `requant` reads (its input tile,
/// bias, scales) or read scratchpad bytes it writes? `requant` may also be a
/// VADD, VMUL or VLUT on the post-processor (isa::onPostProcessor): then
/// only its scratchpad writes can conflict. Footprints are the operands'
/// bounding address intervals. Returns the conflict, described.
std::optional<std::string> postProcessorHazard(const isa::Instruction &matmul,
                                               const isa::Instruction &requant);

} // namespace systole::sim

#endif // SYSTOLE_SIMULATOR_POSTPROCESSORHAZARD_H
