//===- Assembly.h - Text assembly for NPU programs ---------------*- C++
//-*-===//
//
// One instruction per line: `mnemonic field=value ...` (fields named as in
// Instructions.def; omitted fields are 0; dependency flags are the fields
// pop_prev/pop_next/push_prev/push_next). Comments start with ';' or '#'.
// Directives describe the rest of the .npu (see docs/isa.md, "Assembly").
// printProgramAsm() emits the canonical form, and
//   parseProgramAsm(printProgramAsm(p), p.config) == p
// holds for every valid program, which makes asm -> .npu -> objdump -d -> asm
// a fixed point.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_ISA_ASSEMBLY_H
#define SYSTOLE_ISA_ASSEMBLY_H

#include "systole/ISA/Program.h"

#include <string>

namespace systole::isa {

/// Canonical text of one instruction (no trailing newline).
std::string printInstruction(const Instruction &inst);
/// Parses one instruction line without comment.
llvm::Expected<Instruction> parseInstruction(llvm::StringRef text);

/// Canonical text of a whole program. The hardware config is referenced by
/// name (`.hw "name"`), not embedded; the assembler takes it separately.
std::string printProgramAsm(const Program &program);

/// Parses program text. Errors read "<bufferName>:<line>:<col>: error: ...".
/// Does not run verifyProgram(); callers that write a binary should.
llvm::Expected<Program> parseProgramAsm(llvm::StringRef text,
                                        const HwConfig &config,
                                        llvm::StringRef bufferName = "<asm>");

/// The instruction table as Markdown (docs/isa.md) or as a SystemVerilog
/// package (RTL), both derived from Instructions.def.
std::string emitInstructionTableMarkdown();
std::string emitSystemVerilogPackage();

} // namespace systole::isa

#endif // SYSTOLE_ISA_ASSEMBLY_H
