//===- Resize.cpp - The body of Resize and Upsample
//------------------------===//
//
// Resize (opsets 10-19) and Upsample (7-9) on the host. Shapes, scales,
// sizes and roi are compile-time values (the importer resolves them into
// the params), so which input pixel an output pixel reads and with which
// weight is computed here in C++ (ResizeTaps.cpp) with ONNX Runtime's
// float32 arithmetic: nearest picks exactly ORT's pixel and the
// interpolation weights are ORT's. The IR only gathers:
//
//   nearest         one linalg.generic over the output whose body reads
//                   tensor.extract X[map_0[o_0], ..., map_r[o_r]]
//   linear, cubic,  one linalg.generic per resized axis (last axis first,
//   antialias       as ORT's separable kernels), with a reduction loop over
//                   that axis' taps: acc += w[o, k] * X[.., idx[o, k], ..]
//                   (index and weight tables are dense constants)
//   extrapolation   (tf_crop_and_resize) a final elementwise select where
//                   any axis' source coordinate lies outside the input
//   same shape      a copy (ORT copies when no axis changes size)
//
// ORT only runs linear on 2-D/4-D/3-D/5-D inputs and cubic on 2-D/4-D ones;
// the per-axis form generalizes both to any set of resized axes with ORT's
// per-axis formulas (the n-linear weight is the product of the per-axis
// weights, as in ORT's bilinear/trilinear kernels).
//
//===----------------------------------------------------------------------===//
#include "HostBody.h"

#include "systole/Conversion/ResizeTaps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <optional>

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion::onnx {

namespace resize {
namespace {

using lw::castFloat;
using lw::parallel;

Value indexTable(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
                 llvm::ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, b.getI64Type());
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, values));
}

Value weightTable(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
                  llvm::ArrayRef<float> values, Type compute) {
  auto type = RankedTensorType::get(shape, compute);
  if (compute.isF64()) {
    std::vector<double> d(values.begin(), values.end());
    return b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(type, llvm::ArrayRef<double>(d)));
  }
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, values));
}

/// out[o] = X[map_d[o_d] for the resized axes, o_d elsewhere].
Value gatherNearest(OpBuilder &b, Location loc, Value x,
                    llvm::ArrayRef<int64_t> outShape,
                    llvm::ArrayRef<std::optional<AxisTaps>> taps) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = outShape.size();
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  SmallVector<int64_t> inputAxis;
  for (int64_t d = 0; d < rank; ++d) {
    if (!taps[d])
      continue;
    ins.push_back(indexTable(b, loc, {outShape[d]}, taps[d]->index));
    maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(d, ctx)));
    inputAxis.push_back(d);
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Type elem = elementOf(x);
  Value init = b.create<tensor::EmptyOp>(loc, outShape, elem);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ins, ValueRange{init}, maps,
          parallel(rank),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            SmallVector<Value> coords;
            for (int64_t d = 0; d < rank; ++d)
              coords.push_back(nb.create<linalg::IndexOp>(l, d));
            for (size_t k = 0; k < inputAxis.size(); ++k)
              coords[inputAxis[k]] =
                  nb.create<arith::IndexCastOp>(l, nb.getIndexType(), args[k]);
            Value v = nb.create<tensor::ExtractOp>(l, x, coords);
            nb.create<linalg::YieldOp>(l, v);
          })
      .getResult(0);
}

/// Resamples `x` along `axis`: out[o] = sum_k w[o_axis, k] *
/// x[..., idx[o_axis, k], ...] in `compute` precision, taps with index -1
/// skipped.
Value resampleAxis(OpBuilder &b, Location loc, Value x, int64_t axis,
                   const AxisTaps &t, Type compute) {
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> shape(shapeOf(x));
  int64_t rank = shape.size();
  int64_t outLen = t.outside.size();
  shape[axis] = outLen;
  bool padded = llvm::is_contained(t.index, int64_t(-1));
  Value idx = indexTable(b, loc, {outLen, t.taps}, t.index);
  Value w = weightTable(b, loc, {outLen, t.taps}, t.weight, compute);
  AffineMap tableMap = AffineMap::get(
      rank + 1, 0, {getAffineDimExpr(axis, ctx), getAffineDimExpr(rank, ctx)},
      ctx);
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  AffineMap outMap = AffineMap::get(rank + 1, 0, outExprs, ctx);
  SmallVector<utils::IteratorType> iters = parallel(rank);
  iters.push_back(utils::IteratorType::reduction);

  Value zero = b.create<arith::ConstantOp>(loc, b.getFloatAttr(compute, 0.0));
  Value init = b.create<linalg::FillOp>(
                    loc, zero,
                    ValueRange{b.create<tensor::EmptyOp>(loc, shape, compute)})
                   .getResult(0);
  Value acc =
      b.create<linalg::GenericOp>(
           loc, TypeRange{init.getType()}, ValueRange{idx, w}, ValueRange{init},
           SmallVector<AffineMap>{tableMap, tableMap, outMap}, iters,
           [&](OpBuilder &nb, Location l, ValueRange args) {
             SmallVector<Value> coords;
             for (int64_t d = 0; d < rank; ++d)
               coords.push_back(nb.create<linalg::IndexOp>(l, d));
             Value i64 = args[0];
             Value valid;
             if (padded) {
               Value z = nb.create<arith::ConstantOp>(
                   l, nb.getIntegerAttr(nb.getI64Type(), 0));
               valid = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge,
                                                i64, z);
               i64 = nb.create<arith::SelectOp>(l, valid, i64, z);
             }
             coords[axis] =
                 nb.create<arith::IndexCastOp>(l, nb.getIndexType(), i64);
             Value v = castFloat(
                 nb, l, nb.create<tensor::ExtractOp>(l, x, coords), compute);
             Value sum = nb.create<arith::AddFOp>(
                 l, args[2], nb.create<arith::MulFOp>(l, args[1], v));
             if (padded)
               sum = nb.create<arith::SelectOp>(l, valid, sum, args[2]);
             nb.create<linalg::YieldOp>(l, sum);
           })
          .getResult(0);
  Type elem = elementOf(x);
  if (elem == compute)
    return acc;
  Value out = b.create<tensor::EmptyOp>(loc, shape, elem);
  SmallVector<AffineMap> id(2, AffineMap::getMultiDimIdentityMap(rank, ctx));
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{out.getType()}, ValueRange{acc}, ValueRange{out}, id,
          parallel(rank),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            nb.create<linalg::YieldOp>(l, castFloat(nb, l, args[0], elem));
          })
      .getResult(0);
}

/// The extrapolation value where any axis' source coordinate is outside.
Value extrapolate(OpBuilder &b, Location loc, Value y,
                  llvm::ArrayRef<std::optional<AxisTaps>> taps, float value) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> shape = shapeOf(y);
  int64_t rank = shape.size();
  SmallVector<Value> ins = {y};
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx)};
  for (int64_t d = 0; d < rank; ++d) {
    if (!taps[d] || !taps[d]->anyOutside())
      continue;
    auto type = RankedTensorType::get({shape[d]}, b.getI8Type());
    ins.push_back(b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(type, llvm::ArrayRef(taps[d]->outside))));
    maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(d, ctx)));
  }
  if (ins.size() == 1)
    return y;
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Type elem = elementOf(y);
  Value init = b.create<tensor::EmptyOp>(loc, shape, elem);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ins, ValueRange{init}, maps,
          parallel(rank),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value zero = nb.create<arith::ConstantOp>(
                l, nb.getIntegerAttr(nb.getI8Type(), 0));
            Value any;
            for (Value f : args.drop_front().drop_back()) {
              Value c = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::ne, f,
                                                 zero);
              any = any ? nb.create<arith::OrIOp>(l, any, c) : c;
            }
            Value e;
            if (isa<FloatType>(elem))
              e = nb.create<arith::ConstantOp>(
                  l, nb.getFloatAttr(elem, double(value)));
            else if (elem.isInteger(1))
              e = nb.create<arith::ConstantOp>(
                  l, nb.getIntegerAttr(elem, value != 0.0f));
            else
              e = nb.create<arith::ConstantOp>(
                  l, nb.getIntegerAttr(elem, static_cast<int64_t>(value)));
            Value r = nb.create<arith::SelectOp>(l, any, e, args[0]);
            nb.create<linalg::YieldOp>(l, r);
          })
      .getResult(0);
}

/// The ResizeSpec the params describe, over `in` resized to `out`.
llvm::Expected<ResizeSpec> specOf(const Params &p, ArrayRef<int64_t> in,
                                  ArrayRef<int64_t> out) {
  ResizeSpec s;
  s.in.assign(in.begin(), in.end());
  s.out.assign(out.begin(), out.end());
  SYSTOLE_PARAM(mode, p.str("mode"));
  SYSTOLE_PARAM(coord, p.str("coordinate_transformation_mode"));
  SYSTOLE_PARAM(nearest, p.str("nearest_mode"));
  auto m = modeNamed(mode);
  auto c = coordNamed(coord);
  auto n = nearestNamed(nearest);
  if (!m || !c || !n)
    return p.fail("unknown mode, coordinate_transformation_mode or "
                  "nearest_mode");
  s.mode = *m;
  s.coord = *c;
  s.nearest = *n;
  SYSTOLE_PARAM(cubicA, p.f64("cubic_coeff_a"));
  SYSTOLE_PARAM(extrapolation, p.f64("extrapolation_value"));
  SYSTOLE_PARAM(excludeOutside, p.flag("exclude_outside"));
  SYSTOLE_PARAM(antialias, p.flag("antialias"));
  SYSTOLE_PARAM(fromScales, p.flag("from_scales"));
  SYSTOLE_PARAM(scales, p.f32s("scales"));
  SYSTOLE_PARAM(roi, p.f32s("roi"));
  s.cubicA = float(cubicA);
  s.extrapolation = float(extrapolation);
  s.excludeOutside = excludeOutside;
  s.antialias = antialias;
  s.fromScales = fromScales;
  s.scales.assign(scales.begin(), scales.end());
  s.roi.assign(roi.begin(), roi.end());
  size_t rank = in.size();
  if (out.size() != rank || s.scales.size() != rank || s.roi.size() != 2 * rank)
    return p.fail("scales need one entry per axis and roi two");
  for (size_t d = 0; d < rank; ++d)
    if (!(s.scales[d] > 0) || in[d] <= 0 || out[d] <= 0)
      return p.fail("scales and both shapes must be positive");
  return s;
}

/// Params: `mode`, `coordinate_transformation_mode`, `nearest_mode`
/// (ResizeTaps' names), `cubic_coeff_a`, `exclude_outside`, `antialias`,
/// `extrapolation_value`, `scales` (every axis), `from_scales` (the scales
/// input chose the output shape) and `roi` ([starts..., ends...]).
llvm::Expected<Value> resizeBody(OpBuilder &b, Location loc, ValueRange args,
                                 Type result, const Params &p) {
  if (args.size() != 1)
    return p.fail("expects the input only (scales, sizes and roi are params)");
  Type elem = elementOf(args[0]);
  ArrayRef<int64_t> inShape = shapeOf(args[0]);
  SYSTOLE_PARAM(s,
                specOf(p, inShape, cast<RankedTensorType>(result).getShape()));
  int64_t rank = inShape.size();

  // ORT copies when no axis changes size (whatever the coordinate mode).
  if (s.out == s.in) {
    Value init = b.create<tensor::EmptyOp>(loc, inShape, elem);
    return b.create<linalg::CopyOp>(loc, args[0], init).getResult(0);
  }
  if (s.mode != Mode::Nearest && !isa<FloatType>(elem))
    return p.fail("linear/cubic resizing needs a float tensor");

  // Per-axis taps; axes ORT treats as identity have none. Nearest and the
  // plain filters skip scale-1 axes (ORT uses the output index itself,
  // whatever the coordinate mode); antialias skips axes whose length is
  // unchanged (ORT copies them).
  SmallVector<std::optional<AxisTaps>> taps(rank);
  for (int64_t d = 0; d < rank; ++d) {
    bool identity = s.antialias ? s.out[d] == s.in[d] : s.scales[d] == 1.0f;
    if (identity)
      continue;
    if (s.antialias)
      taps[d] = antialiasTaps(s, d);
    else if (s.mode == Mode::Nearest)
      taps[d] = nearestTaps(s, d);
    else if (s.mode == Mode::Linear)
      taps[d] = linearTaps(s, d);
    else
      taps[d] = cubicTaps(s, d);
  }

  Type compute = elem.isF64() ? Type(b.getF64Type()) : Type(b.getF32Type());
  Value v = args[0];
  if (s.mode == Mode::Nearest && !s.antialias) {
    v = gatherNearest(b, loc, v, s.out, taps);
  } else {
    // Last axis first, as ORT's separable kernels.
    for (int64_t d = rank - 1; d >= 0; --d)
      if (taps[d])
        v = resampleAxis(b, loc, v, d, *taps[d], compute);
  }
  return extrapolate(b, loc, v, taps, s.extrapolation);
}

} // namespace
} // namespace resize

void registerResizeBodies(llvm::StringMap<HostBodyFn> &table) {
  table["Resize"] = resize::resizeBody;
  table["Upsample"] = resize::resizeBody;
}

} // namespace systole::conversion::onnx
