//===- TableChain.h - int8 -> f -> int8 chains as 256-entry tables -*- C++
//-*-===//
//
// Internal to the NPU target. A QDQ model computes an elementwise float
// function of an int8 tensor as DequantizeLinear -> f -> QuantizeLinear; its
// input has 256 codes, so the chain is a table over them. The table is the
// chain's own host code run on the 256 codes (npu-fold-tables,
// npu-fuse-gate).
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_TARGET_NPU_TABLECHAIN_H
#define SYSTOLE_LIB_TARGET_NPU_TABLECHAIN_H

#include "systole/Dialect/Graph/GraphOps.h"
#include "systole/Dialect/Graph/QuantizedTypes.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace systole::npu::tables {

using graph::quantized8;

/// The float ops between a dequantize and the one quantize reading their
/// result, in program order.
struct Chain {
  llvm::SmallVector<mlir::Operation *> ops;
  graph::QuantizeOp quantize;
  /// Some op reads a per-channel constant: one table per channel.
  bool perChannel = false;
};
/// The chain after `dq` when every op in it is elementwise in the one
/// dequantized value (other operands one-element constants), host-placed,
/// and nothing outside the chain reads its intermediate values. With
/// `allowTranspose`, the op reading the dequantize may be a transpose (the
/// table is the same; the caller handles the layout).
/// With `allowPerChannel`, other operands may also be constants with one
/// value per channel (the last dimension) that the op reads along that
/// dimension only (BatchNormalization's [C] parameters, a [1,1,1,C] scale).
std::optional<Chain> chainAfter(graph::DequantizeOp dq,
                                bool allowTranspose = false,
                                bool allowPerChannel = false);

/// Runs the chain's host code on every input code; returns the 256 output
/// storage bytes, indexed by input code - storage minimum; for a
/// per-channel chain C such rows, channel-major.
llvm::Expected<std::vector<int8_t>> evaluate(graph::DequantizeOp dq,
                                             const Chain &chain);

/// The table attribute of `table` ([256], or [C, 256] when it holds C
/// rows that are not all equal; equal rows are one [256] table).
mlir::DenseIntElementsAttr tableAttr(mlir::Builder &b,
                                     llvm::ArrayRef<int8_t> table);

/// A graph.table on the NPU mapping `input` (the dequantize's input) through
/// `table` (tableAttr), with the quantize's
/// element type and `input`'s shape.
graph::TableOp createTable(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value input, graph::QuantizeOp quantize,
                           llvm::ArrayRef<int8_t> table);

/// Entry k: the code `in`'s minimum + k dequantized with `in`'s parameters
/// and quantized with `out`'s, as the host's builtin kernels do (a QDQ
/// concat's DequantizeLinear -> Concat -> QuantizeLinear per input).
std::vector<int8_t> requantTable(mlir::quant::UniformQuantizedType in,
                                 mlir::quant::UniformQuantizedType out);

/// Replaces `chain` (after `dq`) by a graph.table of `input` with `table`,
/// named after the chain's last float op (the report lists it as an NPU op
/// of that ONNX node), behind a reshape alias when the quantize's shape
/// differs; erases the chain, `dq` and `first` (a table the new one
/// composed, or null). Returns the table.
graph::TableOp replaceChain(graph::DequantizeOp dq, const Chain &chain,
                            mlir::Value input, llvm::ArrayRef<int8_t> table,
                            graph::TableOp first);

/// The code a table entry (a storage byte) stands for in type `q`.
int32_t codeOf(mlir::quant::UniformQuantizedType q, int8_t byte);

/// `table` (over `first`'s output codes) applied after `first`: a table
/// over `first`'s input codes. Either may be per channel (then so is the
/// result).
std::vector<int8_t> composeAfter(graph::TableOp first,
                                 llvm::ArrayRef<int8_t> table);

/// Erases a folded chain: the quantize (whose uses are replaced), the float
/// ops and the dequantize.
void eraseChain(graph::DequantizeOp dq, const Chain &chain);

} // namespace systole::npu::tables

#endif // SYSTOLE_LIB_TARGET_NPU_TABLECHAIN_H
