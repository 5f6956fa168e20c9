//===- PlacementSummary.h - Ops and MACs on the NPU and the host -*- C++
//-*-===//
//
// What the compile report and `systole report` say about placement: each
// computing graph op, where the partitioner put it, why (if it recorded a
// reason) and how many multiply-accumulates it does. Stored in the .npu
// (Program.placement), so a report of the binary alone can show it.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_TARGET_NPU_PLACEMENTSUMMARY_H
#define SYSTOLE_TARGET_NPU_PLACEMENTSUMMARY_H

#include "systole/ISA/Program.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace systole::npu {

/// Multiply-accumulates `op` does, wherever it runs: conv2d (output elements
/// x input channels per group x kernel area), matmul (output elements x K),
/// and, for a graph.host op of an ONNX op whose work is multiply-accumulates
/// (Conv, ConvTranspose, MatMul, Gemm, Einsum, RNN/GRU/LSTM, ...), its
/// contractions (linalg ops with a reduction whose body multiplies, times
/// the trip counts of enclosing constant loops; ConvTranspose from its
/// shapes). Other ops count none. Where no count is derivable, returns 0
/// and says why in `note`.
uint64_t countMacs(mlir::Operation *op, std::string *note = nullptr);

/// One entry per computing graph op of `func` (partitioned), in program
/// order; reshapes are aliases with no code and are left out.
std::vector<isa::OpPlacement> summarizePlacement(mlir::func::FuncOp func);

/// The ONNX node name an op was imported from (its NameLoc, also inside a
/// FusedLoc after folding), "" if it has none.
std::string onnxNodeName(mlir::Location loc);

} // namespace systole::npu

#endif // SYSTOLE_TARGET_NPU_PLACEMENTSUMMARY_H
