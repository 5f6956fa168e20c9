//===- ImportNorm.cpp - Batch/Instance/Layer/Group normalization, LRN -----===//
//
// The normalizations as graph.host ops: statistics are linalg.generic
// reductions (sums over the normalized dims), the normalization one
// linalg.generic over the input reading them back through reduced maps and
// the scale/bias through broadcasting maps. Formulas follow ONNX Runtime's
// CPU kernels: LayerNormalization takes the sum and the sum of squares in
// one pass, (x - mean) / sqrt(ms - mean^2 + eps) (LayerNormImpl);
// InstanceNormalization and GroupNormalization subtract the mean before
// squaring; MeanVarianceNormalization is its ONNX function,
// (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9).
//
// An op with several outputs (LayerNormalization's Mean/InvStdDev,
// BatchNormalization's running statistics) is one graph.host per output
// used, each recomputing the statistics it needs.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"

#include "systole/Conversion/LoweringUtils.h"
#include "systole/Frontend/OnnxModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::frontend {

namespace {

using ScalarFn = llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;
using TermsFn =
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

Value cst(OpBuilder &b, Location loc, Type t, double v) {
  return b.create<arith::ConstantOp>(loc, b.getFloatAttr(t, v));
}

/// Float conversion (ONNX Cast between float types).
Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return b.create<arith::ExtFOp>(loc, to, v);
  return b.create<arith::TruncFOp>(loc, to, v);
}

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

llvm::Expected<SmallVector<Value>> floatInputs(ImportContext &ic, int first,
                                               int last) {
  SmallVector<Value> v;
  for (int i = first; i <= last; ++i) {
    if (!ic.hasInput(i))
      continue;
    auto x = ic.input(i);
    if (!x)
      return x.takeError();
    if (!isa<FloatType>(elementOf(*x)))
      return ic.fail("expects float tensors (int8 activations come as QDQ)");
    v.push_back(*x);
  }
  return v;
}

bool wants(ImportContext &ic, int i) {
  return ic.node->output_size() > i && !ic.node->output(i).empty();
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
llvm::Expected<AffineMap> paramMap(ImportContext &ic, Value p,
                                   ArrayRef<int64_t> xs) {
  MLIRContext *ctx = ic.ctx();
  auto ps = shapeOf(p);
  int64_t rank = xs.size();
  if (ps.size() == 1 && ps[0] == xs[1])
    return AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
  if (int64_t(ps.size()) == rank - 1 && ps == xs.drop_front())
    return AffineMap::get(rank, 0, lw::reducedMap(rank, {0}, ctx).getResults(),
                          ctx);
  return ic.fail("BatchNormalization parameters must have shape [C] (or "
                 "[C, D1, ...] with spatial=0)");
}

llvm::Error importBatchNormalization(ImportContext &ic) {
  auto ins = floatInputs(ic, 0, 4);
  if (!ins)
    return ins.takeError();
  if (ins->size() != 5)
    return ic.fail("expects X, scale, B, input_mean and input_var");
  Value x = (*ins)[0];
  auto xs = shapeOf(x);
  int64_t rank = xs.size();
  if (rank < 2)
    return ic.fail("expects an [N, C, ...] input");
  for (Value v : llvm::ArrayRef(*ins).drop_front())
    if (elementOf(v) != elementOf(x))
      return ic.fail("BatchNormalization with parameters of another element "
                     "type than X is not supported");
  int64_t opset = opsetVersion(ic.model, "");
  bool training = ic.attrInt("training_mode", 0) != 0;
  if (opset < 14 && ic.node->output_size() > 1)
    for (int i = 1; i < ic.node->output_size(); ++i)
      if (wants(ic, i))
        return ic.fail("the training outputs (mean, var, saved_mean, "
                       "saved_var) of BatchNormalization before opset 14 "
                       "are not supported");
  if (!training && (wants(ic, 1) || wants(ic, 2)))
    return ic.fail("running_mean/running_var need training_mode=1");
  SmallVector<AffineMap> pmaps;
  for (int i = 1; i < 5; ++i) {
    auto m = paramMap(ic, (*ins)[i], xs);
    if (!m)
      return m.takeError();
    pmaps.push_back(*m);
  }
  if (training && llvm::any_of(*ins, [&](Value v) {
        return v != x && shapeOf(v).size() != 1;
      }))
    return ic.fail("training_mode=1 expects [C] parameters");
  double eps = ic.attrFloat("epsilon", 1e-5f);
  double momentum = ic.attrFloat("momentum", 0.9f);
  SmallVector<int64_t> axes{0};
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  MLIRContext *ctx = ic.ctx();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);

  // ORT's BatchNorm kernel folds the statistics into a per-channel affine
  // map, y = x * s + (B - mean * s) with s = scale / sqrt(var + eps) (in
  // training mode sqrt(1 / (var + eps)) of the batch's statistics); the
  // same operation order keeps the result bit-equal to its.
  auto y = ic.hostOp(
      *ins,
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
        SmallVector<Value> args{a[0], a[1], a[2], a[3], a[4]};
        SmallVector<AffineMap> maps{id, pmaps[0], pmaps[1], pmaps[2], pmaps[3]};
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
              Value inv = training ? Value(nb.create<math::SqrtOp>(
                                         l, nb.create<arith::DivFOp>(
                                                l, cst(nb, l, t, 1.0), ve)))
                                   : rsqrtOf(nb, l, ve);
              Value s = nb.create<arith::MulFOp>(l, inv, v[1]);
              Value bias = nb.create<arith::SubFOp>(
                  l, v[2], nb.create<arith::MulFOp>(l, v[3], s));
              return nb.create<arith::AddFOp>(
                  l, nb.create<arith::MulFOp>(l, v[0], s), bias);
            });
      });
  if (!y)
    return y.takeError();
  if (auto e = ic.defineOutput(0, *y))
    return e;
  // running = input * momentum + batch * (1 - momentum).
  for (int out = 1; out <= 2; ++out) {
    if (!wants(ic, out))
      continue;
    auto r = ic.hostOp(
        ValueRange{x, (*ins)[2 + out]},
        [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
          auto [mean, var] = meanAndVariance(b, loc, a[0], axes);
          Value batch = out == 1 ? mean : var;
          AffineMap m1 = AffineMap::getMultiDimIdentityMap(1, ctx);
          return mapped(
              b, loc, shapeOf(a[1]), elementOf(a[1]), ValueRange{a[1], batch},
              {m1, m1}, [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                Type t = v[0].getType();
                return nb.create<arith::AddFOp>(
                    l,
                    nb.create<arith::MulFOp>(l, v[0], cst(nb, l, t, momentum)),
                    nb.create<arith::MulFOp>(l, v[1],
                                             cst(nb, l, t, 1.0 - momentum)));
              });
        });
    if (!r)
      return r.takeError();
    if (auto e = ic.defineOutput(out, *r))
      return e;
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// InstanceNormalization, GroupNormalization, MeanVarianceNormalization
//===----------------------------------------------------------------------===//

llvm::Error importInstanceNormalization(ImportContext &ic) {
  auto ins = floatInputs(ic, 0, 2);
  if (!ins)
    return ins.takeError();
  if (ins->size() != 3)
    return ic.fail("expects input, scale and B");
  auto xs = shapeOf((*ins)[0]);
  int64_t rank = xs.size();
  if (rank < 3)
    return ic.fail("expects an [N, C, D1, ...] input");
  for (int i = 1; i < 3; ++i)
    if (shapeOf((*ins)[i]) != ArrayRef<int64_t>{xs[1]} ||
        elementOf((*ins)[i]) != elementOf((*ins)[0]))
      return ic.fail("scale and B must be [C] of the input's element type");
  double eps = ic.attrFloat("epsilon", 1e-5f);
  auto y = ic.hostOp(
      *ins,
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
        MLIRContext *ctx = b.getContext();
        SmallVector<int64_t> axes = range(2, rank);
        auto [mean, var] = meanAndVariance(b, loc, a[0], axes);
        AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
        AffineMap red = lw::reducedMap(rank, axes, ctx);
        AffineMap ch = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
        return mapped(
            b, loc, xs, elementOf(a[0]),
            ValueRange{a[0], mean, var, a[1], a[2]}, {id, red, red, ch, ch},
            [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
              Type t = v[0].getType();
              Value inv = rsqrtOf(
                  nb, l, nb.create<arith::AddFOp>(l, v[2], cst(nb, l, t, eps)));
              Value n = nb.create<arith::MulFOp>(
                  l, nb.create<arith::SubFOp>(l, v[0], v[1]), inv);
              return nb.create<arith::AddFOp>(
                  l, nb.create<arith::MulFOp>(l, n, v[3]), v[4]);
            });
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

/// The element type ONNX's stash_type names (float by default).
llvm::Expected<Type> stashType(ImportContext &ic) {
  Type t = onnxElementType(ic.ctx(),
                           ic.attrInt("stash_type", onnx::TensorProto::FLOAT));
  if (t && isa<FloatType>(t))
    return t;
  return ic.fail("stash_type " + llvm::Twine(ic.attrInt("stash_type", 1)) +
                 " is not a float type");
}

/// GroupNormalization: x viewed as [N, G, C/G, D...], statistics over
/// dims 2.. in stash_type; scale/bias per group (opset 18) or per channel
/// (opset 21).
llvm::Error groupNormalization(ImportContext &ic, bool perChannel) {
  auto ins = floatInputs(ic, 0, 2);
  if (!ins)
    return ins.takeError();
  if (ins->size() != 3)
    return ic.fail("expects X, scale and bias");
  auto stash = stashType(ic);
  if (!stash)
    return stash.takeError();
  auto xs = shapeOf((*ins)[0]);
  int64_t rank = xs.size(), groups = ic.attrInt("num_groups", 0);
  if (rank < 3)
    return ic.fail("expects an [N, C, D1, ...] input");
  if (groups <= 0 || xs[1] % groups)
    return ic.fail("num_groups " + llvm::Twine(groups) + " does not divide " +
                   llvm::Twine(xs[1]) + " channels");
  int64_t pn = perChannel ? xs[1] : groups, cg = xs[1] / groups;
  for (int i = 1; i < 3; ++i)
    if (shapeOf((*ins)[i]) != ArrayRef<int64_t>{pn})
      return ic.fail("scale and bias must have " + llvm::Twine(pn) +
                     " elements (" +
                     (perChannel ? "one per channel" : "one per group") + ")");
  double eps = ic.attrFloat("epsilon", 1e-5f);
  auto y = ic.hostOp(
      *ins,
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
        MLIRContext *ctx = b.getContext();
        Type elem = elementOf(a[0]);
        SmallVector<int64_t> gs{xs[0], groups, cg};
        gs.append(xs.begin() + 2, xs.end());
        int64_t grank = gs.size();
        SmallVector<ReassociationIndices> assoc{{0}, {1, 2}};
        for (int64_t d = 3; d < grank; ++d)
          assoc.push_back({d});
        Value xg = b.create<tensor::ExpandShapeOp>(loc, tensorType(gs, elem),
                                                   a[0], assoc);
        AffineMap id = AffineMap::getMultiDimIdentityMap(grank, ctx);
        Value xu =
            mapped(b, loc, gs, *stash, xg, id,
                   [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                     return convertFloat(nb, l, v[0], *stash);
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
              Value n = convertFloat(
                  nb, l,
                  nb.create<arith::MulFOp>(
                      l, nb.create<arith::SubFOp>(l, v[0], v[1]), inv),
                  elem);
              return nb.create<arith::AddFOp>(
                  l, nb.create<arith::MulFOp>(l, n, v[3]), v[4]);
            });
        return b
            .create<tensor::CollapseShapeOp>(loc, tensorType(xs, elem), yg,
                                             assoc)
            .getResult();
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

llvm::Error importGroupNormalization(ImportContext &ic) {
  return groupNormalization(ic, opsetVersion(ic.model, "") >= 21);
}

llvm::Error importMeanVarianceNormalization(ImportContext &ic) {
  auto ins = floatInputs(ic, 0, 0);
  if (!ins)
    return ins.takeError();
  Value x = (*ins)[0];
  auto xs = shapeOf(x);
  int64_t rank = xs.size();
  std::vector<int64_t> axes =
      ic.attrInts("axes").value_or(std::vector<int64_t>{0, 2, 3});
  for (int64_t &a : axes) {
    a = a < 0 ? a + rank : a;
    if (a < 0 || a >= rank)
      return ic.fail("axis out of range");
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  double n = 1;
  for (int64_t a : axes)
    n *= double(xs[a]);
  auto y = ic.hostOp(
      x,
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
        MLIRContext *ctx = b.getContext();
        SmallVector<Value> s =
            sums(b, loc, a[0], axes, {}, 2,
                 [](OpBuilder &nb, Location l, ValueRange v) {
                   return SmallVector<Value>{
                       v[0], nb.create<arith::MulFOp>(l, v[0], v[0])};
                 });
        AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
        AffineMap red = lw::reducedMap(rank, axes, ctx);
        return mapped(
            b, loc, xs, elementOf(a[0]), ValueRange{a[0], s[0], s[1]},
            {id, red, red},
            [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
              Type t = v[0].getType();
              Value mean = nb.create<arith::DivFOp>(l, v[1], cst(nb, l, t, n));
              Value ex2 = nb.create<arith::DivFOp>(l, v[2], cst(nb, l, t, n));
              Value var = nb.create<arith::SubFOp>(
                  l, ex2, nb.create<arith::MulFOp>(l, mean, mean));
              Value sd = nb.create<arith::AddFOp>(
                  l, nb.create<math::SqrtOp>(l, var), cst(nb, l, t, 1e-9));
              return nb.create<arith::DivFOp>(
                  l, nb.create<arith::SubFOp>(l, v[0], mean), sd);
            });
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

//===----------------------------------------------------------------------===//
// LayerNormalization
//===----------------------------------------------------------------------===//

/// The host form: any float type, statistics in stash_type, the Mean and
/// InvStdDev outputs ([d0, ..., d(axis-1), 1, ...] in stash_type).
llvm::Error hostLayerNormalization(ImportContext &ic, ArrayRef<Value> ins,
                                   int64_t axis) {
  auto stash = stashType(ic);
  if (!stash)
    return stash.takeError();
  auto xs = shapeOf(ins[0]);
  int64_t rank = xs.size();
  SmallVector<int64_t> axes = range(axis, rank);
  double n = 1;
  for (int64_t a : axes)
    n *= double(xs[a]);
  for (Value p : ins.drop_front()) {
    auto ps = shapeOf(p);
    if (ps.size() > size_t(rank - axis) ||
        llvm::any_of(llvm::zip(llvm::reverse(ps), llvm::reverse(xs)),
                     [](auto pair) {
                       return std::get<0>(pair) != 1 &&
                              std::get<0>(pair) != std::get<1>(pair);
                     }))
      return ic.fail("Scale and B must broadcast to the normalized dims");
  }
  double eps = ic.attrFloat("epsilon", 1e-5f);
  // The sum and the sum of squares of x in stash_type, in one pass as
  // ORT's LayerNormImpl.
  auto stats = [&](OpBuilder &b, Location loc, Value x) {
    return sums(b, loc, x, axes, {}, 2,
                [&](OpBuilder &nb, Location l, ValueRange v) {
                  return SmallVector<Value>{
                      v[0], nb.create<arith::MulFOp>(l, v[0], v[0])};
                });
  };
  auto statsType = [&](OpBuilder &b, Location loc, Value x) {
    // sums() accumulates in x's type: view x in stash_type first.
    int64_t r = shapeOf(x).size();
    return mapped(b, loc, shapeOf(x), *stash, x,
                  AffineMap::getMultiDimIdentityMap(r, b.getContext()),
                  [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                    return convertFloat(nb, l, v[0], *stash);
                  });
  };
  // mean and 1 / sqrt(ms - mean^2 + eps) from the two sums.
  auto meanInv = [&](OpBuilder &nb, Location l, Value s, Value s2) {
    Type u = s.getType();
    Value mean = nb.create<arith::DivFOp>(l, s, cst(nb, l, u, n));
    Value ms = nb.create<arith::DivFOp>(l, s2, cst(nb, l, u, n));
    Value var = nb.create<arith::SubFOp>(
        l, ms, nb.create<arith::MulFOp>(l, mean, mean));
    Value denom = nb.create<math::SqrtOp>(
        l, nb.create<arith::AddFOp>(l, var, cst(nb, l, u, eps)));
    return std::make_pair(mean, denom);
  };
  SmallVector<Value> operands(ins.begin(), ins.end());
  auto y = ic.hostOp(
      operands,
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
        MLIRContext *ctx = b.getContext();
        Value xu = statsType(b, loc, a[0]);
        SmallVector<Value> s = stats(b, loc, xu);
        SmallVector<AffineMap> maps{
            AffineMap::getMultiDimIdentityMap(rank, ctx),
            lw::reducedMap(rank, axes, ctx), lw::reducedMap(rank, axes, ctx)};
        SmallVector<Value> args{xu, s[0], s[1]};
        for (Value p : a.drop_front()) {
          args.push_back(p);
          maps.push_back(lw::broadcastMap(shapeOf(p), xs, ctx));
        }
        Type elem = elementOf(a[0]);
        return mapped(
            b, loc, xs, elem, args, maps,
            [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
              auto [mean, denom] = meanInv(nb, l, v[1], v[2]);
              Value norm = convertFloat(
                  nb, l,
                  nb.create<arith::DivFOp>(
                      l, nb.create<arith::SubFOp>(l, v[0], mean), denom),
                  elem);
              Value r = nb.create<arith::MulFOp>(l, norm, v[3]);
              if (v.size() > 4)
                r = nb.create<arith::AddFOp>(l, r, v[4]);
              return r;
            });
      });
  if (!y)
    return y.takeError();
  if (auto e = ic.defineOutput(0, *y))
    return e;
  SmallVector<int64_t> statShape(xs.begin(), xs.begin() + axis);
  statShape.append(rank - axis, 1);
  for (int out = 1; out <= 2; ++out) {
    if (!wants(ic, out))
      continue;
    auto r = ic.hostOp(
        ins[0],
        [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
          SmallVector<Value> s = stats(b, loc, statsType(b, loc, a[0]));
          int64_t rr = shapeOf(s[0]).size();
          Value v =
              mapped(b, loc, shapeOf(s[0]), *stash, ValueRange{s[0], s[1]},
                     {AffineMap::getMultiDimIdentityMap(rr, b.getContext()),
                      AffineMap::getMultiDimIdentityMap(rr, b.getContext())},
                     [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                       auto [mean, denom] = meanInv(nb, l, v[0], v[1]);
                       return out == 1 ? mean
                                       : nb.create<arith::DivFOp>(
                                             l, cst(nb, l, mean.getType(), 1.0),
                                             denom);
                     });
          return lw::reshapeTo(b, loc, v, statShape);
        });
    if (!r)
      return r.takeError();
    if (auto e = ic.defineOutput(out, *r))
      return e;
  }
  return llvm::Error::success();
}

/// A float32 LayerNormalization with one output keeps graph.layer_norm
/// (the form the transformer's host groups were validated with); every
/// other form is the host op above.
llvm::Error importLayerNormalization(ImportContext &ic) {
  auto ins = floatInputs(ic, 0, 2);
  if (!ins)
    return ins.takeError();
  if (ins->size() < 2)
    return ic.fail("expects X and Scale");
  for (Value v : *ins)
    if (elementOf(v) != elementOf((*ins)[0]))
      return ic.fail("X, Scale and B must have one element type");
  Value x = (*ins)[0];
  int64_t rank = shapeOf(x).size();
  int64_t axis = ic.attrInt("axis", -1);
  axis = axis < 0 ? axis + rank : axis;
  if (axis < 0 || axis >= rank)
    return ic.fail("LayerNormalization axis out of range");
  int64_t norm = 1;
  for (int64_t d = axis; d < rank; ++d)
    norm *= shapeOf(x)[d];
  bool fullParams =
      llvm::all_of(llvm::ArrayRef(*ins).drop_front(), [&](Value p) {
        return cast<RankedTensorType>(p.getType()).getNumElements() == norm;
      });
  if (elementOf(x).isF32() && !wants(ic, 1) && !wants(ic, 2) &&
      ic.attrInt("stash_type", 1) == 1 && fullParams) {
    auto &b = ic.builder;
    Value y = b.create<graph::LayerNormOp>(
        ic.loc(), x.getType(), x, (*ins)[1],
        ins->size() > 2 ? (*ins)[2] : Value(), b.getI64IntegerAttr(axis),
        b.getF64FloatAttr(ic.attrFloat("epsilon", 1e-5f)));
    return ic.defineOutput(0, y);
  }
  return hostLayerNormalization(ic, *ins, axis);
}

//===----------------------------------------------------------------------===//
// LRN
//===----------------------------------------------------------------------===//

/// y = x / (bias + alpha / size * sum of x^2 over the channels
/// [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta: the squares padded
/// along C and summed by a linalg.generic with a window dim.
llvm::Error importLRN(ImportContext &ic) {
  auto ins = floatInputs(ic, 0, 0);
  if (!ins)
    return ins.takeError();
  Value x = (*ins)[0];
  auto xs = shapeOf(x);
  int64_t rank = xs.size(), size = ic.attrInt("size", 0);
  if (rank < 3)
    return ic.fail("expects an [N, C, D1, ...] input");
  if (size <= 0)
    return ic.fail("size must be positive");
  double alpha = ic.attrFloat("alpha", 1e-4f),
         beta = ic.attrFloat("beta", 0.75f), bias = ic.attrFloat("bias", 1.0f);
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  auto y = ic.hostOp(
      x,
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
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
          se.push_back(d == 1 ? getAffineDimExpr(1, ctx) +
                                    getAffineDimExpr(rank, ctx)
                              : getAffineDimExpr(d, ctx));
        SmallVector<utils::IteratorType> iters(rank,
                                               utils::IteratorType::parallel);
        iters.push_back(utils::IteratorType::reduction);
        Value zero = cst(b, loc, elem, 0.0);
        Value init = b.create<linalg::FillOp>(
                          loc, ValueRange{zero},
                          ValueRange{b.create<tensor::EmptyOp>(loc, xs, elem)})
                         .getResult(0);
        Value window =
            b.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{size}, elem);
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
                        return nb.create<arith::DivFOp>(
                            l, v[0], powConst(nb, l, base, beta));
                      });
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

} // namespace

void registerNormImporters(llvm::StringMap<OpImporter> &table) {
  table["BatchNormalization"] = importBatchNormalization;
  table["InstanceNormalization"] = importInstanceNormalization;
  table["LayerNormalization"] = importLayerNormalization;
  table["GroupNormalization"] = importGroupNormalization;
  table["MeanVarianceNormalization"] = importMeanVarianceNormalization;
  table["LRN"] = importLRN;
}

} // namespace systole::frontend
