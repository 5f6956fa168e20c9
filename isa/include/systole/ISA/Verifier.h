//===- Verifier.h - Checks every loader runs on a .npu ----------*- C++ -*-===//
//
// Structural verification (FlatBuffers Verifier, identifier, version) happens
// in readProgram(); the semantic checks below run on the decoded Program:
// config validity, every instruction's fields and footprints against the
// memories, DRAM ranges against the memory plan, token balance and an
// in-order abstract execution of the queues (deadlock detection), tensor
// sizes, constants, host segments, debug info. Errors name the segment,
// instruction index and field.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_ISA_VERIFIER_H
#define SYSTOLE_ISA_VERIFIER_H

#include "systole/ISA/Program.h"

namespace systole::isa {

/// Config-dependent checks of one instruction: sizes nonzero, shapes within
/// the array, dataflow supported, SP/ACC footprints inside their memories.
llvm::Error validateInstruction(const Instruction &inst, const HwConfig &cfg);

/// Token discipline of one NPU stream: per-FIFO pushes == pops, and the
/// abstract in-order execution (fetch into cmd_depth-deep queues, each queue
/// in order, blocking on empty token FIFOs) reaches END with all queues
/// empty. Reports the blocked instructions on deadlock.
llvm::Error verifyTokenDiscipline(llvm::ArrayRef<Instruction> stream,
                                  const HwConfig &cfg);

/// All semantic checks of a whole program.
llvm::Error verifyProgram(const Program &program);

} // namespace systole::isa

#endif // SYSTOLE_ISA_VERIFIER_H
