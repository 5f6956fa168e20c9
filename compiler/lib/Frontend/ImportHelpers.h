//===- ImportHelpers.h - Helpers shared by the op importers -----*- C++ -*-===//
//
// Internal to the frontend: the small operand, data type and IR helpers that
// more than one op translator (Import*.cpp) needs, declared once here.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_FRONTEND_IMPORTHELPERS_H
#define SYSTOLE_LIB_FRONTEND_IMPORTHELPERS_H

#include "ImportContext.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

#include <vector>

namespace systole::frontend {

// Operands --------------------------------------------------------------------

/// ONNX's `axis` (may be negative) for a tensor of `rank`, in [0, rank);
/// "axis A out of range for rank R" otherwise. (ImportQuant.cpp,
/// ImportFloat.cpp and ImportScan.cpp keep their own forms: other bounds or
/// messages.)
llvm::Expected<int64_t> normalizeAxis(ImportContext &ic, int64_t axis,
                                      int64_t rank);

/// The host op's operands must be plain tensors: quantized values reach the
/// host only through dequantize.
llvm::Expected<mlir::Value> plainInput(ImportContext &ic, int i);

/// Shape of input `i`, whether a constant or an IR value.
llvm::Expected<std::vector<int64_t>> shapeOfInput(ImportContext &ic, int i);

/// Defines output 0 as `t`, folded at import. A rank-0 graph output is
/// written by a host op instead: the importer copies constant graph outputs
/// with linalg.copy, and upstream linalg elementwise fusion (LLVM 19)
/// crashes on a rank-0 linalg.copy of a constant.
llvm::Error defineFolded(ImportContext &ic, HostTensor t);

/// scf.for with tensor iter_args: the host pipeline bufferizes them only
/// with scf's bufferization models, which it does not register itself.
void loadScf(ImportContext &ic);

// Quantized operands of Conv, MatMul and Gemm ---------------------------------

/// Quantization parameter input positions of a QOperator node; -1 = absent.
struct QuantOperands {
  int x = 0, xScale = -1, xZp = -1;
  int w = 1, wScale = -1, wZp = -1;
  int yScale = -1, yZp = -1;
  int bias = -1;
};

/// Operands of a QOperator/Integer node, cast to their quantized types.
struct LinearOperands {
  mlir::Value x, w, bias;
  mlir::Type resultElement;
};

/// The x, w (weight scales along `wAxis`) and bias operands of a QOperator
/// (QLinearConv, QLinearMatMul, QGemm) or, with `integerOp`, an integer
/// (ConvInteger, MatMulInteger) node, and the element type of its result.
/// Defined in ImportLinear.cpp; ImportConv.cpp uses it too.
llvm::Expected<LinearOperands> quantizedOperands(ImportContext &ic,
                                                 const QuantOperands &q,
                                                 int64_t wAxis, bool integerOp);

// ONNX data types -------------------------------------------------------------

/// The element type of ONNX TensorProto data type `dataType` (float16/32/64,
/// bfloat16, bool, int8..int64 and uint8..uint64; the unsigned ones as
/// signless integers, ImportContext::isUnsigned says which are unsigned), or
/// a null type for the others. Callers word their own error.
mlir::Type onnxElementType(mlir::MLIRContext *ctx, int64_t dataType);

// IR builders (systole/Conversion/LoweringUtils.h, shared with the host body
// builders of lib/Conversion/OnnxToLinalg) ------------------------------------

using conversion::lowering::addOf;
using conversion::lowering::castFloat;
using conversion::lowering::cIndex;
using conversion::lowering::filledWith;
using conversion::lowering::mulOf;
using conversion::lowering::parallel;
using conversion::lowering::scalar;

} // namespace systole::frontend

#endif // SYSTOLE_LIB_FRONTEND_IMPORTHELPERS_H
