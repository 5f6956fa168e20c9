//===- LoweringUtils.h - Shared builders of the graph -> linalg lowering -*- C++
//-*-===//
//
// Helpers every host-op lowering uses: ONNX broadcasting maps, elementwise
// and reduction linalg.generic builders, row-major reshapes and padding. One
// header so the lowerings can live in one file per op family.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_CONVERSION_GRAPHTOLINALG_LOWERINGUTILS_H
#define SYSTOLE_CONVERSION_GRAPHTOLINALG_LOWERINGUTILS_H

#include "systole/Conversion/Passes.h"
#include "systole/Dialect/Graph/GraphOps.h"

#include "mlir/IR/PatternMatch.h"

namespace systole::conversion::lowering {

using BodyFn = llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                              mlir::ValueRange)>;
using CombineFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::Value, mlir::Value)>;

mlir::RankedTensorType tensorTypeOf(mlir::Value v);
/// The ranked tensor type of `shape` with `element`, and a ranked tensor
/// value's shape and element type.
inline mlir::RankedTensorType tensorType(llvm::ArrayRef<int64_t> shape,
                                         mlir::Type element) {
  return mlir::RankedTensorType::get(shape, element);
}
inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType()).getShape();
}
inline mlir::Type elementOf(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType()).getElementType();
}
bool isF32Tensor(mlir::Type t);
/// Every operand and result is a float32 tensor.
bool allF32(mlir::Operation *op);
mlir::Value f32(mlir::OpBuilder &b, mlir::Location loc, double v);
/// ONNX (numpy) broadcasting: `in` aligned to the right of `out.size()` loop
/// dims; size-1 dims that the output expands read index 0.
mlir::AffineMap broadcastMap(llvm::ArrayRef<int64_t> in,
                             llvm::ArrayRef<int64_t> out,
                             mlir::MLIRContext *ctx);
/// An uninitialized tensor (float32 unless `elem` is given).
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<int64_t> shape, mlir::Type elem = {});
/// A float32 tensor filled with `v`.
mlir::Value filled(mlir::OpBuilder &b, mlir::Location loc,
                   llvm::ArrayRef<int64_t> shape, double v);
/// out[i] = body(ins[i]...) with broadcasting of every input to `shape`;
/// the result element type is float32 unless `elem` is given.
mlir::Value elementwise(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<int64_t> shape, mlir::ValueRange ins,
                        BodyFn body, mlir::Type elem = {});
/// Reduces `in` over `axes` (sorted) into a tensor without those dims;
/// `combine(acc, x)` in loop order, starting from `init`.
mlir::Value reduce(mlir::OpBuilder &b, mlir::Location loc, mlir::Value in,
                   llvm::ArrayRef<int64_t> axes, double init,
                   CombineFn combine);
/// A reduced tensor (dims `axes` removed) read back at full rank `rank`.
mlir::AffineMap reducedMap(int64_t rank, llvm::ArrayRef<int64_t> axes,
                           mlir::MLIRContext *ctx);
/// out = body(full, reduced...) where each `reduced` lacks dims `axes`.
mlir::Value withReduced(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value full, mlir::ValueRange reduced,
                        llvm::ArrayRef<int64_t> axes, BodyFn body);
/// Row-major reshape through a 1-D tensor (static shapes only).
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      llvm::ArrayRef<int64_t> shape);
/// tensor.pad with a float constant.
mlir::Value padded(mlir::OpBuilder &b, mlir::Location loc, mlir::Value in,
                   llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                   double value);
/// Spatial padding [top, left, bottom, right] of an NCHW or NHWC tensor.
mlir::Value padSpatial(mlir::OpBuilder &b, mlir::Location loc, mlir::Value in,
                       llvm::ArrayRef<int64_t> pads, bool nhwc, double value);

// Scalars and fills of any element type (the importer's and the host body
// builders' common vocabulary).

/// A constant `v` of the scalar type `t` (float or integer).
mlir::Value scalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                   double v);
/// An index constant.
mlir::Value cIndex(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
/// x + y and x * y of two float or two integer scalars (arith's float or
/// integer op by the type).
mlir::Value addOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  mlir::Value y);
mlir::Value mulOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  mlir::Value y);
/// max(x, y) and min(x, y) of two float scalars (NaN-propagating, as ORT)
/// or two integer scalars (unsigned when `uns`).
mlir::Value maxOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  mlir::Value y, bool uns);
mlir::Value minOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  mlir::Value y, bool uns);
/// A tensor of `shape` filled with the scalar `v` (linalg.fill).
mlir::Value filledWith(mlir::OpBuilder &b, mlir::Location loc,
                       llvm::ArrayRef<int64_t> shape, mlir::Value v);
/// Float scalar `v` extended or truncated to the float type `to`.
mlir::Value castFloat(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      mlir::Type to);
/// `n` parallel iterators (linalg.generic).
llvm::SmallVector<mlir::utils::IteratorType> parallel(int64_t n);

/// A pattern for a graph op whose operands and results are all float32;
/// `lower` returns the replacement value.
template <typename OpT> struct F32Pattern : mlir::OpRewritePattern<OpT> {
  using mlir::OpRewritePattern<OpT>::OpRewritePattern;
  mlir::LogicalResult matchAndRewrite(OpT op,
                                      mlir::PatternRewriter &rw) const final {
    if (!allF32(op))
      return rw.notifyMatchFailure(op, "the host runs float32 only");
    mlir::FailureOr<mlir::Value> v = lower(op, rw);
    if (mlir::failed(v))
      return mlir::failure();
    rw.replaceOp(op, *v);
    return mlir::success();
  }
  virtual mlir::FailureOr<mlir::Value>
  lower(OpT op, mlir::PatternRewriter &rw) const = 0;
};

} // namespace systole::conversion::lowering

#endif // SYSTOLE_CONVERSION_GRAPHTOLINALG_LOWERINGUTILS_H
