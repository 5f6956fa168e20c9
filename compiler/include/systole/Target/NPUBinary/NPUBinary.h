//===- NPUBinary.h - npu IR <-> the instruction streams of a .npu -*- C++
//-*-===//
//
// The NPU program as IR and back, exactly: importProgram turns the NPU
// segments of an isa::Program into an npu.program (tokens paired FIFO by
// FIFO into SSA values), exportProgram writes the instruction streams of an
// npu.program into an isa::Program, bit for bit. The compiler emits every
// .npu through this pair (the binaries are the same bytes as without it,
// tools/npu-identical.sh), `systole-translate --npu-to-mlir` prints a
// binary's program, `systole compile --emit-npu-mlir` a compiled one.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_TARGET_NPUBINARY_NPUBINARY_H
#define SYSTOLE_TARGET_NPUBINARY_NPUBINARY_H

#include "systole/Dialect/NPU/NPUOps.h"
#include "systole/ISA/Program.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

namespace systole::npu {

/// A module holding one npu.program: the hardware config of `program` and
/// one npu.segment per NPU segment. Fails if a segment's tokens do not pair
/// (a pop with no push), which a verified program never has.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importProgram(const isa::Program &program, mlir::MLIRContext *context);

/// Replaces the instructions of `program`'s NPU segments with those of the
/// npu.program in `module` (matched by segment index). Every NPU segment of
/// `program` must have its npu.segment and nothing else may differ in kind.
llvm::Error exportProgram(mlir::ModuleOp module, isa::Program &program);

/// Registers the translations of systole-translate.
void registerNPUTranslations();

} // namespace systole::npu

#endif // SYSTOLE_TARGET_NPUBINARY_NPUBINARY_H
