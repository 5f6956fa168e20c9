//===- QuantizedTypes.h - The 8-bit quantized tensors of the graph -*- C++
//-*-===//
//
// Activations in a quantized graph are 8-bit (int8 or uint8) per-tensor
// uniform quantized: what the QDQ folds produce and the NPU computes on.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_DIALECT_GRAPH_QUANTIZEDTYPES_H
#define SYSTOLE_DIALECT_GRAPH_QUANTIZEDTYPES_H

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/TypeUtilities.h"

namespace systole::graph {

/// The 8-bit per-tensor quantized element type of `t` (a tensor or an
/// element type), or null.
inline mlir::quant::UniformQuantizedType quantized8(mlir::Type t) {
  auto q = mlir::dyn_cast<mlir::quant::UniformQuantizedType>(
      mlir::getElementTypeOrSelf(t));
  return q && q.getStorageTypeIntegralWidth() == 8 ? q : nullptr;
}

} // namespace systole::graph

#endif // SYSTOLE_DIALECT_GRAPH_QUANTIZEDTYPES_H
