//===- NPUOps.h - npu dialect ops and instruction encoding ------*- C++ -*-===//
//
// The op classes (generated from Instructions.def through ODS) and the two
// functions that tie them to the ISA's encoding: an instruction op <-> an
// isa::Instruction, exact in both directions, every field by its table name.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_DIALECT_NPU_NPUOPS_H
#define SYSTOLE_DIALECT_NPU_NPUOPS_H

#include "systole/Dialect/NPU/NPUDialect.h"
#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Instruction.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/Error.h"

#include "systole/Dialect/NPU/NPUAttributes.h"

#define GET_TYPEDEF_CLASSES
#include "systole/Dialect/NPU/NPUTypes.h.inc"

namespace systole::npu {
/// Generic parser, printer and verifier of every instruction op.
mlir::ParseResult parseInstruction(mlir::OpAsmParser &parser,
                                   mlir::OperationState &result,
                                   isa::Opcode opcode);
void printInstruction(mlir::Operation *op, mlir::OpAsmPrinter &p);
mlir::LogicalResult verifyInstruction(mlir::Operation *op);
/// Names token results after their FIFO (%l2c, %c2l, %c2s, %s2c).
void getTokenResultNames(
    mlir::Operation *op,
    mlir::function_ref<void(mlir::Value, llvm::StringRef)> setName);
} // namespace systole::npu

#include "systole/Dialect/NPU/NPUOpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "systole/Dialect/NPU/NPUOps.h.inc"

namespace systole::npu {

/// The instruction an op encodes: its fields from the attributes (absent
/// ones are 0), its dependency flags from the token operands and results.
/// The op must verify (fields in range).
isa::Instruction encodeInstruction(InstructionOpInterface op);

/// Builds the op of `inst` at the builder's point. `popPrev`/`popNext` are
/// the tokens it pops (null where its flag is clear; the caller pairs them
/// with pushes). Results: push_prev then push_next, each only if set.
InstructionOpInterface buildInstruction(mlir::OpBuilder &b, mlir::Location loc,
                                        const isa::Instruction &inst,
                                        mlir::Value popPrev,
                                        mlir::Value popNext);

/// The queue that executes the op (FENCE: its `queue` field).
isa::Queue queueOf(InstructionOpInterface op);

/// Builds `stream` at the builder's point, one op per instruction, its
/// dependency flags as tokens paired FIFO by FIFO (the k-th pop of a FIFO
/// takes its k-th push). Returns the ops; fails, building nothing, when a
/// FIFO is popped more often than pushed.
llvm::Expected<llvm::SmallVector<mlir::Operation *>>
buildInstructionStream(mlir::OpBuilder &b, mlir::Location loc,
                       llvm::ArrayRef<isa::Instruction> stream);

/// The `hw` of an npu.program for `config`: the preset's name when it is a
/// bundled preset unchanged, its JSON otherwise.
std::string hwConfigText(const isa::HwConfig &config);

} // namespace systole::npu

#endif // SYSTOLE_DIALECT_NPU_NPUOPS_H
