//===- ConstantTensors.h - Constant weights as the graph passes see them --===//
//
// A weight is an `arith.constant` of its storage integers, quantized
// through one `quant.scast` (the graph transforms and the NPU passes that
// fold constants read it this way).
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_DIALECT_GRAPH_CONSTANTTENSORS_H
#define SYSTOLE_DIALECT_GRAPH_CONSTANTTENSORS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

namespace systole::graph {

/// The dense constant behind `v`, directly or through one storage cast.
mlir::DenseElementsAttr constantBehind(mlir::Value v);

/// Rebuilds a tensor of type `result` (quantized or plain) from a dense
/// constant of its storage type.
mlir::Value materializeConstant(mlir::PatternRewriter &rewriter,
                                mlir::Location loc,
                                mlir::DenseElementsAttr data,
                                mlir::RankedTensorType result);

} // namespace systole::graph

#endif // SYSTOLE_DIALECT_GRAPH_CONSTANTTENSORS_H
