//===- Norm.cpp - Bodies of Batch/Instance/Layer/Group norm, MVN, LRN -----===//
//
// Statistics are linalg.generic reductions (sums over the normalized dims),
// the normalization one linalg.generic over the input reading them back
// through reduced maps and the scale/bias through broadcasting maps.
// Formulas follow ONNX Runtime's CPU kernels: LayerNormalization takes the
// sum and the sum of squares in one pass, (x - mean) / sqrt(ms - mean^2 +
// eps) (LayerNormImpl); InstanceNormalization and GroupNormalization
// subtract the mean before squaring; MeanVarianceNormalization is its ONNX
// function, (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9); BatchNormalization
// folds the statistics into a per-channel affine map as ORT's kernel does.
//
// An op with several outputs (LayerNormalization's Mean/InvStdDev,
// BatchNormalization's running statistics) is one graph.host per output
// used (`output` in params), each recomputing the statistics it needs.
// The importer (Frontend/ImportNorm.cpp) validates the nodes.
//
//===----------------------------------------------------------------------===//
#include "HostBody.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion::onnx {

namespace norm {
namespace {

using ScalarFn = llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;
using TermsFn =
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// A float constant; a float conversion (ONNX Cast between float types).
Value cst(OpBuilder &b, Location loc, Type t, double v) {
  return lw::scalar(b, loc, t, v);
}
using lw::castFloat;

Value rsqrtOf(OpBuilder &b, Location loc, Value v) {
  return b.create<arith::DivFOp>(loc, cst(b, loc, v.getType(), 1.0),
                                 b.create<math::SqrtOp>(loc, v));
}

/// base^e for a constant e. Quarter powers (LRN's default beta 0.75, 0.5,
/// 1) are sqrt/multiply chains: exact enough and free of libm's powf, which
/// the GPU form cannot call.
Value powConst(OpBuilder &b, Location loc, Value base, double e) {
  double q = e * 4;
  if (q != std::round(q) || q <= 0 || q > 16)
    return b.create<math::PowFOp>(loc, base, cst(b, loc, base.getType(), e));
  int64_t quarters = int64_t(q);
  Value r;
  auto times = [&](Value f, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      r = r ? Value(b.create<arith::MulFOp>(loc, r, f)) : f;
  };
  times(base, quarters / 4);
  Value half = b.create<math::SqrtOp>(loc, base);
  times(half, (quarters % 4) / 2);
  if (quarters % 2)
    times(b.create<math::SqrtOp>(loc, half), 1);
  return r;
}

/// out = body(ins...) over `shape` with element type `elem`, each input read
/// through its map.
Value mapped(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type elem,
             ValueRange ins, ArrayRef<AffineMap> maps, ScalarFn body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> all(maps);
  all.push_back(AffineMap::getMultiDimIdentityMap(shape.size(), ctx));
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{tensorType(shape, elem)}, ins,
          ValueRange{b.create<tensor::EmptyOp>(loc, shape, elem)}, all,
          SmallVector<utils::IteratorType>(shape.size(),
                                           utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange a) {
            nb.create<linalg::YieldOp>(l, body(nb, l, a.drop_back()));
          })
      .getResult(0);
}

/// Sums over `axes` of `x` (full shape): one reduced tensor (the dims not in
/// `axes`) per term `terms(x, reduced...)` returns; `reduced` are tensors of
/// the reduced shape read at each element (a mean for a second pass).
SmallVector<Value> sums(OpBuilder &b, Location loc, Value x,
                        ArrayRef<int64_t> axes, ValueRange reduced,
                        int64_t count, TermsFn terms) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  Type elem = elementOf(x);
  SmallVector<int64_t> outShape;
  SmallVector<utils::IteratorType> iters;
  for (int64_t d = 0; d < rank; ++d) {
    bool r = llvm::is_contained(axes, d);
    iters.push_back(r ? utils::IteratorType::reduction
                      : utils::IteratorType::parallel);
    if (!r)
      outShape.push_back(shape[d]);
  }
  AffineMap rmap = lw::reducedMap(rank, axes, ctx);
  SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, ctx)};
  SmallVector<Value> ins{x}, inits;
  for (Value v : reduced) {
    ins.push_back(v);
    maps.push_back(rmap);
  }
  Value zero = cst(b, loc, elem, 0.0);
  for (int64_t i = 0; i < count; ++i) {
    Value e = b.create<tensor::EmptyOp>(loc, outShape, elem);
    inits.push_back(
        b.create<linalg::FillOp>(loc, ValueRange{zero}, ValueRange{e})
            .getResult(0));
    maps.push_back(rmap);
  }
  SmallVector<Type> types(count, tensorType(outShape, elem));
  auto op = b.create<linalg::GenericOp>(
      loc, types, ins, inits, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        SmallVector<Value> t = terms(nb, l, a.take_front(ins.size()));
        SmallVector<Value> acc;
        for (int64_t i = 0; i < count; ++i)
          acc.push_back(nb.create<arith::AddFOp>(l, a[ins.size() + i], t[i]));
        nb.create<linalg::YieldOp>(l, acc);
      });
  return SmallVector<Value>(op.getResults());
}

/// `v` / n for every element of a reduced tensor.
Value scaled(OpBuilder &b, Location loc, Value v, double n) {
  int64_t rank = shapeOf(v).size();
  return mapped(b, loc, shapeOf(v), elementOf(v), v,
                AffineMap::getMultiDimIdentityMap(rank, b.getContext()),
                [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                  return nb.create<arith::DivFOp>(
                      l, a[0], cst(nb, l, a[0].getType(), n));
                });
}

/// Mean and biased variance (two passes, as ORT's instance norm) over
/// `axes`.
std::pair<Value, Value> meanAndVariance(OpBuilder &b, Location loc, Value x,
                                        ArrayRef<int64_t> axes) {
  double n = 1;
  for (int64_t a : axes)
    n *= double(shapeOf(x)[a]);
  Value sum =
      sums(b, loc, x, axes, {}, 1, [](OpBuilder &, Location, ValueRange a) {
        return SmallVector<Value>{a[0]};
      })[0];
  Value mean = scaled(b, loc, sum, n);
  Value sq = sums(
      b, loc, x, axes, mean, 1, [](OpBuilder &nb, Location l, ValueRange a) {
        Value d = nb.create<arith::SubFOp>(l, a[0], a[1]);
        return SmallVector<Value>{nb.create<arith::MulFOp>(l, d, d)};
      })[0];
  return {mean, scaled(b, loc, sq, n)};
}

SmallVector<int64_t> range(int64_t from, int64_t to) {
  SmallVector<int64_t> r;
  for (int64_t d = from; d < to; ++d)
    r.push_back(d);
  return r;
}

//===----------------------------------------------------------------------===//
// BatchNormalization
//===----------------------------------------------------------------------===//

/// How a BatchNormalization parameter is read at x's element: [C] along
/// dim 1, or (opset 7's spatial=0) [C, D1, ...] aligned to x's dims 1...
std::optional<AffineMap> paramMap(MLIRContext *ctx, Value p,
                                  ArrayRef<int64_t> xs) {
  auto ps = shapeOf(p);
  int64_t rank = xs.size();
  if (ps.size() == 1 && ps[0] == xs[1])
    return AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
  if (int64_t(ps.size()) == rank - 1 && ps == xs.drop_front())
    return AffineMap::get(rank, 0, lw::reducedMap(rank, {0}, ctx).getResults(),
                          ctx);
  return std::nullopt;
}

/// Output 0: args X, scale, B, input_mean, input_var. Outputs 1 and 2
/// (running_mean / running_var in training mode): args X and the input
/// statistic; running = input * momentum + batch * (1 - momentum).
llvm::Expected<Value> batchNormalization(OpBuilder &b, Location loc,
                                         ValueRange a, Type, const Params &p) {
  SYSTOLE_PARAM(eps, p.f64("epsilon"));
  SYSTOLE_PARAM(output, p.i64("output"));
  SYSTOLE_PARAM(training, p.flag("training"));
  MLIRContext *ctx = b.getContext();
  auto xs = shapeOf(a[0]);
  int64_t rank = xs.size();
  SmallVector<int64_t> axes{0};
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  if (output == 1 || output == 2) {
    SYSTOLE_PARAM(momentum, p.f64("momentum"));
    if (a.size() != 2)
      return p.fail("running statistics take X and the input statistic");
    auto [mean, var] = meanAndVariance(b, loc, a[0], axes);
    Value batch = output == 1 ? mean : var;
    AffineMap m1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    return mapped(
        b, loc, shapeOf(a[1]), elementOf(a[1]), ValueRange{a[1], batch},
        {m1, m1}, [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
          Type t = v[0].getType();
          return nb.create<arith::AddFOp>(
              l, nb.create<arith::MulFOp>(l, v[0], cst(nb, l, t, momentum)),
              nb.create<arith::MulFOp>(l, v[1], cst(nb, l, t, 1.0 - momentum)));
        });
  }
  if (output != 0)
    return p.fail("output must be 0, 1 or 2");
  if (a.size() != 5)
    return p.fail("expects X, scale, B, input_mean and input_var");
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<AffineMap> maps{id};
  for (int i = 1; i < 5; ++i) {
    auto m = paramMap(ctx, a[i], xs);
    if (!m)
      return p.fail("parameters must have shape [C] (or [C, D1, ...])");
    maps.push_back(*m);
  }
  // ORT's BatchNorm kernel folds the statistics into a per-channel affine
  // map, y = x * s + (B - mean * s) with s = scale / sqrt(var + eps) (in
  // training mode sqrt(1 / (var + eps)) of the batch's statistics); the
  // same operation order keeps the result bit-equal to its.
  SmallVector<Value> args{a[0], a[1], a[2], a[3], a[4]};
  if (training) {
    auto [mean, var] = meanAndVariance(b, loc, a[0], axes);
    args[3] = mean;
    args[4] = var;
  }
  return mapped(
      b, loc, xs, elementOf(a[0]), args, maps,
      [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        Type t = v[0].getType();
        Value ve = nb.create<arith::AddFOp>(l, v[4], cst(nb, l, t, eps));
        Value inv =
            training
                ? Value(nb.create<math::SqrtOp>(
                      l, nb.create<arith::DivFOp>(l, cst(nb, l, t, 1.0), ve)))
                : rsqrtOf(nb, l, ve);
        Value s = nb.create<arith::MulFOp>(l, inv, v[1]);
        Value bias = nb.create<arith::SubFOp>(
            l, v[2], nb.create<arith::MulFOp>(l, v[3], s));
        return nb.create<arith::AddFOp>(l, nb.create<arith::MulFOp>(l, v[0], s),
                                        bias);
      });
}

//===----------------------------------------------------------------------===//
// InstanceNormalization, GroupNormalization, MeanVarianceNormalization
//===----------------------------------------------------------------------===//

llvm::Expected<Value> instanceNormalization(OpBuilder &b, Location loc,
                                            ValueRange a, Type,
                                            const Params &p) {
  SYSTOLE_PARAM(eps, p.f64("epsilon"));
  if (a.size() != 3)
    return p.fail("expects input, scale and B");
  MLIRContext *ctx = b.getContext();
  auto xs = shapeOf(a[0]);
  int64_t rank = xs.size();
  SmallVector<int64_t> axes = range(2, rank);
  auto [mean, var] = meanAndVariance(b, loc, a[0], axes);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap red = lw::reducedMap(rank, axes, ctx);
  AffineMap ch = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
  return mapped(b, loc, xs, elementOf(a[0]),
                ValueRange{a[0], mean, var, a[1], a[2]}, {id, red, red, ch, ch},
                [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                  Type t = v[0].getType();
                  Value inv = rsqrtOf(
                      nb, l,
                      nb.create<arith::AddFOp>(l, v[2], cst(nb, l, t, eps)));
                  Value n = nb.create<arith::MulFOp>(
                      l, nb.create<arith::SubFOp>(l, v[0], v[1]), inv);
                  return nb.create<arith::AddFOp>(
                      l, nb.create<arith::MulFOp>(l, n, v[3]), v[4]);
                });
}

/// GroupNormalization: x viewed as [N, G, C/G, D...], statistics over
/// dims 2.. in stash_type; scale/bias per group (opset 18) or per channel
/// (opset 21, `per_channel`).
llvm::Expected<Value> groupNormalization(OpBuilder &b, Location loc,
                                         ValueRange a, Type, const Params &p) {
  SYSTOLE_PARAM(eps, p.f64("epsilon"));
  SYSTOLE_PARAM(groups, p.i64("num_groups"));
  SYSTOLE_PARAM(perChannel, p.flag("per_channel"));
  SYSTOLE_PARAM(stash, p.type("stash_type"));
  if (a.size() != 3)
    return p.fail("expects X, scale and bias");
  auto xs = shapeOf(a[0]);
  if (xs.size() < 3 || groups <= 0 || xs[1] % groups)
    return p.fail("num_groups must divide the channels of an [N, C, D1, ...] "
                  "input");
  int64_t cg = xs[1] / groups;
  MLIRContext *ctx = b.getContext();
  Type elem = elementOf(a[0]);
  SmallVector<int64_t> gs{xs[0], groups, cg};
  gs.append(xs.begin() + 2, xs.end());
  int64_t grank = gs.size();
  SmallVector<ReassociationIndices> assoc{{0}, {1, 2}};
  for (int64_t d = 3; d < grank; ++d)
    assoc.push_back({d});
  Value xg =
      b.create<tensor::ExpandShapeOp>(loc, tensorType(gs, elem), a[0], assoc);
  AffineMap id = AffineMap::getMultiDimIdentityMap(grank, ctx);
  Value xu = mapped(b, loc, gs, stash, xg, id,
                    [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                      return castFloat(nb, l, v[0], stash);
                    });
  SmallVector<int64_t> axes = range(2, grank);
  auto [mean, var] = meanAndVariance(b, loc, xu, axes);
  AffineMap red = lw::reducedMap(grank, axes, ctx);
  AffineExpr g = getAffineDimExpr(1, ctx), c = getAffineDimExpr(2, ctx);
  AffineMap pm = AffineMap::get(grank, 0, perChannel ? g * cg + c : g);
  Value yg = mapped(
      b, loc, gs, elem, ValueRange{xu, mean, var, a[1], a[2]},
      {id, red, red, pm, pm},
      [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        Type u = v[0].getType();
        Value inv = rsqrtOf(
            nb, l, nb.create<arith::AddFOp>(l, v[2], cst(nb, l, u, eps)));
        Value n =
            castFloat(nb, l,
                      nb.create<arith::MulFOp>(
                          l, nb.create<arith::SubFOp>(l, v[0], v[1]), inv),
                      elem);
        return nb.create<arith::AddFOp>(l, nb.create<arith::MulFOp>(l, n, v[3]),
                                        v[4]);
      });
  return b.create<tensor::CollapseShapeOp>(loc, tensorType(xs, elem), yg, assoc)
      .getResult();
}

llvm::Expected<Value> meanVarianceNormalization(OpBuilder &b, Location loc,
                                                ValueRange a, Type,
                                                const Params &p) {
  SYSTOLE_PARAM(axes, p.i64s("axes"));
  auto xs = shapeOf(a[0]);
  int64_t rank = xs.size();
  double n = 1;
  for (int64_t ax : axes) {
    if (ax < 0 || ax >= rank)
      return p.fail("axis out of range");
    n *= double(xs[ax]);
  }
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> s = sums(
      b, loc, a[0], axes, {}, 2, [](OpBuilder &nb, Location l, ValueRange v) {
        return SmallVector<Value>{v[0],
                                  nb.create<arith::MulFOp>(l, v[0], v[0])};
      });
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap red = lw::reducedMap(rank, axes, ctx);
  return mapped(
      b, loc, xs, elementOf(a[0]), ValueRange{a[0], s[0], s[1]}, {id, red, red},
      [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        Type t = v[0].getType();
        Value mean = nb.create<arith::DivFOp>(l, v[1], cst(nb, l, t, n));
        Value ex2 = nb.create<arith::DivFOp>(l, v[2], cst(nb, l, t, n));
        Value var = nb.create<arith::SubFOp>(
            l, ex2, nb.create<arith::MulFOp>(l, mean, mean));
        Value sd = nb.create<arith::AddFOp>(l, nb.create<math::SqrtOp>(l, var),
                                            cst(nb, l, t, 1e-9));
        return nb.create<arith::DivFOp>(
            l, nb.create<arith::SubFOp>(l, v[0], mean), sd);
      });
}

//===----------------------------------------------------------------------===//
// LayerNormalization
//===----------------------------------------------------------------------===//

/// Any float type, statistics in stash_type. Output 0 (args X, Scale[, B])
/// is the normalized tensor; outputs 1 and 2 (arg X) are Mean and InvStdDev
/// ([d0, ..., d(axis-1), 1, ...] in stash_type).
llvm::Expected<Value> layerNormalization(OpBuilder &b, Location loc,
                                         ValueRange a, Type, const Params &p) {
  SYSTOLE_PARAM(axis, p.i64("axis"));
  SYSTOLE_PARAM(eps, p.f64("epsilon"));
  SYSTOLE_PARAM(stash, p.type("stash_type"));
  SYSTOLE_PARAM(output, p.i64("output"));
  auto xs = shapeOf(a[0]);
  int64_t rank = xs.size();
  if (axis < 0 || axis >= rank)
    return p.fail("axis out of range");
  if (output < 0 || output > 2)
    return p.fail("output must be 0, 1 or 2");
  // SimplifiedLayerNormalization (ORT's LayerNormImpl with simplified):
  // x / sqrt(mean(x^2) + eps) * scale, no mean, no bias.
  bool simplified = p.has("simplified");
  if (simplified && (output != 0 || a.size() != 2))
    return p.fail("'simplified' takes X and Scale and gives output 0");
  SmallVector<int64_t> axes = range(axis, rank);
  double n = 1;
  for (int64_t ax : axes)
    n *= double(xs[ax]);
  // The sum and the sum of squares of x in stash_type, in one pass as
  // ORT's LayerNormImpl.
  auto stats = [&](Value x) {
    return sums(b, loc, x, axes, {}, 2,
                [&](OpBuilder &nb, Location l, ValueRange v) {
                  return SmallVector<Value>{
                      v[0], nb.create<arith::MulFOp>(l, v[0], v[0])};
                });
  };
  auto statsType = [&](Value x) {
    // sums() accumulates in x's type: view x in stash_type first.
    int64_t r = shapeOf(x).size();
    return mapped(b, loc, shapeOf(x), stash, x,
                  AffineMap::getMultiDimIdentityMap(r, b.getContext()),
                  [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                    return castFloat(nb, l, v[0], stash);
                  });
  };
  // mean and sqrt(ms - mean^2 + eps) from the two sums.
  auto meanInv = [&](OpBuilder &nb, Location l, Value s, Value s2) {
    Type u = s.getType();
    Value mean = nb.create<arith::DivFOp>(l, s, cst(nb, l, u, n));
    Value ms = nb.create<arith::DivFOp>(l, s2, cst(nb, l, u, n));
    Value var = simplified
                    ? ms
                    : nb.create<arith::SubFOp>(
                            l, ms, nb.create<arith::MulFOp>(l, mean, mean))
                          .getResult();
    Value denom = nb.create<math::SqrtOp>(
        l, nb.create<arith::AddFOp>(l, var, cst(nb, l, u, eps)));
    return std::make_pair(mean, denom);
  };
  if (output != 0) {
    SmallVector<int64_t> statShape(xs.begin(), xs.begin() + axis);
    statShape.append(rank - axis, 1);
    SmallVector<Value> s = stats(statsType(a[0]));
    int64_t rr = shapeOf(s[0]).size();
    Value v =
        mapped(b, loc, shapeOf(s[0]), stash, ValueRange{s[0], s[1]},
               {AffineMap::getMultiDimIdentityMap(rr, b.getContext()),
                AffineMap::getMultiDimIdentityMap(rr, b.getContext())},
               [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                 auto [mean, denom] = meanInv(nb, l, v[0], v[1]);
                 return output == 1
                            ? mean
                            : nb.create<arith::DivFOp>(
                                  l, cst(nb, l, mean.getType(), 1.0), denom);
               });
    return lw::reshapeTo(b, loc, v, statShape);
  }
  if (a.size() < 2)
    return p.fail("expects X and Scale");
  MLIRContext *ctx = b.getContext();
  Value xu = statsType(a[0]);
  SmallVector<Value> s = stats(xu);
  SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, ctx),
                              lw::reducedMap(rank, axes, ctx),
                              lw::reducedMap(rank, axes, ctx)};
  SmallVector<Value> args{xu, s[0], s[1]};
  for (Value v : a.drop_front()) {
    args.push_back(v);
    maps.push_back(lw::broadcastMap(shapeOf(v), xs, ctx));
  }
  Type elem = elementOf(a[0]);
  return mapped(
      b, loc, xs, elem, args, maps,
      [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        auto [mean, denom] = meanInv(nb, l, v[1], v[2]);
        Value centered =
            simplified ? v[0]
                       : nb.create<arith::SubFOp>(l, v[0], mean).getResult();
        Value norm = castFloat(
            nb, l, nb.create<arith::DivFOp>(l, centered, denom), elem);
        Value r = nb.create<arith::MulFOp>(l, norm, v[3]);
        if (v.size() > 4)
          r = nb.create<arith::AddFOp>(l, r, v[4]);
        return r;
      });
}

//===----------------------------------------------------------------------===//
// LRN
//===----------------------------------------------------------------------===//

/// y = x / (bias + alpha / size * sum of x^2 over the channels
/// [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta: the squares padded
/// along C and summed by a linalg.generic with a window dim.
llvm::Expected<Value> lrn(OpBuilder &b, Location loc, ValueRange a, Type,
                          const Params &p) {
  SYSTOLE_PARAM(size, p.i64("size"));
  SYSTOLE_PARAM(alpha, p.f64("alpha"));
  SYSTOLE_PARAM(beta, p.f64("beta"));
  SYSTOLE_PARAM(bias, p.f64("bias"));
  auto xs = shapeOf(a[0]);
  int64_t rank = xs.size();
  if (rank < 3 || size <= 0)
    return p.fail("expects an [N, C, D1, ...] input and a positive size");
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  MLIRContext *ctx = b.getContext();
  Type elem = elementOf(a[0]);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  Value sq = mapped(b, loc, xs, elem, a[0], id,
                    [](OpBuilder &nb, Location l, ValueRange v) -> Value {
                      return nb.create<arith::MulFOp>(l, v[0], v[0]);
                    });
  SmallVector<int64_t> low(rank, 0), high(rank, 0), padded(xs);
  low[1] = before;
  high[1] = after;
  padded[1] += size - 1;
  sq = b.create<tensor::PadOp>(
      loc, tensorType(padded, elem), sq, getAsIndexOpFoldResult(ctx, low),
      getAsIndexOpFoldResult(ctx, high), cst(b, loc, elem, 0.0));
  // loops: x's dims, then the window k; sq read at channel c + k.
  int64_t loops = rank + 1;
  SmallVector<AffineExpr> se;
  for (int64_t d = 0; d < rank; ++d)
    se.push_back(d == 1 ? getAffineDimExpr(1, ctx) + getAffineDimExpr(rank, ctx)
                        : getAffineDimExpr(d, ctx));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  Value zero = cst(b, loc, elem, 0.0);
  Value init = b.create<linalg::FillOp>(
                    loc, ValueRange{zero},
                    ValueRange{b.create<tensor::EmptyOp>(loc, xs, elem)})
                   .getResult(0);
  Value window = b.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{size}, elem);
  Value sum =
      b.create<linalg::GenericOp>(
           loc, TypeRange{init.getType()}, ValueRange{sq, window},
           ValueRange{init},
           SmallVector<AffineMap>{
               AffineMap::get(loops, 0, se, ctx),
               AffineMap::get(loops, 0, getAffineDimExpr(rank, ctx)),
               AffineMap::getMultiDimIdentityMap(loops, ctx)
                   .getMajorSubMap(rank)},
           iters,
           [](OpBuilder &nb, Location l, ValueRange v) {
             nb.create<linalg::YieldOp>(
                 l, ValueRange{nb.create<arith::AddFOp>(l, v[2], v[0])});
           })
          .getResult(0);
  return mapped(b, loc, xs, elem, ValueRange{a[0], sum}, {id, id},
                [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                  Type t = v[0].getType();
                  Value base = nb.create<arith::AddFOp>(
                      l, cst(nb, l, t, bias),
                      nb.create<arith::MulFOp>(
                          l, cst(nb, l, t, alpha / double(size)), v[1]));
                  return nb.create<arith::DivFOp>(l, v[0],
                                                  powConst(nb, l, base, beta));
                });
}

} // namespace
} // namespace norm

void registerNormBodies(llvm::StringMap<HostBodyFn> &table) {
  table["BatchNormalization"] = norm::batchNormalization;
  table["InstanceNormalization"] = norm::instanceNormalization;
  table["LayerNormalization"] = norm::layerNormalization;
  table["GroupNormalization"] = norm::groupNormalization;
  table["MeanVarianceNormalization"] = norm::meanVarianceNormalization;
  table["LRN"] = norm::lrn;
}

} // namespace systole::conversion::onnx
