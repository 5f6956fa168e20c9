//===- Scan.cpp - Bodies of CumSum and TopK: loops over one axis ---------===//
//
// Both carry state along an axis, so each is an scf.for with tensor
// iter_args:
// - CumSum walks the axis (backwards with `reverse`), adding each slice
//   (tensor.extract_slice) to a running sum (linalg.add) and storing the sum
//   before (`exclusive`) or after the add with tensor.insert_slice: O(n).
// - TopK selects k times: step r takes, per row, the best element (a
//   linalg.generic reduction over the axis) among those that come after step
//   r-1's choice in ONNX's order -- value (largest or smallest first), then
//   lower index first on ties -- so the outputs are sorted and ties resolved
//   as ONNX requires: O(k n). Values and indices are two graph.host ops
//   (`output` 0 and 1) that run the same selection.
// The importer (Frontend/ImportScan.cpp) checks the axis and k.
//
//===----------------------------------------------------------------------===//
#include "HostBody.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion::onnx {

namespace scan {
namespace {

using lw::filledWith;
using lw::scalar;

/// Offsets/sizes/strides of the slice at position `pos` of `axis`.
struct AxisSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};
AxisSlice sliceAt(OpBuilder &b, ArrayRef<int64_t> shape, int64_t axis,
                  Value pos) {
  AxisSlice s;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    s.offsets.push_back(d == axis ? OpFoldResult(pos) : b.getIndexAttr(0));
    s.sizes.push_back(b.getIndexAttr(d == axis ? 1 : shape[d]));
    s.strides.push_back(b.getIndexAttr(1));
  }
  return s;
}

SmallVector<int64_t> withoutAxis(ArrayRef<int64_t> shape, int64_t axis) {
  SmallVector<int64_t> out(shape);
  out.erase(out.begin() + axis);
  return out;
}

//===----------------------------------------------------------------------===//
// CumSum
//===----------------------------------------------------------------------===//

Value buildCumSum(OpBuilder &b, Location loc, Value x, int64_t axis,
                  bool exclusive, bool reverse) {
  ArrayRef<int64_t> shape = shapeOf(x);
  Type elem = elementOf(x);
  SmallVector<int64_t> row = withoutAxis(shape, axis);
  auto rowType = RankedTensorType::get(row, elem);
  int64_t n = shape[axis];
  Value running = filledWith(b, loc, row, scalar(b, loc, elem, 0));
  Value out = b.create<tensor::EmptyOp>(loc, shape, elem);
  Value lb = b.create<arith::ConstantIndexOp>(loc, 0);
  Value ub = b.create<arith::ConstantIndexOp>(loc, n);
  Value step = b.create<arith::ConstantIndexOp>(loc, 1);
  auto loop = b.create<scf::ForOp>(
      loc, lb, ub, step, ValueRange{running, out},
      [&](OpBuilder &nb, Location l, Value i, ValueRange iter) {
        Value pos = i;
        if (reverse)
          pos = nb.create<arith::SubIOp>(
              l, nb.create<arith::ConstantIndexOp>(l, n - 1), i);
        AxisSlice s = sliceAt(nb, shape, axis, pos);
        Value slice = nb.create<tensor::ExtractSliceOp>(
            l, rowType, x, s.offsets, s.sizes, s.strides);
        // The running sum is updated in place (one-shot bufferization wants
        // each yielded tensor to be its iter_arg's buffer); exclusive stores
        // it before the add.
        Value stored = iter[1];
        auto store = [&](Value v) {
          stored = nb.create<tensor::InsertSliceOp>(l, v, stored, s.offsets,
                                                    s.sizes, s.strides);
        };
        if (exclusive)
          store(iter[0]);
        Value sum = nb.create<linalg::AddOp>(l, ValueRange{iter[0], slice},
                                             ValueRange{iter[0]})
                        .getResult(0);
        if (!exclusive)
          store(sum);
        nb.create<scf::YieldOp>(l, ValueRange{sum, stored});
      });
  return loop.getResult(1);
}

/// Params `axis` (in range), `exclusive`, `reverse`.
llvm::Expected<Value> cumSum(OpBuilder &b, Location loc, ValueRange a, Type,
                             const Params &p) {
  SYSTOLE_PARAM(axis, p.i64("axis"));
  SYSTOLE_PARAM(exclusive, p.flag("exclusive"));
  SYSTOLE_PARAM(reverse, p.flag("reverse"));
  if (axis < 0 || axis >= int64_t(shapeOf(a[0]).size()))
    return p.fail("axis out of range");
  return buildCumSum(b, loc, a[0], axis, exclusive, reverse);
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

/// ONNX's TopK order: whether (a, ia) comes before (c, ix) -- the larger
/// (`largest`) or smaller value first, the lower index first on equal
/// values. NaN counts as larger than every number and equal to itself, so
/// the order is total and every element is selected once.
Value before(OpBuilder &b, Location l, Value a, Value ia, Value c, Value ix,
             bool largest, bool uns) {
  Value hi = largest ? a : c, lo = largest ? c : a;
  Value gt, eq;
  if (isa<FloatType>(a.getType())) {
    using P = arith::CmpFPredicate;
    Value hiNaN = b.create<arith::CmpFOp>(l, P::UNO, hi, hi);
    Value loNaN = b.create<arith::CmpFOp>(l, P::UNO, lo, lo);
    Value loNumber =
        b.create<arith::XOrIOp>(l, loNaN, scalar(b, l, b.getI1Type(), 1));
    gt = b.create<arith::OrIOp>(l, b.create<arith::CmpFOp>(l, P::OGT, hi, lo),
                                b.create<arith::AndIOp>(l, hiNaN, loNumber));
    eq = b.create<arith::OrIOp>(l, b.create<arith::CmpFOp>(l, P::OEQ, hi, lo),
                                b.create<arith::AndIOp>(l, hiNaN, loNaN));
  } else {
    using P = arith::CmpIPredicate;
    gt = b.create<arith::CmpIOp>(l, uns ? P::ugt : P::sgt, hi, lo);
    eq = b.create<arith::CmpIOp>(l, P::eq, hi, lo);
  }
  Value lower = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, ia, ix);
  return b.create<arith::OrIOp>(l, gt, b.create<arith::AndIOp>(l, eq, lower));
}

/// The TopK values (`indices` false) or their int64 indices along `axis`.
Value buildTopK(OpBuilder &b, Location loc, Value x, int64_t axis, int64_t k,
                bool largest, bool uns, bool indices) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> shape = shapeOf(x);
  Type elem = elementOf(x), i64 = b.getI64Type();
  int64_t rank = shape.size();
  SmallVector<int64_t> row = withoutAxis(shape, axis);
  SmallVector<int64_t> outShape(shape);
  outShape[axis] = k;
  Value none = scalar(b, loc, i64, -1);
  Value vals = b.create<tensor::EmptyOp>(loc, outShape, elem);
  Value idxs = b.create<tensor::EmptyOp>(loc, outShape, i64);

  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap red = lw::reducedMap(rank, {axis}, ctx);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters[axis] = utils::IteratorType::reduction;

  Value lb = b.create<arith::ConstantIndexOp>(loc, 0);
  Value ub = b.create<arith::ConstantIndexOp>(loc, k);
  Value step = b.create<arith::ConstantIndexOp>(loc, 1);
  auto loop = b.create<scf::ForOp>(
      loc, lb, ub, step, ValueRange{vals, idxs},
      [&](OpBuilder &nb, Location l, Value r, ValueRange iter) {
        Value first =
            nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, r, lb);
        // The previous step's choice, read back from the outputs (step 0
        // reads slot 0, unused): yielding only insert_slices of the
        // iter_args keeps them in place through bufferization.
        Value prev = nb.create<arith::SelectOp>(
            l, first, lb, nb.create<arith::SubIOp>(l, r, step));
        AxisSlice p = sliceAt(nb, outShape, axis, prev);
        Value prevVal = nb.create<tensor::ExtractSliceOp>(
            l, RankedTensorType::get(row, elem), iter[0], p.offsets, p.sizes,
            p.strides);
        Value prevIdx = nb.create<tensor::ExtractSliceOp>(
            l, RankedTensorType::get(row, i64), iter[1], p.offsets, p.sizes,
            p.strides);
        // Per row, the first element in ONNX's order among those after the
        // previous step's choice (all of them at step 0).
        auto pick = nb.create<linalg::GenericOp>(
            l,
            TypeRange{RankedTensorType::get(row, elem),
                      RankedTensorType::get(row, i64)},
            ValueRange{x, prevVal, prevIdx},
            ValueRange{filledWith(nb, l, row, scalar(nb, l, elem, 0)),
                       filledWith(nb, l, row, none)},
            ArrayRef<AffineMap>{id, red, red, red, red}, iters,
            [&](OpBuilder &gb, Location gl, ValueRange a) {
              Value v = a[0], pv = a[1], pi = a[2], bv = a[3], bi = a[4];
              Value j = gb.create<arith::IndexCastOp>(
                  gl, i64, gb.create<linalg::IndexOp>(gl, axis));
              Value after = gb.create<arith::OrIOp>(
                  gl, first, before(gb, gl, pv, pi, v, j, largest, uns));
              Value empty = gb.create<arith::CmpIOp>(
                  gl, arith::CmpIPredicate::slt, bi, scalar(gb, gl, i64, 0));
              Value better = gb.create<arith::OrIOp>(
                  gl, empty, before(gb, gl, v, j, bv, bi, largest, uns));
              Value take = gb.create<arith::AndIOp>(gl, after, better);
              gb.create<linalg::YieldOp>(
                  gl, ValueRange{gb.create<arith::SelectOp>(gl, take, v, bv),
                                 gb.create<arith::SelectOp>(gl, take, j, bi)});
            });
        AxisSlice s = sliceAt(nb, outShape, axis, r);
        Value v = nb.create<tensor::InsertSliceOp>(
            l, pick.getResult(0), iter[0], s.offsets, s.sizes, s.strides);
        Value i = nb.create<tensor::InsertSliceOp>(
            l, pick.getResult(1), iter[1], s.offsets, s.sizes, s.strides);
        nb.create<scf::YieldOp>(l, ValueRange{v, i});
      });
  return loop.getResult(indices ? 1 : 0);
}

/// Params `axis`, `k` (in [1, the axis size]), `largest`, `unsigned` and
/// `output` (0: values, 1: indices).
llvm::Expected<Value> topK(OpBuilder &b, Location loc, ValueRange a, Type,
                           const Params &p) {
  SYSTOLE_PARAM(axis, p.i64("axis"));
  SYSTOLE_PARAM(k, p.i64("k"));
  SYSTOLE_PARAM(largest, p.flag("largest"));
  SYSTOLE_PARAM(uns, p.flag("unsigned"));
  SYSTOLE_PARAM(output, p.i64("output"));
  ArrayRef<int64_t> shape = shapeOf(a[0]);
  if (axis < 0 || axis >= int64_t(shape.size()))
    return p.fail("axis out of range");
  if (k < 1 || k > shape[axis])
    return p.fail("k must be in [1, the axis size]");
  if (output != 0 && output != 1)
    return p.fail("output must be 0 or 1");
  return buildTopK(b, loc, a[0], axis, k, largest, uns, output == 1);
}

} // namespace
} // namespace scan

void registerScanBodies(llvm::StringMap<HostBodyFn> &table) {
  table["CumSum"] = scan::cumSum;
  table["TopK"] = scan::topK;
}

} // namespace systole::conversion::onnx
