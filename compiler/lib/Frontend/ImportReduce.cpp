//===- ImportReduce.cpp - Reductions, arg-reductions, softmax family -----===//
//
// ONNX's Reduce* operators, ArgMax/ArgMin and Softmax/LogSoftmax/Hardmax as
// graph.host ops, for every element type ONNX allows: each is one or two
// linalg.generic reductions over the reduced axes (a reduced tensor read back
// at full rank is what broadcasts a row's max or sum), then an elementwise
// linalg.generic. Numerics follow ONNX Runtime's CPU kernels: sums
// accumulate in the input type (float16 in float32), softmax is
// exp(x - max) * (1 / sum), log-softmax x - max - log(sum), log-sum-exp
// log(sum(exp(x - max))) + max.
//
// The float32 forms the rest of the compiler knows (graph.reduce for
// ReduceMean/Sum/Max, graph.softmax) keep their importers (ImportFloat.cpp)
// for the cases they express; this file registers over them and delegates.
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

#include <cmath>

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::frontend {

namespace {

/// Translators registered before this family (ImportFloat.cpp's float32
/// graph.reduce / graph.softmax), by op type.
llvm::StringMap<OpImporter> &previous() {
  static llvm::StringMap<OpImporter> p;
  return p;
}

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

Value maxOf(OpBuilder &b, Location l, Value x, Value y, bool uns) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::MaximumFOp>(l, x, y);
  if (uns)
    return b.create<arith::MaxUIOp>(l, x, y);
  return b.create<arith::MaxSIOp>(l, x, y);
}
Value minOf(OpBuilder &b, Location l, Value x, Value y, bool uns) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::MinimumFOp>(l, x, y);
  if (uns)
    return b.create<arith::MinUIOp>(l, x, y);
  return b.create<arith::MinSIOp>(l, x, y);
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

/// Sorted, deduplicated, in-range axes (negative ones count from the end).
llvm::Expected<std::vector<int64_t>>
normalizeAxes(ImportContext &ic, std::vector<int64_t> axes, int64_t rank) {
  for (int64_t &a : axes) {
    if (a < -rank || a >= rank)
      return ic.fail("axis " + llvm::Twine(a) + " is out of range for rank " +
                     llvm::Twine(rank));
    if (a < 0)
      a += rank;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

/// `shape` with `axes` removed, or set to 1 with `keep`.
SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> axes, bool keep) {
  SmallVector<int64_t> out;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    if (!llvm::is_contained(axes, d))
      out.push_back(shape[d]);
    else if (keep)
      out.push_back(1);
  }
  return out;
}

llvm::Expected<Value> dataInput(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  if (graph::isQuantized(elementOf(*x)))
    return ic.fail("expects unquantized tensors (int8 activations come as "
                   "QDQ)");
  return *x;
}

//===----------------------------------------------------------------------===//
// Reduce*
//===----------------------------------------------------------------------===//

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
    Value max = reduceOver(
        b, loc, shape, ValueRange{x}, {}, axes,
        ValueRange{extreme(b, loc, acc, false, uns)},
        [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
          return {maxOf(nb, l, a[1], in(nb, l, a[0]), uns)};
        })[0];
    Value sum = reduceOver(
        b, loc, shape, ValueRange{x}, ValueRange{max}, axes,
        ValueRange{scalar(b, loc, acc, 0)},
        [&](OpBuilder &nb, Location l, ValueRange a) -> SmallVector<Value> {
          Value d = nb.create<arith::SubFOp>(l, in(nb, l, a[0]), a[1]);
          return {addOf(nb, l, a[2], nb.create<math::ExpOp>(l, d))};
        })[0];
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

llvm::Error importReduce(ImportContext &ic) {
  StringRef op = ic.node->op_type();
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  Type elem = elementOf(*x);
  OpImporter f32Form = previous().lookup(op);
  if (graph::isQuantized(elem)) {
    if (f32Form)
      return f32Form(ic); // says why it cannot
    return ic.fail("expects unquantized tensors (int8 activations come as "
                   "QDQ)");
  }
  // Axes: an attribute before opset 13 (ReduceSum) / 18 (the others), an
  // optional input after; none (or an empty input) means all, unless
  // noop_with_empty_axes makes it the identity reduction.
  std::vector<int64_t> axes;
  if (auto a = ic.attrInts("axes")) {
    axes = *a;
  } else if (ic.hasInput(1)) {
    auto c = ic.constantInts(1);
    if (!c)
      return c.takeError();
    axes = *c;
  }
  int64_t rank = shapeOf(*x).size();
  bool noop = axes.empty() && ic.attrInt("noop_with_empty_axes", 0) != 0;
  if (axes.empty() && !noop)
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  auto norm = normalizeAxes(ic, axes, rank);
  if (!norm)
    return norm.takeError();
  axes = *norm;
  if (f32Form && elem.isF32() && !noop)
    return f32Form(ic);

  bool isBool = elem.isInteger(1);
  if (isBool && op != "ReduceMax" && op != "ReduceMin")
    return ic.fail("bool tensors are only reduced by ReduceMax/ReduceMin");
  bool uns = isBool || ic.isUnsignedInput(0);
  bool keep = ic.attrInt("keepdims", 1) != 0;
  SmallVector<int64_t> outShape = reducedShape(shapeOf(*x), axes, keep);
  auto y =
      ic.hostOp(*x,
                [&](OpBuilder &b, Location loc,
                    ValueRange args) -> llvm::Expected<Value> {
                  return buildReduce(b, loc, op, args[0], axes, uns, outShape);
                });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

//===----------------------------------------------------------------------===//
// ArgMax / ArgMin
//===----------------------------------------------------------------------===//

llvm::Error importArgReduce(ImportContext &ic) {
  auto x = dataInput(ic);
  if (!x)
    return x.takeError();
  int64_t rank = shapeOf(*x).size();
  auto axes = normalizeAxes(ic, {ic.attrInt("axis", 0)}, rank);
  if (!axes)
    return axes.takeError();
  bool greater = ic.node->op_type() == "ArgMax";
  bool last = ic.attrInt("select_last_index", 0) != 0;
  bool uns = elementOf(*x).isInteger(1) || ic.isUnsignedInput(0);
  SmallVector<int64_t> outShape =
      reducedShape(shapeOf(*x), *axes, ic.attrInt("keepdims", 1) != 0);
  auto y = ic.hostOp(*x,
                     [&](OpBuilder &b, Location loc,
                         ValueRange args) -> llvm::Expected<Value> {
                       Value idx = argReduce(b, loc, args[0], *axes, greater,
                                             last, uns);
                       return lw::reshapeTo(b, loc, idx, outShape);
                     });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

//===----------------------------------------------------------------------===//
// Softmax / LogSoftmax / Hardmax
//===----------------------------------------------------------------------===//

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
  Type acc = elem.isF16() || elem.isBF16() ? b.getF32Type() : elem;
  auto in = [&](OpBuilder &nb, Location l, Value v) {
    return castScalar(nb, l, v, acc, false);
  };
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

llvm::Error importSoftmaxFamily(ImportContext &ic) {
  StringRef op = ic.node->op_type();
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  Type elem = elementOf(*x);
  OpImporter f32Form = previous().lookup(op);
  if (graph::isQuantized(elem) && f32Form)
    return f32Form(ic); // says why it cannot
  if (!isa<FloatType>(elem))
    return ic.fail("expects float tensors (int8 activations come as QDQ)");
  int64_t rank = shapeOf(*x).size();
  // Opset 13 normalizes along one axis (default -1); before, the input is
  // coerced to 2-D at `axis` (default 1) and dims [axis, rank) are one row.
  bool perAxis = opsetVersion(ic.model, "") >= 13;
  int64_t axis = ic.attrInt("axis", perAxis ? -1 : 1);
  auto norm = normalizeAxes(ic, {axis}, rank);
  if (!norm)
    return norm.takeError();
  axis = (*norm)[0];
  std::vector<int64_t> axes = {axis};
  if (!perAxis)
    for (int64_t d = axis + 1; d < rank; ++d)
      axes.push_back(d);
  // graph.softmax normalizes along one axis, read with default -1.
  auto f32Axis = normalizeAxes(ic, {ic.attrInt("axis", -1)}, rank);
  if (!f32Axis)
    return f32Axis.takeError();
  if (f32Form && elem.isF32() && axes.size() == 1 && (*f32Axis)[0] == axis)
    return f32Form(ic);
  auto y = ic.hostOp(*x,
                     [&](OpBuilder &b, Location loc,
                         ValueRange args) -> llvm::Expected<Value> {
                       return buildSoftmax(b, loc, op, args[0], axes);
                     });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

} // namespace

void registerReduceImporters(llvm::StringMap<OpImporter> &table) {
  for (const char *op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                         "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                         "ReduceLogSumExp", "ReduceSumSquare"}) {
    if (OpImporter f = table.lookup(op))
      previous()[op] = f;
    table[op] = importReduce;
  }
  for (const char *op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    if (OpImporter f = table.lookup(op))
      previous()[op] = f;
    table[op] = importSoftmaxFamily;
  }
  table["ArgMax"] = importArgReduce;
  table["ArgMin"] = importArgReduce;
}

} // namespace systole::frontend
