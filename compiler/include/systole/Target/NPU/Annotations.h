//===- Annotations.h - Attributes the NPU passes exchange -------*- C++ -*-===//
//
// The NPU passes communicate through attributes on graph ops (typed ones of
// the npu dialect for placement and tile plans), so each stage can be run
// and lit-tested alone with systole-opt.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_TARGET_NPU_ANNOTATIONS_H
#define SYSTOLE_TARGET_NPU_ANNOTATIONS_H

#include "systole/Dialect/NPU/NPUAttributes.h"
#include "systole/ISA/HwConfig.h"
#include "systole/Target/NPU/TilePlan.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace systole::npu {

constexpr llvm::StringLiteral kPlacementAttr = "npu.placement";
constexpr llvm::StringLiteral kTileAttr = "npu.tile";
constexpr llvm::StringLiteral kDramAttr = "npu.dram";
/// Why the partitioner put an op on the host (its NPU rejection), for the
/// compile report's placement summary.
constexpr llvm::StringLiteral kHostReasonAttr = "npu.host_reason";
/// On a graph.add: the index of the operand whose producing convolution
/// applies this add in its epilogue (npu-fuse-residual).
constexpr llvm::StringLiteral kResidualAttr = "npu.residual_of";
/// On a graph.concat: its producers store their results into its channel
/// slices (npu-concat-in-place); it has no code.
constexpr llvm::StringLiteral kInPlaceAttr = "npu.in_place";
/// On an elementwise layer: the table reading its result runs as a layer
/// of its own (npu-plan-tiles found no tiling of the two together).
constexpr llvm::StringLiteral kTableApartAttr = "npu.table_apart";

/// On a convolution: its output stays in the scratchpad as the next
/// layer's input tile; on that next layer: its input is read there
/// (npu-plan-cascades).
constexpr llvm::StringLiteral kKeepOutputAttr = "npu.keep_output";
constexpr llvm::StringLiteral kInputOnChipAttr = "npu.input_on_chip";

std::optional<Placement> getPlacement(mlir::Operation *op);
void setPlacement(mlir::Operation *op, Placement p);

/// DRAM byte offset of a value (op result or function argument).
std::optional<int64_t> getDramOffset(mlir::Value v);
void setDramOffset(mlir::Value v, int64_t offset);

/// The tile plan npu-plan-tiles recorded on an op (npu.tile, a
/// #npu.tile attribute), if any.
std::optional<TilePlan> getTilePlan(mlir::Operation *op);
/// The cost model's cycles for that plan (0 without one).
uint64_t getPredictedCycles(mlir::Operation *op);
void setTilePlan(mlir::Operation *op, const TilePlan &plan,
                 uint64_t predictedCycles);

/// Bytes of one element of a tensor value as stored on the NPU.
int64_t storedElementBytes(mlir::Type tensorType);
/// Bytes of a tensor value as stored on the NPU.
int64_t storedBytes(mlir::Type tensorType);

} // namespace systole::npu

#endif // SYSTOLE_TARGET_NPU_ANNOTATIONS_H
