//===- GraphOps.h - Graph dialect operations --------------------*- C++ -*-===//
#ifndef SYSTOLE_DIALECT_GRAPH_GRAPHOPS_H
#define SYSTOLE_DIALECT_GRAPH_GRAPHOPS_H

#include "systole/Dialect/Graph/GraphDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "systole/Dialect/Graph/GraphEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "systole/Dialect/Graph/GraphAttrs.h.inc"

#define GET_OP_CLASSES
#include "systole/Dialect/Graph/GraphOps.h.inc"

namespace systole::graph {

/// Output extent of a sliding window along one axis (ONNX floor semantics),
/// or a non-positive value when the window does not fit.
int64_t windowOutputSize(int64_t input, int64_t kernel, int64_t stride,
                         int64_t dilation, int64_t padBegin, int64_t padEnd);

/// ONNX multidirectional broadcast of two shapes; fails if incompatible.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// True if the element type is a `!quant.uniform` type (per-tensor or axis).
bool isQuantized(mlir::Type type);

/// A quantized tensor type's storage form (the same shape of its signless
/// storage integers: the bytes DRAM holds); any other type unchanged. A
/// graph.host computing on codes (com.microsoft QLinearSoftmax) has region
/// arguments and a yield in this form.
mlir::Type storageForm(mlir::Type type);

/// Index of the channel dimension of a 4-D activation in `layout`.
inline int64_t channelDim(Layout layout) {
  return layout == Layout::NCHW ? 1 : 3;
}
/// On a graph.conv2d whose filter graph-drop-padding-taps cut: kh * kw of
/// the model's kernel, so MAC counts stay the model's (PlacementSummary).
inline constexpr llvm::StringLiteral kModelWindowAttr = "graph.model_window";
/// On a graph.conv2d that computes a ConvTranspose (the importer's
/// ConvTransposeAsConv): the ConvTranspose's MACs (input elements x Cout x
/// kernel area), which the convolution's zero taps exceed.
inline constexpr llvm::StringLiteral kModelMacsAttr = "graph.model_macs";
/// On a 1x1 convolution that only copies codes between channels (a channel
/// shuffle or split, ChannelGather.cpp): the array runs it, but it is data
/// movement, not the model's multiply-accumulates (MAC counts, the bound).
inline constexpr llvm::StringLiteral kDataMovementAttr = "graph.data_movement";

/// Index of the first spatial (H) dimension; W follows it.
inline int64_t spatialDim(Layout layout) {
  return layout == Layout::NCHW ? 2 : 1;
}

} // namespace systole::graph

#endif // SYSTOLE_DIALECT_GRAPH_GRAPHOPS_H
