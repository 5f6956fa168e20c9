//===- ImportResize.cpp - Resize and Upsample on the host -----------------===//
//
// Resize (opsets 10-19) and Upsample (7-9) as graph.host ops. Shapes, scales,
// sizes and roi are compile-time values, so everything that depends on them
// -- which input pixel an output pixel reads and with which weight -- is
// computed at import, in C++ (ResizeTaps.cpp), with ONNX Runtime's float32
// arithmetic (upsamplebase.h, upsample.cc, upsample_antialias.h): nearest
// picks exactly ORT's pixel and the interpolation weights are ORT's. This
// file reads the attributes and operands and builds the IR, which only
// gathers:
//
//   nearest         one linalg.generic over the output whose body reads
//                   tensor.extract X[map_0[o_0], ..., map_r[o_r]]
//   linear, cubic,  one linalg.generic per resized axis (last axis first,
//   antialias       as ORT's separable kernels), with a reduction loop over
//                   that axis' taps: acc += w[o, k] * X[.., idx[o, k], ..]
//                   (index and weight tables are dense constants)
//   extrapolation   (tf_crop_and_resize) a final elementwise select where
//                   any axis' source coordinate lies outside the input
//
// ORT only runs linear on 2-D/4-D/3-D/5-D inputs and cubic on 2-D/4-D ones;
// the per-axis form generalizes both to any set of resized axes with ORT's
// per-axis formulas (the n-linear weight is the product of the per-axis
// weights, as in ORT's bilinear/trilinear kernels).
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"
#include "ResizeTaps.h"

#include "systole/Frontend/OnnxModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

using namespace mlir;

namespace systole::frontend {

namespace {

//===----------------------------------------------------------------------===//
// Attributes and operands
//===----------------------------------------------------------------------===//

llvm::Expected<Mode> parseMode(ImportContext &ic, llvm::StringRef m,
                               bool cubicAllowed) {
  if (m == "nearest")
    return Mode::Nearest;
  if (m == "linear" || m == "bilinear")
    return Mode::Linear;
  if (m == "cubic" && cubicAllowed)
    return Mode::Cubic;
  return ic.fail("mode '" + m + "' is not supported (nearest, linear" +
                 (cubicAllowed ? ", cubic" : "") + ")");
}

llvm::Expected<Coord> parseCoord(ImportContext &ic, llvm::StringRef c) {
  if (c == "half_pixel")
    return Coord::HalfPixel;
  if (c == "half_pixel_symmetric")
    return Coord::HalfPixelSymmetric;
  if (c == "pytorch_half_pixel")
    return Coord::PytorchHalfPixel;
  if (c == "tf_half_pixel_for_nn")
    return Coord::TfHalfPixelForNN;
  if (c == "align_corners")
    return Coord::AlignCorners;
  if (c == "asymmetric")
    return Coord::Asymmetric;
  if (c == "tf_crop_and_resize")
    return Coord::TfCropAndResize;
  return ic.fail("coordinate_transformation_mode '" + c + "' is not supported");
}

llvm::Expected<Nearest> parseNearest(ImportContext &ic, llvm::StringRef n) {
  if (n == "round_prefer_floor")
    return Nearest::RoundPreferFloor;
  if (n == "round_prefer_ceil")
    return Nearest::RoundPreferCeil;
  if (n == "floor")
    return Nearest::Floor;
  if (n == "ceil")
    return Nearest::Ceil;
  return ic.fail("nearest_mode '" + n + "' is not supported");
}

/// Input `i` as constant floats; an absent input or an empty tensor (the
/// opset-11 placeholder for "not given") is an empty vector.
llvm::Expected<std::vector<float>> optionalFloats(ImportContext &ic, int i) {
  if (!ic.hasInput(i))
    return std::vector<float>{};
  const HostTensor *t = ic.constantInput(i);
  if (t && t->numElements() == 0)
    return std::vector<float>{};
  return ic.constantFloats(i);
}

/// Spreads per-`axes` values over every axis (`fill` elsewhere).
std::vector<float> overAxes(llvm::ArrayRef<float> v,
                            llvm::ArrayRef<int64_t> axes, int64_t rank,
                            float fill) {
  std::vector<float> all(rank, fill);
  for (size_t i = 0; i < axes.size(); ++i)
    all[axes[i]] = v[i];
  return all;
}

llvm::Expected<ResizeSpec> parseResize(ImportContext &ic,
                                       llvm::ArrayRef<int64_t> inShape) {
  ResizeSpec s;
  s.in.assign(inShape.begin(), inShape.end());
  int64_t rank = inShape.size();
  bool upsample = ic.node->op_type() == "Upsample";
  int64_t opset = opsetVersion(ic.model, "");
  // Resize-10 and Upsample: asymmetric coordinates, "simple" rounding, and
  // scales as the second input (Upsample-7: an attribute).
  bool legacy = upsample || opset < 11;

  auto mode = parseMode(ic, ic.attrString("mode", "nearest"), !legacy);
  if (!mode)
    return mode.takeError();
  s.mode = *mode;
  if (legacy) {
    s.coord = Coord::Asymmetric;
    s.nearest = Nearest::Simple;
  } else {
    auto c = parseCoord(
        ic, ic.attrString("coordinate_transformation_mode", "half_pixel"));
    if (!c)
      return c.takeError();
    s.coord = *c;
    auto n =
        parseNearest(ic, ic.attrString("nearest_mode", "round_prefer_floor"));
    if (!n)
      return n.takeError();
    s.nearest = *n;
    s.cubicA = ic.attrFloat("cubic_coeff_a", -0.75f);
    s.excludeOutside = ic.attrInt("exclude_outside", 0) != 0;
    s.extrapolation = ic.attrFloat("extrapolation_value", 0.0f);
    // Antialiasing only changes the linear and cubic filters (ONNX: "no
    // effect" in nearest mode).
    s.antialias = ic.attrInt("antialias", 0) != 0 && s.mode != Mode::Nearest;
  }

  // axes (opset 18): scales, sizes and roi name only these axes.
  std::vector<int64_t> axes;
  if (auto a = ic.attrInts("axes")) {
    for (int64_t x : *a) {
      int64_t v = x < 0 ? x + rank : x;
      if (v < 0 || v >= rank || llvm::is_contained(axes, v))
        return ic.fail("axes has an invalid or repeated axis " +
                       llvm::Twine(x));
      axes.push_back(v);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }

  std::string policy = ic.attrString("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return ic.fail("keep_aspect_ratio_policy '" + policy +
                   "' is not supported");

  std::vector<float> scales;
  if (upsample && !ic.hasInput(1)) {
    const onnx::AttributeProto *a = ic.attr("scales");
    if (!a)
      return ic.fail("Upsample needs its scales attribute");
    scales.assign(a->floats().begin(), a->floats().end());
  } else {
    auto sc = optionalFloats(ic, legacy ? 1 : 2);
    if (!sc)
      return sc.takeError();
    scales = std::move(*sc);
  }

  s.out.assign(rank, 0);
  if (!scales.empty()) {
    if (scales.size() != axes.size())
      return ic.fail("scales has " + llvm::Twine(scales.size()) +
                     " values for " + llvm::Twine(axes.size()) + " axes");
    s.scales = overAxes(scales, axes, rank, 1.0f);
    s.fromScales = true;
    for (int64_t d = 0; d < rank; ++d) {
      float sc = s.scales[d];
      if (!(sc > 0) || !std::isfinite(sc) || (upsample && sc < 1))
        return ic.fail("scale " + std::to_string(sc) + " of axis " +
                       llvm::Twine(d) + " is not supported (" +
                       (upsample ? ">= 1" : "> 0") + " required)");
      // ORT's ComputeOutputShape: float product, truncated.
      s.out[d] = static_cast<int64_t>(sc * static_cast<float>(s.in[d]));
    }
  } else {
    if (legacy || !ic.hasInput(3))
      return ic.fail("neither scales nor sizes is given");
    auto sizes = ic.constantInts(3);
    if (!sizes)
      return sizes.takeError();
    if (sizes->size() != axes.size())
      return ic.fail("sizes has " + llvm::Twine(sizes->size()) +
                     " values for " + llvm::Twine(axes.size()) + " axes");
    s.out = s.in;
    for (size_t i = 0; i < axes.size(); ++i)
      s.out[axes[i]] = (*sizes)[i];
    s.scales.assign(rank, 1.0f);
    for (int64_t d = 0; d < rank; ++d) {
      if (s.out[d] <= 0 || s.in[d] == 0)
        return ic.fail("sizes must be positive for a non-empty input");
      s.scales[d] = static_cast<float>(s.out[d]) / static_cast<float>(s.in[d]);
    }
    // ORT's AdjustOutputSizeAsPolicy: one scale for every listed axis.
    if (policy != "stretch") {
      bool notLarger = policy == "not_larger";
      float chosen = notLarger ? std::numeric_limits<float>::max()
                               : std::numeric_limits<float>::min();
      for (int64_t d : axes)
        chosen = notLarger ? std::min(chosen, s.scales[d])
                           : std::max(chosen, s.scales[d]);
      for (int64_t d : axes) {
        s.scales[d] = chosen;
        s.out[d] = static_cast<int64_t>(
            std::round(chosen * static_cast<float>(s.in[d])));
      }
    }
  }
  for (int64_t d = 0; d < rank; ++d)
    if (s.out[d] <= 0)
      return ic.fail("axis " + llvm::Twine(d) + " resizes to " +
                     llvm::Twine(s.out[d]) + " elements");

  // roi only matters for tf_crop_and_resize (other modes ignore it, so a
  // runtime roi is fine there).
  s.roi.assign(2 * rank, 0.0f);
  std::fill(s.roi.begin() + rank, s.roi.end(), 1.0f);
  if (s.coord == Coord::TfCropAndResize) {
    auto roi = optionalFloats(ic, 1);
    if (!roi)
      return roi.takeError();
    if (!roi->empty()) {
      if (roi->size() != 2 * axes.size())
        return ic.fail("roi has " + llvm::Twine(roi->size()) +
                       " values, expected " + llvm::Twine(2 * axes.size()));
      for (size_t i = 0; i < axes.size(); ++i) {
        s.roi[axes[i]] = (*roi)[i];
        s.roi[rank + axes[i]] = (*roi)[axes.size() + i];
      }
    }
  }
  return s;
}

//===----------------------------------------------------------------------===//
// IR
//===----------------------------------------------------------------------===//

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

llvm::Error importResize(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  Type elem = elementOf(*x);
  if (graph::isQuantized(elem))
    return ic.fail("expects unquantized tensors (int8 activations come as "
                   "QDQ)");
  ArrayRef<int64_t> inShape = shapeOf(*x);
  if (inShape.empty())
    return ic.fail("expects a tensor of rank >= 1");
  auto spec = parseResize(ic, inShape);
  if (!spec)
    return spec.takeError();
  const ResizeSpec &s = *spec;
  if (s.mode != Mode::Nearest && !isa<FloatType>(elem))
    return ic.fail("linear/cubic resizing of integer tensors is not "
                   "supported (ORT's fixed-point rounding)");
  int64_t rank = inShape.size();

  // ORT copies when no axis changes size (whatever the coordinate mode).
  if (s.out == s.in) {
    auto y = ic.hostOp(
        *x,
        [&](OpBuilder &b, Location loc,
            ValueRange args) -> llvm::Expected<Value> {
          Value init = b.create<tensor::EmptyOp>(loc, inShape, elem);
          return b.create<linalg::CopyOp>(loc, args[0], init).getResult(0);
        });
    if (!y)
      return y.takeError();
    return ic.defineOutput(0, *y);
  }

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

  // Nearest-neighbour upsampling of the spatial dims of an NCHW tensor by
  // integer factors, taps o -> o / f exactly: a graph.upsample, which the
  // NPU runs as strided stores (anything else stays host code).
  if (s.mode == Mode::Nearest && !s.antialias && rank == 4 && elem.isF32() &&
      !taps[0] && !taps[1]) {
    SmallVector<int64_t> factors;
    bool exact = true;
    for (int64_t d = 2; d < 4 && exact; ++d) {
      int64_t f = s.out[d] / s.in[d];
      exact = f >= 1 && s.in[d] * f == s.out[d];
      if (exact && taps[d]) {
        exact = !taps[d]->anyOutside();
        for (int64_t o = 0; exact && o < s.out[d]; ++o)
          exact = taps[d]->index[o] == o / f;
      }
      factors.push_back(f);
    }
    if (exact) {
      Value y = ic.builder.create<graph::UpsampleOp>(
          ic.loc(), RankedTensorType::get(s.out, elem), *x,
          ic.builder.getDenseI64ArrayAttr(factors),
          graph::LayoutAttr::get(ic.ctx(), graph::Layout::NCHW));
      return ic.defineOutput(0, y);
    }
  }

  Type compute = elem.isF64() ? Type(Float64Type::get(ic.ctx()))
                              : Type(Float32Type::get(ic.ctx()));
  auto y = ic.hostOp(*x,
                     [&](OpBuilder &b, Location loc,
                         ValueRange args) -> llvm::Expected<Value> {
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
                     });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

} // namespace

void registerResizeImporters(llvm::StringMap<OpImporter> &table) {
  table["Resize"] = importResize;
  table["Upsample"] = importResize;
}

} // namespace systole::frontend
