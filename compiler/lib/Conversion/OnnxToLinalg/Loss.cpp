//===- Loss.cpp - Bodies of NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
//===//
//
// Over inputs [N, C, D1, ..., Dk] and integer targets [N, D1, ..., Dk]:
//
//   log_prob   (SCE only) log-softmax over C: x - max - log(sum(exp(x -
//              max))), as ORT's softmax kernels (two reduction generics and
//              an elementwise generic)
//   per-element one linalg.generic over the target shape whose body reads
//              the target's class and gathers input[n, class, d...] and
//              weight[class] with tensor.extract; ignore_index gives 0
//   reduction  none: that tensor; sum: a generic reducing every dim into a
//              rank-0 tensor; mean: sum(loss) / sum(weights of the counted
//              elements) (the element count when there is no weight), as
//              the ONNX reference
//
// Sums accumulate in the input type (float32 for float16 inputs), in loop
// order. Each output is its own graph.host op (`output`; SCE's log_prob
// recomputes the log-softmax). The importer (Frontend/ImportLoss.cpp)
// checks the shapes.
//
//===----------------------------------------------------------------------===//
#include "HostBody.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion::onnx {

namespace loss {
namespace {

using lw::castFloat;
using lw::parallel;

enum class Reduction { None, Sum, Mean };

struct LossSpec {
  bool softmax = false;
  Reduction reduction = Reduction::Mean;
  std::optional<int64_t> ignoreIndex;
  bool hasWeight = false;
  /// Accumulation type: the input's, float32 for narrower floats.
  Type compute;
};

Value floatConst(OpBuilder &b, Location loc, Type t, double v) {
  return b.create<arith::ConstantOp>(loc, b.getFloatAttr(t, v));
}

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type t,
                   double v) {
  Value empty = b.create<tensor::EmptyOp>(loc, shape, t);
  return b
      .create<linalg::FillOp>(loc, floatConst(b, loc, t, v), ValueRange{empty})
      .getResult(0);
}

/// `x` with every element cast to `t` (no-op when it already is).
Value castTensor(OpBuilder &b, Location loc, Value x, Type t) {
  if (elementOf(x) == t)
    return x;
  return lw::elementwise(
      b, loc, shapeOf(x), x,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        return castFloat(nb, l, a[0], t);
      },
      t);
}

/// Reduces `x` over dim 1 (the classes): acc = combine(acc, v) with v = x,
/// or v = exp(x - m) when the row maxima `m` (a tensor without dim 1) are
/// given: softmax's two passes.
Value reduceClasses(OpBuilder &b, Location loc, Value x, Value m, double init,
                    lw::CombineFn combine) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  SmallVector<int64_t> outShape;
  for (int64_t d = 0; d < rank; ++d)
    if (d != 1)
      outShape.push_back(shape[d]);
  AffineMap reduced = lw::reducedMap(rank, {1}, ctx);
  SmallVector<Value> ins = {x};
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx)};
  if (m) {
    ins.push_back(m);
    maps.push_back(reduced);
  }
  maps.push_back(reduced);
  SmallVector<utils::IteratorType> iters = parallel(rank);
  iters[1] = utils::IteratorType::reduction;
  Type t = elementOf(x);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{RankedTensorType::get(outShape, t)}, ins,
          ValueRange{filledTensor(b, loc, outShape, t, init)}, maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value v = args[0];
            if (m)
              v = nb.create<math::ExpOp>(
                  l, nb.create<arith::SubFOp>(l, args[0], args[1]));
            nb.create<linalg::YieldOp>(l, combine(nb, l, args.back(), v));
          })
      .getResult(0);
}

/// log_softmax over dim 1 in the compute type of `x`.
Value logSoftmax(OpBuilder &b, Location loc, Value x) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = shapeOf(x).size();
  Value max =
      reduceClasses(b, loc, x, Value(), -INFINITY,
                    [](OpBuilder &nb, Location l, Value a, Value v) {
                      return nb.create<arith::MaximumFOp>(l, a, v).getResult();
                    });
  Value sum = reduceClasses(
      b, loc, x, max, 0.0, [](OpBuilder &nb, Location l, Value a, Value v) {
        return nb.create<arith::AddFOp>(l, a, v).getResult();
      });
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap reduced = lw::reducedMap(rank, {1}, ctx);
  Value init = b.create<tensor::EmptyOp>(loc, shapeOf(x), elementOf(x));
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{x.getType()}, ValueRange{x, max, sum},
          ValueRange{init}, SmallVector<AffineMap>{id, reduced, reduced, id},
          parallel(rank),
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value shifted = nb.create<arith::SubFOp>(l, a[0], a[1]);
            nb.create<linalg::YieldOp>(
                l, nb.create<arith::SubFOp>(l, shifted,
                                            nb.create<math::LogOp>(l, a[2]))
                       .getResult());
          })
      .getResult(0);
}

/// Over the target shape: the loss -src[n, t, d...] * weight[t] (or the
/// weight alone when `weightOnly`), 0 where t == ignore_index.
Value perElement(OpBuilder &b, Location loc, Value src, Value target,
                 Value weight, const LossSpec &spec, bool weightOnly) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> shape = shapeOf(target);
  int64_t rank = shape.size();
  int64_t classes = shapeOf(src)[1];
  Type t = spec.compute;
  Value init = b.create<tensor::EmptyOp>(loc, shape, t);
  SmallVector<AffineMap> maps(2, AffineMap::getMultiDimIdentityMap(rank, ctx));
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ValueRange{target}, ValueRange{init},
          maps, parallel(rank),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value label = args[0];
            Type lt = label.getType();
            Value valid;
            if (spec.ignoreIndex) {
              Value ii = nb.create<arith::ConstantOp>(
                  l, nb.getIntegerAttr(lt, *spec.ignoreIndex));
              valid = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::ne,
                                               label, ii);
            }
            // Clamped so that an ignored label outside [0, C) reads
            // nothing out of bounds (ONNX's reference clips the weight
            // gather the same way).
            Value cls =
                nb.create<arith::IndexCastOp>(l, nb.getIndexType(), label);
            Value zero = nb.create<arith::ConstantIndexOp>(l, 0);
            Value last = nb.create<arith::ConstantIndexOp>(l, classes - 1);
            cls = nb.create<arith::MinSIOp>(
                l, nb.create<arith::MaxSIOp>(l, cls, zero), last);
            Value w = floatConst(nb, l, t, 1.0);
            if (weight)
              w = castFloat(nb, l, nb.create<tensor::ExtractOp>(l, weight, cls),
                            t);
            Value out = w;
            if (!weightOnly) {
              SmallVector<Value> coords;
              coords.push_back(nb.create<linalg::IndexOp>(l, 0));
              coords.push_back(cls);
              for (int64_t d = 1; d < rank; ++d)
                coords.push_back(nb.create<linalg::IndexOp>(l, d));
              Value v = castFloat(
                  nb, l, nb.create<tensor::ExtractOp>(l, src, coords), t);
              Value neg = nb.create<arith::NegFOp>(l, v);
              out = weight ? Value(nb.create<arith::MulFOp>(l, neg, w)) : neg;
            }
            if (valid)
              out = nb.create<arith::SelectOp>(l, valid, out,
                                               floatConst(nb, l, t, 0.0));
            nb.create<linalg::YieldOp>(l, out);
          })
      .getResult(0);
}

/// Sum of every element into a rank-0 tensor, in loop order.
Value sumAll(OpBuilder &b, Location loc, Value x) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = shapeOf(x).size();
  Type t = elementOf(x);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, {}, ctx)};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::reduction);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{RankedTensorType::get({}, t)}, ValueRange{x},
          ValueRange{filledTensor(b, loc, {}, t, 0.0)}, maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            nb.create<linalg::YieldOp>(
                l, nb.create<arith::AddFOp>(l, args[1], args[0]).getResult());
          })
      .getResult(0);
}

/// Params: ONNX's `reduction` and `ignore_index`, `output` (0: the loss,
/// 1: SCE's log_prob); args scores, targets[, weight] (output 1: scores).
llvm::Expected<Value> lossBody(OpBuilder &b, Location loc, ValueRange a,
                               Type result, const Params &p) {
  SYSTOLE_PARAM(output, p.i64("output"));
  LossSpec s;
  s.softmax = p.op() == "SoftmaxCrossEntropyLoss";
  std::string r = p.attrString("reduction", "mean");
  if (r == "none")
    s.reduction = Reduction::None;
  else if (r == "sum")
    s.reduction = Reduction::Sum;
  else if (r == "mean")
    s.reduction = Reduction::Mean;
  else
    return p.fail("reduction '" + r + "' is not none, sum or mean");
  if (p.has("ignore_index"))
    s.ignoreIndex = p.attrInt("ignore_index", 0);
  Type elem = cast<RankedTensorType>(result).getElementType();
  if (!isa<FloatType>(elementOf(a[0])))
    return p.fail("expects float scores");
  s.compute =
      elementOf(a[0]).isF64() ? Type(b.getF64Type()) : Type(b.getF32Type());
  if (output == 1) {
    if (!s.softmax || a.size() != 1)
      return p.fail("output 1 is SoftmaxCrossEntropyLoss's log_prob of the "
                    "scores");
    Value lp = logSoftmax(b, loc, castTensor(b, loc, a[0], s.compute));
    return castTensor(b, loc, lp, elem);
  }
  if (output != 0 || a.size() < 2 || a.size() > 3)
    return p.fail("output 0 takes scores, targets and an optional weight");
  s.hasWeight = a.size() == 3;
  Value src = castTensor(b, loc, a[0], s.compute);
  if (s.softmax)
    src = logSoftmax(b, loc, src);
  Value w = s.hasWeight ? a[2] : Value();
  Value l = perElement(b, loc, src, a[1], w, s, false);
  if (s.reduction == Reduction::None)
    return castTensor(b, loc, l, elem);
  Value total = sumAll(b, loc, l);
  if (s.reduction == Reduction::Mean) {
    Value count = sumAll(b, loc,
                         perElement(b, loc, src, a[1], w, s,
                                    /*weightOnly=*/true));
    // A rank-0 generic rather than scalar code, so that the GPU form keeps
    // the division inside a kernel.
    total = lw::elementwise(
        b, loc, {}, ValueRange{total, count},
        [](OpBuilder &nb, Location l, ValueRange v) -> Value {
          return nb.create<arith::DivFOp>(l, v[0], v[1]);
        },
        s.compute);
  }
  return castTensor(b, loc, total, elem);
}

} // namespace
} // namespace loss

void registerLossBodies(llvm::StringMap<HostBodyFn> &table) {
  table["NegativeLogLikelihoodLoss"] = loss::lossBody;
  table["SoftmaxCrossEntropyLoss"] = loss::lossBody;
}

} // namespace systole::conversion::onnx
