//===- Pool.cpp - Bodies of the pools and MaxUnpool -----------------------===//
//
// MaxPool (with its Indices), AveragePool, LpPool and their Global forms
// of any spatial rank, and MaxUnpool, on the host: the linalg named pooling
// ops where one has the layout and element semantics
// (pooling_nc{w,hw}_{max,sum}), linalg.generic over the same window
// indexing otherwise. Padding is a tensor.pad with the op's neutral value.
// The importer (Frontend/ImportHostPool.cpp) resolves the window
// attributes (pads, auto_pad, strides, dilations, ceil_mode) into the
// params.
//
//===----------------------------------------------------------------------===//
#include "Window.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion::onnx {

namespace pool {
namespace {

using lw::filledWith;
using lw::scalar;
using window::dims;
using window::namedWindowOp;
using window::padWindow;
using window::padWith;

/// The smallest value of `t`: max pooling's padding and initial value.
Value lowest(OpBuilder &b, Location loc, Type t, bool isUnsigned) {
  if (auto f = dyn_cast<FloatType>(t))
    return b.create<arith::ConstantOp>(
        loc, b.getFloatAttr(f, -std::numeric_limits<double>::infinity()));
  unsigned w = t.getIntOrFloatBitWidth();
  APInt v = isUnsigned ? APInt::getMinValue(w) : APInt::getSignedMinValue(w);
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, v));
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

enum class PoolKind { Max, Sum, Lp };

/// Pooling of an already padded [N, C, ...] tensor: the named
/// pooling_ncw/nchw ops for max (float, signed) and sum of rank 1-2,
/// linalg.generic (loops n, c, o..., k...) otherwise. `p` is LpPool's
/// exponent: the window sums |x|^p.
Value poolWindow(OpBuilder &b, Location loc, Value x, const Window &win,
                 PoolKind kind, bool isUnsigned, double p) {
  MLIRContext *ctx = b.getContext();
  Type elem = elementOf(x);
  int64_t r = win.rank();
  SmallVector<int64_t> yshape{shapeOf(x)[0], shapeOf(x)[1]};
  yshape.append(win.out.begin(), win.out.end());
  Value start = kind == PoolKind::Max ? lowest(b, loc, elem, isUnsigned)
                                      : scalar(b, loc, elem, 0);
  Value init = filledWith(b, loc, yshape, start);
  Value window = b.create<tensor::EmptyOp>(loc, win.kernel, elem);
  ArrayRef<int64_t> s = win.strides, d = win.dilations;
  bool named = r <= 2 && kind != PoolKind::Lp && !isUnsigned;
  if (named && kind == PoolKind::Max)
    return r == 1 ? namedWindowOp<linalg::PoolingNcwMaxOp>(b, loc, x, window,
                                                           init, s, d)
                  : namedWindowOp<linalg::PoolingNchwMaxOp>(b, loc, x, window,
                                                            init, s, d);
  if (named)
    return r == 1 ? namedWindowOp<linalg::PoolingNcwSumOp>(b, loc, x, window,
                                                           init, s, d)
                  : namedWindowOp<linalg::PoolingNchwSumOp>(b, loc, x, window,
                                                            init, s, d);
  int64_t loops = 2 + 2 * r;
  SmallVector<AffineExpr> xe = dims(ctx, 0, 2);
  for (int64_t i = 0; i < r; ++i)
    xe.push_back(getAffineDimExpr(2 + i, ctx) * s[i] +
                 getAffineDimExpr(2 + r + i, ctx) * d[i]);
  SmallVector<utils::IteratorType> iters(2 + r, utils::IteratorType::parallel);
  iters.append(r, utils::IteratorType::reduction);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ValueRange{x, window},
          ValueRange{init},
          SmallVector<AffineMap>{
              AffineMap::get(loops, 0, xe, ctx),
              AffineMap::get(loops, 0, dims(ctx, 2 + r, r), ctx),
              AffineMap::get(loops, 0, dims(ctx, 0, 2 + r), ctx)},
          iters,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value v = a[0], acc = a[2], res;
            if (kind == PoolKind::Max)
              res = isa<FloatType>(elem)
                        ? nb.create<arith::MaximumFOp>(l, acc, v).getResult()
                    : isUnsigned
                        ? nb.create<arith::MaxUIOp>(l, acc, v).getResult()
                        : nb.create<arith::MaxSIOp>(l, acc, v).getResult();
            else {
              if (kind == PoolKind::Lp) {
                // p is an integer attribute: |x|^p by multiplication
                // (no libm call) unless it is large.
                v = nb.create<math::AbsFOp>(l, v);
                Value power = v;
                if (p > 16)
                  power = nb.create<math::PowFOp>(l, v, scalar(nb, l, elem, p));
                for (int64_t i = 1; p <= 16 && i < int64_t(p); ++i)
                  power = nb.create<arith::MulFOp>(l, power, v);
                v = power;
              }
              res = nb.create<arith::AddFOp>(l, acc, v);
            }
            nb.create<linalg::YieldOp>(l, res);
          })
      .getResult(0);
}

/// (sum)^(1/p) of every element, LpPool's last step.
Value lpRoot(OpBuilder &b, Location loc, Value sum, double p) {
  if (p == 1.0)
    return sum;
  int64_t rank = shapeOf(sum).size();
  MLIRContext *ctx = b.getContext();
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{sum.getType()}, ValueRange{sum},
          ValueRange{
              b.create<tensor::EmptyOp>(loc, shapeOf(sum), elementOf(sum))},
          SmallVector<AffineMap>(2,
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)),
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value y =
                p == 2.0
                    ? Value(nb.create<math::SqrtOp>(l, a[0]))
                    : Value(nb.create<math::PowFOp>(
                          l, a[0], scalar(nb, l, elementOf(sum), 1.0 / p)));
            nb.create<linalg::YieldOp>(l, y);
          })
      .getResult(0);
}

/// Average pooling's divisor per output position, known at compile time:
/// the taps inside the input, or inside the input and its explicit pads
/// with count_include_pad (ORT's rule; ceil_mode's extension never
/// counts). Separable: the product of one count per spatial dim.
Value averageDivisors(OpBuilder &b, Location loc, const Window &win,
                      ArrayRef<int64_t> in, bool includePad, Type elem) {
  int64_t r = win.rank();
  SmallVector<SmallVector<int64_t>> perDim(r);
  for (int64_t d = 0; d < r; ++d) {
    int64_t lo = includePad ? -win.padBegin[d] : 0;
    int64_t hi = includePad ? in[d] + win.padEnd[d] - win.ceilExtra[d] : in[d];
    for (int64_t o = 0; o < win.out[d]; ++o) {
      int64_t n = 0;
      for (int64_t k = 0; k < win.kernel[d]; ++k) {
        int64_t pos =
            o * win.strides[d] - win.padBegin[d] + k * win.dilations[d];
        n += pos >= lo && pos < hi;
      }
      perDim[d].push_back(n);
    }
  }
  SmallVector<double> counts(1, 1.0);
  for (int64_t d = 0; d < r; ++d) {
    SmallVector<double> next;
    for (double c : counts)
      for (int64_t n : perDim[d])
        next.push_back(c * double(n));
    counts = std::move(next);
  }
  auto type = tensorType(win.out, elem);
  SmallVector<APFloat> values;
  for (double c : counts) {
    APFloat v(c);
    bool lost;
    v.convert(cast<FloatType>(elem).getFloatSemantics(),
              APFloat::rmNearestTiesToEven, &lost);
    values.push_back(v);
  }
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, values));
}

/// y[n, c, o...] = sum[n, c, o...] / divisors[o...].
Value divideBy(OpBuilder &b, Location loc, Value sum, Value divisors) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = shapeOf(sum).size();
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{sum.getType()}, ValueRange{sum, divisors},
          ValueRange{
              b.create<tensor::EmptyOp>(loc, shapeOf(sum), elementOf(sum))},
          SmallVector<AffineMap>{
              AffineMap::getMultiDimIdentityMap(rank, ctx),
              AffineMap::get(rank, 0, dims(ctx, 2, rank - 2), ctx),
              AffineMap::getMultiDimIdentityMap(rank, ctx)},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [](OpBuilder &nb, Location l, ValueRange a) {
            nb.create<linalg::YieldOp>(
                l, ValueRange{nb.create<arith::DivFOp>(l, a[0], a[1])});
          })
      .getResult(0);
}

/// MaxPool's Indices: the flat index (over N x C x D1 x ... , padding not
/// counted) of each window's first maximum, row-major or, with
/// storage_order 1, column-major within each image (ORT's MaxPool).
Value maxPoolIndices(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> in,
                     const Window &win, bool isUnsigned, bool columnMajor) {
  MLIRContext *ctx = b.getContext();
  Type elem = elementOf(x), i64 = b.getI64Type();
  int64_t r = win.rank(), channels = shapeOf(x)[1];
  Value xp = padWindow(b, loc, x, win.padBegin, win.padEnd,
                       lowest(b, loc, elem, isUnsigned));
  SmallVector<int64_t> yshape{shapeOf(x)[0], channels};
  yshape.append(win.out.begin(), win.out.end());
  Value vals = filledWith(b, loc, yshape, lowest(b, loc, elem, isUnsigned));
  Value idx = filledWith(b, loc, yshape, scalar(b, loc, i64, 0));
  Value window = b.create<tensor::EmptyOp>(loc, win.kernel, elem);
  int64_t loops = 2 + 2 * r;
  SmallVector<AffineExpr> xe = dims(ctx, 0, 2);
  for (int64_t i = 0; i < r; ++i)
    xe.push_back(getAffineDimExpr(2 + i, ctx) * win.strides[i] +
                 getAffineDimExpr(2 + r + i, ctx) * win.dilations[i]);
  AffineMap ym = AffineMap::get(loops, 0, dims(ctx, 0, 2 + r), ctx);
  SmallVector<utils::IteratorType> iters(2 + r, utils::IteratorType::parallel);
  iters.append(r, utils::IteratorType::reduction);
  // Element strides of the spatial dims within one image.
  SmallVector<int64_t> step(r);
  int64_t plane = 1;
  for (int64_t i = 0; i < r; ++i) {
    int64_t d = columnMajor ? i : r - 1 - i;
    step[d] = plane;
    plane *= in[d];
  }
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{vals.getType(), idx.getType()}, ValueRange{xp, window},
      ValueRange{vals, idx},
      SmallVector<AffineMap>{AffineMap::get(loops, 0, xe, ctx),
                             AffineMap::get(loops, 0, dims(ctx, 2 + r, r), ctx),
                             ym, ym},
      iters, [&](OpBuilder &nb, Location l, ValueRange a) {
        auto index = [&](int64_t dim) -> Value {
          return nb.create<arith::IndexCastOp>(
              l, i64, nb.create<linalg::IndexOp>(l, dim));
        };
        auto cst = [&](int64_t v) { return scalar(nb, l, i64, double(v)); };
        // ((n * C + c) * plane) + sum(pos_d * step_d), pos_d =
        // o_d * s_d + k_d * dil_d - pad_d.
        Value flat = nb.create<arith::MulIOp>(
            l,
            nb.create<arith::AddIOp>(
                l, nb.create<arith::MulIOp>(l, index(0), cst(channels)),
                index(1)),
            cst(plane));
        for (int64_t i = 0; i < r; ++i) {
          Value pos = nb.create<arith::AddIOp>(
              l, nb.create<arith::MulIOp>(l, index(2 + i), cst(win.strides[i])),
              nb.create<arith::MulIOp>(l, index(2 + r + i),
                                       cst(win.dilations[i])));
          pos = nb.create<arith::SubIOp>(l, pos, cst(win.padBegin[i]));
          flat = nb.create<arith::AddIOp>(
              l, flat, nb.create<arith::MulIOp>(l, pos, cst(step[i])));
        }
        Value greater =
            isa<FloatType>(elem)
                ? nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, a[0],
                                           a[2])
                      .getResult()
                : nb.create<arith::CmpIOp>(l,
                                           isUnsigned
                                               ? arith::CmpIPredicate::ugt
                                               : arith::CmpIPredicate::sgt,
                                           a[0], a[2])
                      .getResult();
        // The first position of each window is taken even when it is
        // padding so that an all-padding prefix still yields an index.
        nb.create<linalg::YieldOp>(
            l, ValueRange{nb.create<arith::SelectOp>(l, greater, a[0], a[2]),
                          nb.create<arith::SelectOp>(l, greater, flat, a[3])});
      });
  return generic.getResult(1);
}

//===----------------------------------------------------------------------===//
// Bodies
//===----------------------------------------------------------------------===//

PoolKind kindOf(llvm::StringRef op) {
  if (op.ends_with("MaxPool"))
    return PoolKind::Max;
  return op.ends_with("LpPool") ? PoolKind::Lp : PoolKind::Sum;
}

/// The [N, C, D...] input's spatial rank.
llvm::Expected<int64_t> spatialRank(const Params &p, ValueRange a,
                                    size_t operands) {
  if (a.size() != operands)
    return p.fail("expects " + llvm::Twine(operands) + " operand(s)");
  int64_t rank = shapeOf(a[0]).size();
  if (rank < 3)
    return p.fail("expects an [N, C, D1, ...] input of rank 3 or more");
  return rank - 2;
}

/// LpPool's `p` (an integer attribute), 0 for the other pools.
llvm::Expected<double> exponentOf(const Params &p, PoolKind kind) {
  if (kind != PoolKind::Lp)
    return 0.0;
  SYSTOLE_PARAM(e, p.i64("p"));
  if (e <= 0)
    return p.fail("p must be positive");
  return double(e);
}

/// MaxPool, AveragePool and LpPool: params the window, `unsigned` (the
/// input's ONNX signedness), `p` (LpPool), `count_include_pad`
/// (AveragePool), `output` (0: the pooled values; 1: MaxPool's Indices,
/// column-major within each image when `column_major`).
llvm::Expected<Value> poolBody(OpBuilder &b, Location loc, ValueRange a,
                               Type result, const Params &prm) {
  PoolKind kind = kindOf(prm.op());
  SYSTOLE_PARAM(r, spatialRank(prm, a, 1));
  SYSTOLE_PARAM(win, window::windowOf(prm, r));
  SYSTOLE_PARAM(isUnsigned, prm.flag("unsigned"));
  SYSTOLE_PARAM(p, exponentOf(prm, kind));
  SYSTOLE_PARAM(output, prm.i64("output"));
  auto xs = shapeOf(a[0]);
  if (output == 1) {
    if (kind != PoolKind::Max)
      return prm.fail("only MaxPool has a second output");
    SYSTOLE_PARAM(columnMajor, prm.flag("column_major"));
    return maxPoolIndices(b, loc, a[0], xs.drop_front(2), win, isUnsigned,
                          columnMajor);
  }
  if (output != 0)
    return prm.fail("output must be 0 or 1");
  Type elem = elementOf(a[0]);
  Value pad = kind == PoolKind::Max ? lowest(b, loc, elem, isUnsigned)
                                    : scalar(b, loc, elem, 0);
  Value xp = padWindow(b, loc, a[0], win.padBegin, win.padEnd, pad);
  Value v = poolWindow(b, loc, xp, win, kind, isUnsigned, p);
  if (kind == PoolKind::Lp)
    return lpRoot(b, loc, v, p);
  if (kind == PoolKind::Sum) {
    SYSTOLE_PARAM(includePad, prm.flag("count_include_pad"));
    return divideBy(
        b, loc, v,
        averageDivisors(b, loc, win, xs.drop_front(2), includePad, elem));
  }
  return v;
}

/// GlobalMax/Average/LpPool: a reduction over every spatial dim to
/// [N, C, 1, ...]. Params `unsigned` and `p` (GlobalLpPool).
llvm::Expected<Value> globalPoolBody(OpBuilder &b, Location loc, ValueRange a,
                                     Type result, const Params &prm) {
  PoolKind kind = kindOf(prm.op());
  SYSTOLE_PARAM(r, spatialRank(prm, a, 1));
  SYSTOLE_PARAM(isUnsigned, prm.flag("unsigned"));
  SYSTOLE_PARAM(p, exponentOf(prm, kind));
  auto xs = shapeOf(a[0]);
  Window win;
  win.kernel.assign(xs.begin() + 2, xs.end());
  win.strides.assign(r, 1);
  win.dilations.assign(r, 1);
  win.padBegin.assign(r, 0);
  win.padEnd.assign(r, 0);
  win.ceilExtra.assign(r, 0);
  win.out.assign(r, 1);
  Value v = poolWindow(b, loc, a[0], win, kind, isUnsigned, p);
  if (kind == PoolKind::Lp)
    return lpRoot(b, loc, v, p);
  if (kind == PoolKind::Sum)
    return divideBy(
        b, loc, v,
        averageDivisors(b, loc, win, xs.drop_front(2), false, elementOf(v)));
  return v;
}

/// MaxUnpool: X's values scattered to the flat positions I names in zeros
/// of the shape the pooling attributes infer (an scf.for over X with
/// tensor.insert; out-of-range indices are skipped), then padded at the end
/// by `grow` to output_shape, as ONNX's reference places the inferred
/// tensor.
llvm::Expected<Value> maxUnpoolBody(OpBuilder &b, Location loc, ValueRange a,
                                    Type result, const Params &prm) {
  SYSTOLE_PARAM(r, spatialRank(prm, a, 2));
  SYSTOLE_PARAM(grow, prm.i64s("grow"));
  ArrayRef<int64_t> outShape = cast<RankedTensorType>(result).getShape();
  if (int64_t(grow.size()) != r + 2 || int64_t(outShape.size()) != r + 2)
    return prm.fail("parameter 'grow' needs one entry per dim");
  SmallVector<int64_t> inferred;
  for (int64_t d = 0; d < r + 2; ++d)
    inferred.push_back(outShape[d] - grow[d]);
  int64_t total = 1, count = 1;
  for (int64_t v : inferred)
    total *= v;
  for (int64_t v : shapeOf(a[0]))
    count *= v;
  Type elem = elementOf(a[0]);
  auto allDims = [](int64_t rank) {
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < rank; ++d)
      all[0].push_back(d);
    return all;
  };
  auto flat = [&](Value v) {
    return b.create<tensor::CollapseShapeOp>(
        loc, tensorType({count}, elementOf(v)), v, allDims(r + 2));
  };
  Value xf = flat(a[0]), ifl = flat(a[1]);
  Value zero = scalar(b, loc, elem, 0);
  Value zeros = filledWith(b, loc, {total}, zero);
  Value lb = b.create<arith::ConstantIndexOp>(loc, 0);
  Value ub = b.create<arith::ConstantIndexOp>(loc, count);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  Value size = b.create<arith::ConstantIntOp>(loc, total, 64);
  auto loop = b.create<scf::ForOp>(
      loc, lb, ub, one, ValueRange{zeros},
      [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
        Value at = nb.create<tensor::ExtractOp>(l, ifl, i);
        // 0 <= at < total as one unsigned comparison.
        Value inRange =
            nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::ult, at, size);
        auto guarded = nb.create<scf::IfOp>(
            l, inRange,
            [&](OpBuilder &tb, Location tl) {
              Value v = tb.create<tensor::ExtractOp>(tl, xf, i);
              Value pos =
                  tb.create<arith::IndexCastOp>(tl, tb.getIndexType(), at);
              tb.create<scf::YieldOp>(
                  tl,
                  ValueRange{tb.create<tensor::InsertOp>(tl, v, acc[0], pos)});
            },
            [&](OpBuilder &eb, Location el) {
              eb.create<scf::YieldOp>(el, acc[0]);
            });
        nb.create<scf::YieldOp>(l, guarded.getResults());
      });
  Value yv = b.create<tensor::ExpandShapeOp>(loc, tensorType(inferred, elem),
                                             loop.getResult(0), allDims(r + 2));
  return padWith(b, loc, yv, SmallVector<int64_t>(r + 2, 0), grow, zero);
}

} // namespace
} // namespace pool

void registerPoolBodies(llvm::StringMap<HostBodyFn> &table) {
  for (const char *op : {"MaxPool", "AveragePool", "LpPool"})
    table[op] = pool::poolBody;
  for (const char *op : {"GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"})
    table[op] = pool::globalPoolBody;
  table["MaxUnpool"] = pool::maxUnpoolBody;
}

} // namespace systole::conversion::onnx
