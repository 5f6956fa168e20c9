//===- LoweringUtils.cpp - Shared builders of the graph -> linalg lowering ===//
#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace systole::conversion::lowering {

using namespace mlir;

RankedTensorType tensorTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

bool isF32Tensor(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && r.getElementType().isF32();
}

bool allF32(Operation *op) {
  for (Type t : op->getOperandTypes())
    if (!isF32Tensor(t))
      return false;
  for (Type t : op->getResultTypes())
    if (!isF32Tensor(t))
      return false;
  return true;
}

Value f32(OpBuilder &b, Location loc, double v) {
  return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(float(v)));
}

/// ONNX (numpy) broadcasting: `in` aligned to the right of `outRank` loop
/// dims; size-1 dims that the output expands read index 0.
AffineMap broadcastMap(ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                       MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  int64_t offset = int64_t(out.size()) - int64_t(in.size());
  for (int64_t i = 0; i < int64_t(in.size()); ++i)
    exprs.push_back(in[i] == 1 && out[i + offset] != 1
                        ? getAffineConstantExpr(0, ctx)
                        : getAffineDimExpr(i + offset, ctx));
  return AffineMap::get(out.size(), 0, exprs, ctx);
}

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Type elem) {
  return b.create<tensor::EmptyOp>(loc, shape, elem ? elem : b.getF32Type());
}

Value filled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, double v) {
  return b
      .create<linalg::FillOp>(loc, ValueRange{f32(b, loc, v)},
                              ValueRange{emptyTensor(b, loc, shape)})
      .getResult(0);
}

/// out[i] = body(ins[i]...) with broadcasting of every input to `shape`.
Value elementwise(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  ValueRange ins, BodyFn body, Type elem) {
  if (!elem)
    elem = b.getF32Type();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value v : ins)
    maps.push_back(broadcastMap(tensorTypeOf(v).getShape(), shape, ctx));
  maps.push_back(AffineMap::getMultiDimIdentityMap(shape.size(), ctx));
  SmallVector<utils::IteratorType> iters(shape.size(),
                                         utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{RankedTensorType::get(shape, elem)}, ins,
          ValueRange{emptyTensor(b, loc, shape, elem)}, maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            nb.create<linalg::YieldOp>(l, body(nb, l, args.drop_back()));
          })
      .getResult(0);
}

/// Reduces `in` over `axes` (sorted) into a tensor without those dims;
/// `combine(acc, x)` in loop order, starting from `init`.
Value reduce(OpBuilder &b, Location loc, Value in, ArrayRef<int64_t> axes,
             double init, CombineFn combine) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> shape = tensorTypeOf(in).getShape();
  SmallVector<int64_t> outShape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iters;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    bool reduced = llvm::is_contained(axes, d);
    iters.push_back(reduced ? utils::IteratorType::reduction
                            : utils::IteratorType::parallel);
    if (!reduced) {
      outShape.push_back(shape[d]);
      outExprs.push_back(getAffineDimExpr(d, ctx));
    }
  }
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(shape.size(), ctx),
      AffineMap::get(shape.size(), 0, outExprs, ctx)};
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{RankedTensorType::get(outShape, b.getF32Type())},
          ValueRange{in}, ValueRange{filled(b, loc, outShape, init)}, maps,
          iters,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            nb.create<linalg::YieldOp>(l, combine(nb, l, args[1], args[0]));
          })
      .getResult(0);
}

/// A reduced tensor (dims `axes` removed) read back at full rank `rank`.
AffineMap reducedMap(int64_t rank, ArrayRef<int64_t> axes, MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(axes, d))
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// out = body(full, reduced...) where each `reduced` lacks dims `axes`.
Value withReduced(OpBuilder &b, Location loc, Value full, ValueRange reduced,
                  ArrayRef<int64_t> axes, BodyFn body) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> shape = tensorTypeOf(full).getShape();
  int64_t rank = shape.size();
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx)};
  for (size_t i = 0; i < reduced.size(); ++i)
    maps.push_back(reducedMap(rank, axes, ctx));
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<Value> ins = {full};
  ins.append(reduced.begin(), reduced.end());
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{full.getType()}, ins,
          ValueRange{emptyTensor(b, loc, shape)}, maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            nb.create<linalg::YieldOp>(l, body(nb, l, args.drop_back()));
          })
      .getResult(0);
}

/// Row-major reshape through a 1-D tensor (static shapes only).
Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = tensorTypeOf(v);
  if (type.getShape() == shape)
    return v;
  auto flatType =
      RankedTensorType::get({type.getNumElements()}, type.getElementType());
  Value flat = v;
  if (type.getRank() == 0) {
    flat = b.create<tensor::ExpandShapeOp>(loc, flatType, v,
                                           ArrayRef<ReassociationIndices>{});
  } else if (type.getRank() != 1) {
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      all[0].push_back(d);
    flat = b.create<tensor::CollapseShapeOp>(loc, flatType, v, all);
  }
  if (shape.size() == 1)
    return flat;
  SmallVector<ReassociationIndices> all(1);
  for (int64_t d = 0; d < int64_t(shape.size()); ++d)
    all[0].push_back(d);
  auto outType = RankedTensorType::get(shape, type.getElementType());
  if (shape.empty())
    return b.create<tensor::CollapseShapeOp>(loc, outType, flat,
                                             ArrayRef<ReassociationIndices>{});
  return b.create<tensor::ExpandShapeOp>(loc, outType, flat, all);
}

Value padded(OpBuilder &b, Location loc, Value in, ArrayRef<int64_t> low,
             ArrayRef<int64_t> high, double value) {
  if (llvm::all_of(low, [](int64_t x) { return x == 0; }) &&
      llvm::all_of(high, [](int64_t x) { return x == 0; }))
    return in;
  auto type = tensorTypeOf(in);
  SmallVector<int64_t> shape(type.getShape());
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] += low[d] + high[d];
  MLIRContext *ctx = b.getContext();
  return b.create<tensor::PadOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), in,
      getAsIndexOpFoldResult(ctx, low), getAsIndexOpFoldResult(ctx, high),
      f32(b, loc, value));
}

/// Spatial padding [top, left, bottom, right] of an NCHW or NHWC tensor.
Value padSpatial(OpBuilder &b, Location loc, Value in, ArrayRef<int64_t> pads,
                 bool nhwc, double value) {
  SmallVector<int64_t> low(4, 0), high(4, 0);
  int64_t h = nhwc ? 1 : 2;
  low[h] = pads[0];
  low[h + 1] = pads[1];
  high[h] = pads[2];
  high[h + 1] = pads[3];
  return padded(b, loc, in, low, high, value);
}

Value scalar(OpBuilder &b, Location loc, Type t, double v) {
  if (auto f = dyn_cast<FloatType>(t))
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(f, v));
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, int64_t(v)));
}

Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

Value addOf(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::AddFOp>(loc, x, y);
  return b.create<arith::AddIOp>(loc, x, y);
}

Value mulOf(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::MulFOp>(loc, x, y);
  return b.create<arith::MulIOp>(loc, x, y);
}

Value maxOf(OpBuilder &b, Location loc, Value x, Value y, bool uns) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::MaximumFOp>(loc, x, y);
  if (uns)
    return b.create<arith::MaxUIOp>(loc, x, y);
  return b.create<arith::MaxSIOp>(loc, x, y);
}

Value minOf(OpBuilder &b, Location loc, Value x, Value y, bool uns) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::MinimumFOp>(loc, x, y);
  if (uns)
    return b.create<arith::MinUIOp>(loc, x, y);
  return b.create<arith::MinSIOp>(loc, x, y);
}

Value filledWith(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Value v) {
  Value e = b.create<tensor::EmptyOp>(loc, shape, v.getType());
  return b.create<linalg::FillOp>(loc, ValueRange{v}, ValueRange{e})
      .getResult(0);
}

Value castFloat(OpBuilder &b, Location loc, Value v, Type to) {
  auto from = cast<FloatType>(v.getType());
  auto t = cast<FloatType>(to);
  if (from == t)
    return v;
  if (from.getWidth() < t.getWidth())
    return b.create<arith::ExtFOp>(loc, to, v);
  return b.create<arith::TruncFOp>(loc, to, v);
}

SmallVector<utils::IteratorType> parallel(int64_t n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

} // namespace systole::conversion::lowering
