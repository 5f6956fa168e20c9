//===- Reduce.cpp - Bodies of Reduce*, ArgMax/ArgMin, the softmax family --===//
//
// Each is one or two linalg.generic reductions over the reduced axes (a
// reduced tensor read back at full rank is what broadcasts a row's max or
// sum), then an elementwise linalg.generic, for every element type ONNX
// allows. Numerics follow ONNX Runtime's CPU kernels: sums accumulate in
// the input type (float16 in float32), softmax is exp(x - max) * (1 / sum),
// log-softmax x - max - log(sum), log-sum-exp log(sum(exp(x - max))) + max.
// The importer (Frontend/ImportReduce.cpp) normalizes the axes into params.
//
//===----------------------------------------------------------------------===//
#include "HostBody.h"

#include "systole/Conversion/OrtMath.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion::onnx {

namespace reduce {
namespace {

using lw::addOf;
using lw::maxOf;
using lw::minOf;
using lw::mulOf;
using lw::scalar;

using CombineN =
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// The identity of max (`largest` false) or min (`largest` true): -inf/+inf
/// for floats, the integer type's bounds otherwise.
Value extreme(OpBuilder &b, Location loc, Type t, bool largest, bool uns) {
  if (auto f = dyn_cast<FloatType>(t))
    return b.create<arith::ConstantOp>(
        loc, b.getFloatAttr(f, largest ? INFINITY : -INFINITY));
  unsigned w = t.getIntOrFloatBitWidth();
  APInt v = uns ? (largest ? APInt::getMaxValue(w) : APInt::getMinValue(w))
                : (largest ? APInt::getSignedMaxValue(w)
                           : APInt::getSignedMinValue(w));
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, v));
}

/// Converts a scalar between element types (integers as `uns` says; float to
/// integer truncates toward zero, as ONNX's Cast and ORT's reductions do).
Value castScalar(OpBuilder &b, Location loc, Value v, Type to, bool uns) {
  Type from = v.getType();
  if (from == to)
    return v;
  bool ff = isa<FloatType>(from), tf = isa<FloatType>(to);
  if (ff && tf)
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? Value(b.create<arith::ExtFOp>(loc, to, v))
               : Value(b.create<arith::TruncFOp>(loc, to, v));
  if (!ff && tf)
    return uns ? Value(b.create<arith::UIToFPOp>(loc, to, v))
               : Value(b.create<arith::SIToFPOp>(loc, to, v));
  if (ff && !tf)
    return uns ? Value(b.create<arith::FPToUIOp>(loc, to, v))
               : Value(b.create<arith::FPToSIOp>(loc, to, v));
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return uns ? Value(b.create<arith::ExtUIOp>(loc, to, v))
               : Value(b.create<arith::ExtSIOp>(loc, to, v));
  return b.create<arith::TruncIOp>(loc, to, v);
}

/// Whether `x` should replace the running best `acc` of an arg-reduction:
/// strictly better keeps the first index, better-or-equal the last. A NaN
/// wins over every number and the first NaN stays (numpy's argmax).
Value beats(OpBuilder &b, Location l, Value x, Value acc, bool greater,
            bool orEqual, bool uns) {
  if (isa<FloatType>(x.getType())) {
    using P = arith::CmpFPredicate;
    P p = greater ? (orEqual ? P::UGE : P::UGT) : (orEqual ? P::ULE : P::ULT);
    Value accIsNumber = b.create<arith::CmpFOp>(l, P::OEQ, acc, acc);
    return b.create<arith::AndIOp>(l, accIsNumber,
                                   b.create<arith::CmpFOp>(l, p, x, acc));
  }
  using P = arith::CmpIPredicate;
  P p = greater ? (orEqual ? (uns ? P::uge : P::sge) : (uns ? P::ugt : P::sgt))
                : (orEqual ? (uns ? P::ule : P::sle) : (uns ? P::ult : P::slt));
  return b.create<arith::CmpIOp>(l, p, x, acc);
}

SmallVector<int64_t> dropAxes(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> out;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d)
    if (!llvm::is_contained(axes, d))
      out.push_back(shape[d]);
  return out;
}

/// One linalg.generic over the iteration space `shape`: each of `full` is
/// read at every point, each of `reduced` (the shape without `axes`) is
/// broadcast along `axes`, and the results are reduced tensors starting from
/// the scalars `inits`, the dims in `axes` being reductions. `body` receives
/// the scalars (full..., reduced..., accumulators...) and returns the new
/// accumulators. With no axes it is an elementwise map.
SmallVector<Value> reduceOver(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> shape, ValueRange full,
                              ValueRange reduced, ArrayRef<int64_t> axes,
                              ValueRange inits, CombineN body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = shape.size();
  SmallVector<int64_t> outShape = dropAxes(shape, axes);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap red = lw::reducedMap(rank, axes, ctx);
  SmallVector<AffineMap> maps(full.size(), id);
  maps.append(reduced.size(), red);
  SmallVector<Value> ins(full), outs;
  ins.append(reduced.begin(), reduced.end());
  SmallVector<Type> types;
  for (Value init : inits) {
    Value e = b.create<tensor::EmptyOp>(loc, outShape, init.getType());
    outs.push_back(
        b.create<linalg::FillOp>(loc, ValueRange{init}, ValueRange{e})
            .getResult(0));
    types.push_back(e.getType());
    maps.push_back(red);
  }
  SmallVector<utils::IteratorType> iters;
  for (int64_t d = 0; d < rank; ++d)
    iters.push_back(llvm::is_contained(axes, d)
                        ? utils::IteratorType::reduction
                        : utils::IteratorType::parallel);
  auto op = b.create<linalg::GenericOp>(
      loc, types, ins, outs, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        nb.create<linalg::YieldOp>(l, body(nb, l, args));
      });
  return SmallVector<Value>(op.getResults());
}

/// The maxima of `x` over `axes` and the sums of exp(x - max), in the float
/// type `acc` (`in` converts an element to it): the first two passes of
/// softmax and log-sum-exp, in ORT's order.
std::pair<Value, Value>
maxAndExpSum(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
             Type acc,
             llvm::function_ref<Value(OpBuilder &, Location, Value)> in) {
  ArrayRef<int64_t> shape = shapeOf(x);
  Value max = reduceOver(
      b, loc, shape, ValueRange{x}, {}, axes,
      ValueRange{extreme(b, loc, acc, false, false)},
      [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
        return {nb.create<arith::MaximumFOp>(l, a[1], in(nb, l, a[0]))};
      })[0];
  Value sum = reduceOver(
      b, loc, shape, ValueRange{x}, ValueRange{max}, axes,
      ValueRange{scalar(b, loc, acc, 0)},
      [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
        Value d = nb.create<arith::SubFOp>(l, in(nb, l, a[0]), a[1]);
        return {
            nb.create<arith::AddFOp>(l, a[2], nb.create<math::ExpOp>(l, d))};
      })[0];
  return {max, sum};
}

/// out[i] = body(full[i]..., reduced[i without axes]...) over `shape`.
Value mapOver(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
              ValueRange full, ValueRange reduced, ArrayRef<int64_t> axes,
              Type elem, lw::BodyFn body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = shape.size();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<AffineMap> maps(full.size(), id);
  maps.append(reduced.size(), lw::reducedMap(rank, axes, ctx));
  maps.push_back(id);
  SmallVector<Value> ins(full);
  ins.append(reduced.begin(), reduced.end());
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  Value init = b.create<tensor::EmptyOp>(loc, shape, elem);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ins, ValueRange{init}, maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            nb.create<linalg::YieldOp>(l, body(nb, l, args.drop_back()));
          })
      .getResult(0);
}

/// The row-major position of the current point within the block of `axes`
/// (inside a linalg.generic body), as i64.
Value blockIndex(OpBuilder &b, Location l, ArrayRef<int64_t> shape,
                 ArrayRef<int64_t> axes) {
  Value lin = b.create<arith::ConstantIndexOp>(l, 0);
  for (int64_t d : axes) {
    Value size = b.create<arith::ConstantIndexOp>(l, shape[d]);
    lin = b.create<arith::AddIOp>(l, b.create<arith::MulIOp>(l, lin, size),
                                  b.create<linalg::IndexOp>(l, d));
  }
  return b.create<arith::IndexCastOp>(l, b.getI64Type(), lin);
}

/// The first (or last) position of the maximum (or minimum) of `x` within
/// each block of `axes`, as a reduced i64 tensor; -1 starts it so that the
/// first element always counts.
Value argReduce(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
                bool greater, bool last, bool uns) {
  ArrayRef<int64_t> shape = shapeOf(x);
  Type elem = elementOf(x);
  Value i64 = scalar(b, loc, b.getI64Type(), -1);
  auto r = reduceOver(
      b, loc, shape, ValueRange{x}, {}, axes,
      ValueRange{scalar(b, loc, elem, 0), i64},
      [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
        Value i = blockIndex(nb, l, shape, axes);
        Value none =
            nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, a[2],
                                     scalar(nb, l, a[2].getType(), 0));
        Value take = nb.create<arith::OrIOp>(
            l, none, beats(nb, l, a[0], a[1], greater, last, uns));
        return {nb.create<arith::SelectOp>(l, take, a[0], a[1]),
                nb.create<arith::SelectOp>(l, take, i, a[2])};
      });
  return r[1];
}

/// The Reduce* body: `op` names the ONNX operator; `x` is reduced over
/// `axes` (none: each element alone, noop_with_empty_axes) into `outShape`.
Value buildReduce(OpBuilder &b, Location loc, StringRef op, Value x,
                  ArrayRef<int64_t> axes, bool uns,
                  ArrayRef<int64_t> outShape) {
  Type elem = elementOf(x);
  ArrayRef<int64_t> shape = shapeOf(x);
  bool logLike =
      op == "ReduceL2" || op == "ReduceLogSum" || op == "ReduceLogSumExp";
  // ORT accumulates in the input type; float16 loses too much, and the
  // square root / logarithm of an integer sum is computed in float64 and
  // truncated back as ONNX's reference casts it.
  Type acc = elem;
  if (elem.isF16() || elem.isBF16())
    acc = b.getF32Type();
  else if (isa<IntegerType>(elem) && logLike)
    acc = b.getF64Type();
  auto in = [&](OpBuilder &nb, Location l, Value v) {
    return castScalar(nb, l, v, acc, uns);
  };
  int64_t count = 1;
  for (int64_t a : axes)
    count *= shape[a];
  // float32 ReduceSum/ReduceMean over trailing axes: each row summed in
  // Eigen's order, as ORT does (OrtMath.h).
  if (elem.isF32() && (op == "ReduceSum" || op == "ReduceMean"))
    if (Value r = ortTrailingSum(b, loc, x, axes, op == "ReduceMean", outShape))
      return r;

  Value r;
  if (op == "ReduceMax" || op == "ReduceMin") {
    bool isMax = op == "ReduceMax";
    r = reduceOver(
        b, loc, shape, ValueRange{x}, {}, axes,
        ValueRange{extreme(b, loc, acc, !isMax, uns)},
        [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
          Value v = in(nb, l, a[0]);
          return {isMax ? maxOf(nb, l, a[1], v, uns)
                        : minOf(nb, l, a[1], v, uns)};
        })[0];
  } else if (op == "ReduceLogSumExp") {
    auto [max, sum] = maxAndExpSum(b, loc, x, axes, acc, in);
    // An all -inf row: max is -inf and the sum NaN; ORT's kernel returns
    // -inf there (log(0) + max), and so does this.
    r = lw::elementwise(
        b, loc, shapeOf(sum), ValueRange{sum, max},
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value inf =
              nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OEQ, a[1],
                                       extreme(nb, l, acc, false, uns));
          Value v = nb.create<arith::AddFOp>(l, nb.create<math::LogOp>(l, a[0]),
                                             a[1]);
          return nb.create<arith::SelectOp>(l, inf, a[1], v);
        },
        acc);
  } else {
    bool isProd = op == "ReduceProd";
    r = reduceOver(
        b, loc, shape, ValueRange{x}, {}, axes,
        ValueRange{scalar(b, loc, acc, isProd ? 1 : 0)},
        [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
          Value v = in(nb, l, a[0]);
          if (op == "ReduceL1") {
            if (isa<FloatType>(acc))
              v = nb.create<math::AbsFOp>(l, v);
            else if (!uns)
              v = nb.create<math::AbsIOp>(l, v);
          } else if (op == "ReduceL2" || op == "ReduceSumSquare") {
            v = mulOf(nb, l, v, v);
          }
          return {isProd ? mulOf(nb, l, a[1], v) : addOf(nb, l, a[1], v)};
        })[0];
    if (op == "ReduceMean" || op == "ReduceL2" || op == "ReduceLogSum")
      r = lw::elementwise(
          b, loc, shapeOf(r), ValueRange{r},
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            if (op == "ReduceL2")
              return nb.create<math::SqrtOp>(l, a[0]);
            if (op == "ReduceLogSum")
              return nb.create<math::LogOp>(l, a[0]);
            Value n = scalar(nb, l, acc, double(count));
            if (isa<FloatType>(acc))
              return nb.create<arith::DivFOp>(l, a[0], n);
            if (uns)
              return nb.create<arith::DivUIOp>(l, a[0], n);
            return nb.create<arith::DivSIOp>(l, a[0], n);
          },
          acc);
  }
  if (acc != elem)
    r = lw::elementwise(
        b, loc, shapeOf(r), ValueRange{r},
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          return castScalar(nb, l, a[0], elem, uns);
        },
        elem);
  return lw::reshapeTo(b, loc, r, outShape);
}

Value buildSoftmax(OpBuilder &b, Location loc, StringRef op, Value x,
                   ArrayRef<int64_t> axes) {
  Type elem = elementOf(x);
  ArrayRef<int64_t> shape = shapeOf(x);
  if (op == "Hardmax") {
    Value idx = argReduce(b, loc, x, axes, /*greater=*/true, /*last=*/false,
                          /*uns=*/false);
    return mapOver(
        b, loc, shape, {}, ValueRange{idx}, axes, elem,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value hit =
              nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq,
                                       blockIndex(nb, l, shape, axes), a[0]);
          return nb.create<arith::SelectOp>(l, hit, scalar(nb, l, elem, 1),
                                            scalar(nb, l, elem, 0));
        });
  }
  // float32 Softmax is MLAS's (ORT's kernel for it, bit for bit).
  if (op == "Softmax" && elem.isF32())
    return mlasSoftmax(b, loc, x, axes);
  Type acc = elem.isF16() || elem.isBF16() ? b.getF32Type() : elem;
  auto in = [&](OpBuilder &nb, Location l, Value v) {
    return castScalar(nb, l, v, acc, false);
  };
  auto [max, sum] = maxAndExpSum(b, loc, x, axes, acc, in);
  bool log = op == "LogSoftmax";
  return mapOver(
      b, loc, shape, ValueRange{x}, ValueRange{max, sum}, axes, elem,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value d = nb.create<arith::SubFOp>(l, in(nb, l, a[0]), a[1]);
        Value y;
        if (log) {
          y = nb.create<arith::SubFOp>(l, d, nb.create<math::LogOp>(l, a[2]));
        } else {
          Value inv =
              nb.create<arith::DivFOp>(l, scalar(nb, l, acc, 1.0), a[2]);
          y = nb.create<arith::MulFOp>(l, nb.create<math::ExpOp>(l, d), inv);
        }
        return castScalar(nb, l, y, elem, false);
      });
}

/// Reduce*: params `axes` (sorted, in range; empty: noop_with_empty_axes)
/// and `unsigned`; the result type has the kept or dropped dims.
llvm::Expected<Value> reduceBody(OpBuilder &b, Location loc, ValueRange a,
                                 Type result, const Params &p) {
  SYSTOLE_PARAM(axes, p.i64s("axes"));
  SYSTOLE_PARAM(uns, p.flag("unsigned"));
  int64_t rank = shapeOf(a[0]).size();
  if (llvm::any_of(axes, [&](int64_t d) { return d < 0 || d >= rank; }))
    return p.fail("axis out of range");
  return buildReduce(b, loc, p.op(), a[0], axes, uns,
                     cast<RankedTensorType>(result).getShape());
}

/// ArgMax/ArgMin: params `axis` (in range), `select_last_index`,
/// `unsigned`.
llvm::Expected<Value> argReduceBody(OpBuilder &b, Location loc, ValueRange a,
                                    Type result, const Params &p) {
  SYSTOLE_PARAM(axis, p.i64("axis"));
  SYSTOLE_PARAM(last, p.flag("select_last_index"));
  SYSTOLE_PARAM(uns, p.flag("unsigned"));
  if (axis < 0 || axis >= int64_t(shapeOf(a[0]).size()))
    return p.fail("axis out of range");
  Value idx = argReduce(b, loc, a[0], {axis}, p.op() == "ArgMax", last, uns);
  return lw::reshapeTo(b, loc, idx, cast<RankedTensorType>(result).getShape());
}

/// Softmax/LogSoftmax/Hardmax: params `axes` (one axis from opset 13; the
/// dims [axis, rank) before, ONNX's coercion to 2-D).
llvm::Expected<Value> softmaxBody(OpBuilder &b, Location loc, ValueRange a,
                                  Type, const Params &p) {
  SYSTOLE_PARAM(axes, p.i64s("axes"));
  int64_t rank = shapeOf(a[0]).size();
  if (axes.empty() ||
      llvm::any_of(axes, [&](int64_t d) { return d < 0 || d >= rank; }))
    return p.fail("axes out of range");
  if (!isa<FloatType>(elementOf(a[0])))
    return p.fail("expects a float tensor");
  return buildSoftmax(b, loc, p.op(), a[0], axes);
}

/// com.microsoft QLinearSoftmax on the codes, as ORT's CPU kernel computes
/// it (contrib_ops/cpu/quantization/qlinear_softmax.cc): per row, the
/// table entry of each code shifted by the row's maximum code, their float
/// sum in row order, then nearbyintf(entry * floor(1 / y_scale) / sum) +
/// zero point; the int8 kernel stores a result above 127 modulo 256 (255
/// and above as -1), the uint8 one clamps at 255.
llvm::Expected<Value> qlinearSoftmaxBody(OpBuilder &b, Location loc,
                                         ValueRange a, Type result,
                                         const Params &p) {
  SYSTOLE_PARAM(axes, p.i64s("axes"));
  SYSTOLE_PARAM(xScale, p.f64("x_scale"));
  SYSTOLE_PARAM(yScale, p.f64("y_scale"));
  SYSTOLE_PARAM(yZp, p.i64("y_zero_point"));
  SYSTOLE_PARAM(isSigned, p.flag("signed"));
  Value x = a[0];
  ArrayRef<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  if (!elementOf(x).isInteger(8) ||
      getElementTypeOrSelf(result) != elementOf(x))
    return p.fail("expects int8/uint8 codes");
  if (axes.empty() ||
      llvm::any_of(axes, [&](int64_t d) { return d < 0 || d >= rank; }))
    return p.fail("axes out of range");
  int64_t reduceLen = 1;
  for (int64_t d : axes)
    reduceLen *= shape[d];
  std::vector<float> table =
      qlinearSoftmaxTable(float(xScale), reduceLen, isSigned);
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value tableConst = b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(RankedTensorType::get({256}, f32),
                                  llvm::ArrayRef<float>(table)));
  auto widen = [&](OpBuilder &nb, Location l, Value v) -> Value {
    return isSigned ? nb.create<arith::ExtSIOp>(l, i32, v).getResult()
                    : nb.create<arith::ExtUIOp>(l, i32, v).getResult();
  };
  // Codes as exact floats for the row maximum (lw::reduce is float).
  Value xf =
      mapOver(b, loc, shape, ValueRange{x}, {}, axes, f32,
              [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                return nb.create<arith::SIToFPOp>(l, f32, widen(nb, l, v[0]));
              });
  Value max = lw::reduce(b, loc, xf, axes, -1e9,
                         [](OpBuilder &nb, Location l, Value acc, Value v) {
                           return nb.create<arith::MaximumFOp>(l, acc, v);
                         });
  // The entry a code reads: int8 at byte (127 - max + x), uint8 at
  // 255 - max + x.
  auto entry = [&](OpBuilder &nb, Location l, Value code, Value rowMax) {
    Value k = nb.create<arith::SubIOp>(
        l, widen(nb, l, code), nb.create<arith::FPToSIOp>(l, i32, rowMax));
    k = nb.create<arith::AddIOp>(l, k,
                                 lw::scalar(nb, l, i32, isSigned ? 127 : 255));
    k = nb.create<arith::AndIOp>(l, k, lw::scalar(nb, l, i32, 255));
    Value idx = nb.create<arith::IndexCastOp>(l, nb.getIndexType(), k);
    return nb.create<tensor::ExtractOp>(l, tableConst, ValueRange{idx})
        .getResult();
  };
  Value vt = mapOver(b, loc, shape, ValueRange{x}, ValueRange{max}, axes, f32,
                     [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                       return entry(nb, l, v[0], v[1]);
                     });
  Value sum = lw::reduce(b, loc, vt, axes, 0.0,
                         [](OpBuilder &nb, Location l, Value acc, Value v) {
                           return nb.create<arith::AddFOp>(l, acc, v);
                         });
  float c = std::floor(1.0f / float(yScale));
  Type i8 = elementOf(x);
  return mapOver(
      b, loc, shape, ValueRange{vt}, ValueRange{sum}, axes, i8,
      [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        Value q = nb.create<arith::DivFOp>(
            l, nb.create<arith::MulFOp>(l, v[0], lw::scalar(nb, l, f32, c)),
            v[1]);
        q = nb.create<math::RoundEvenOp>(l, q);
        // entry * floor(1 / y_scale) overflows to inf for small output
        // scales (docs/models.md, "ORT findings"). The kernel's
        // float -> int32 (int8) or -> uint32 (uint8, through a 64-bit
        // convert) then gives what x86's cvttss2si gives out of range or for
        // NaN: INT_MIN, and for uint8 the low 32 bits of INT64_MIN, 0.
        // Said explicitly here (fptosi would be poison there), with the
        // zero point added modulo 2^32.
        Type i64 = nb.getI64Type();
        double limit = isSigned ? 2147483648.0 : 9223372036854775808.0;
        Value inRange = nb.create<arith::AndIOp>(
            l,
            nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLT, q,
                                     lw::scalar(nb, l, f32, limit)),
            nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGE, q,
                                     lw::scalar(nb, l, f32, -limit)));
        Value safe = nb.create<arith::SelectOp>(l, inRange, q,
                                                lw::scalar(nb, l, f32, 0));
        Value conv;
        if (isSigned) {
          conv = nb.create<arith::SelectOp>(
              l, inRange, nb.create<arith::FPToSIOp>(l, i32, safe),
              lw::scalar(nb, l, i32, double(INT32_MIN)));
        } else {
          Value wide = nb.create<arith::SelectOp>(
              l, inRange, nb.create<arith::FPToSIOp>(l, i64, safe),
              lw::scalar(nb, l, i64, 0));
          conv = nb.create<arith::TruncIOp>(l, i32, wide);
        }
        Value vq = nb.create<arith::AddIOp>(
            l, conv, lw::scalar(nb, l, i32, double(yZp)));
        // vq > 255 (unsigned for uint8): 255's byte; else vq's low byte.
        Value over = nb.create<arith::CmpIOp>(
            l, isSigned ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt,
            vq, lw::scalar(nb, l, i32, 255));
        Value low = nb.create<arith::TruncIOp>(l, i8, vq);
        return nb.create<arith::SelectOp>(l, over, lw::scalar(nb, l, i8, -1),
                                          low);
      });
}

} // namespace
} // namespace reduce

void registerReduceBodies(llvm::StringMap<HostBodyFn> &table) {
  for (const char *op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                         "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                         "ReduceLogSumExp", "ReduceSumSquare"})
    table[op] = reduce::reduceBody;
  table["ArgMax"] = reduce::argReduceBody;
  table["ArgMin"] = reduce::argReduceBody;
  for (const char *op : {"Softmax", "LogSoftmax", "Hardmax"})
    table[op] = reduce::softmaxBody;
  table["QLinearSoftmax"] = reduce::qlinearSoftmaxBody;
}

} // namespace systole::conversion::onnx
