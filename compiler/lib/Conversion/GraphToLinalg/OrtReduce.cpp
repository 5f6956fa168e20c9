//===- OrtReduce.cpp - Row sums in the order of ORT's Eigen reduction -----===//
//
// ORT reduces a float tensor over its trailing axes row by row with
// Eigen's `sum()` (reduction_ops.cc, FastReduceKR), and Eigen, compiled for
// SSE in ORT's build, sums a row with 4-float packets from its first
// 16-byte aligned element (redux_impl, LinearVectorizedTraversal). Rows of
// a length that is not a multiple of 4 start at different offsets from an
// aligned boundary, so the order changes from row to row. Matched against
// ORT on rows of 3..1000 (e2e.host.ort-reduce).
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/OrtMath.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>

using namespace mlir;

namespace systole::conversion {

Value eigenRowSums(OpBuilder &b, Location loc, Value rows) {
  namespace lw = lowering;
  ArrayRef<int64_t> shape = lw::shapeOf(rows);
  int64_t numRows = shape[0], n = shape[1];
  constexpr int64_t kPacket = 4;
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  auto body = [&](OpBuilder &nb, Location l, ValueRange) {
    Value r = nb.create<linalg::IndexOp>(l, 0);
    auto c = [&](OpBuilder &ob, int64_t v) -> Value {
      return ob.create<arith::ConstantIndexOp>(l, v);
    };
    auto at = [&](OpBuilder &ob, Value j) -> Value {
      return ob.create<tensor::ExtractOp>(l, rows, ValueRange{r, j});
    };
    auto add = [&](OpBuilder &ob, Value x, Value y) -> Value {
      return ob.create<arith::AddFOp>(l, x, y);
    };
    // acc + x[j] for j in [lo, hi), in order.
    auto inOrder = [&](OpBuilder &ob, Value acc, Value lo, Value hi) {
      auto loop = ob.create<scf::ForOp>(
          l, lo, hi, c(ob, 1), ValueRange{acc},
          [&](OpBuilder &lb, Location, Value j, ValueRange iter) {
            lb.create<scf::YieldOp>(l, add(lb, iter[0], at(lb, j)));
          });
      return loop.getResult(0);
    };
    // The aligned start: elements to the next multiple of 4 of r * n.
    Value off = nb.create<arith::RemUIOp>(
        l, nb.create<arith::MulIOp>(l, r, c(nb, n)), c(nb, kPacket));
    Value start = nb.create<arith::RemUIOp>(
        l, nb.create<arith::SubIOp>(l, c(nb, kPacket), off), c(nb, kPacket));
    start = nb.create<arith::MinUIOp>(l, start, c(nb, n));
    Value size = nb.create<arith::SubIOp>(l, c(nb, n), start);
    auto roundDown = [&](Value v, int64_t m) -> Value {
      return nb.create<arith::MulIOp>(
          l, nb.create<arith::DivUIOp>(l, v, c(nb, m)), c(nb, m));
    };
    Value end1 = nb.create<arith::AddIOp>(l, start, roundDown(size, kPacket));
    Value end2 =
        nb.create<arith::AddIOp>(l, start, roundDown(size, 2 * kPacket));
    Value packets =
        nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::ugt, end1, start);
    auto ifOp = nb.create<scf::IfOp>(
        l, packets,
        [&](OpBuilder &tb, Location) {
          auto lanes = [&](OpBuilder &ob, Value base) {
            SmallVector<Value> v;
            for (int64_t k = 0; k < kPacket; ++k)
              v.push_back(at(ob, ob.create<arith::AddIOp>(l, base, c(ob, k))));
            return v;
          };
          SmallVector<Value> p0 = lanes(tb, start);
          // Two or more packets: a second accumulator, pairs of packets.
          Value second = tb.create<arith::CmpIOp>(
              l, arith::CmpIPredicate::ugt, end1,
              tb.create<arith::AddIOp>(l, start, c(tb, kPacket)));
          auto more = tb.create<scf::IfOp>(
              l, second,
              [&](OpBuilder &mb, Location) {
                SmallVector<Value> init(p0);
                llvm::append_range(
                    init, lanes(mb, mb.create<arith::AddIOp>(l, start,
                                                             c(mb, kPacket))));
                auto loop = mb.create<scf::ForOp>(
                    l, mb.create<arith::AddIOp>(l, start, c(mb, 2 * kPacket)),
                    end2, c(mb, 2 * kPacket), init,
                    [&](OpBuilder &lb, Location, Value i, ValueRange acc) {
                      SmallVector<Value> a = lanes(lb, i);
                      llvm::append_range(a,
                                         lanes(lb, lb.create<arith::AddIOp>(
                                                       l, i, c(lb, kPacket))));
                      SmallVector<Value> next;
                      for (int64_t k = 0; k < 2 * kPacket; ++k)
                        next.push_back(add(lb, acc[k], a[k]));
                      lb.create<scf::YieldOp>(l, next);
                    });
                SmallVector<Value> sum;
                for (int64_t k = 0; k < kPacket; ++k)
                  sum.push_back(
                      add(mb, loop.getResult(k), loop.getResult(kPacket + k)));
                // The packet after the pairs, if any.
                Value odd = mb.create<arith::CmpIOp>(
                    l, arith::CmpIPredicate::ugt, end1, end2);
                auto last = mb.create<scf::IfOp>(
                    l, odd,
                    [&](OpBuilder &ob, Location) {
                      SmallVector<Value> a = lanes(ob, end2), out;
                      for (int64_t k = 0; k < kPacket; ++k)
                        out.push_back(add(ob, sum[k], a[k]));
                      ob.create<scf::YieldOp>(l, out);
                    },
                    [&](OpBuilder &ob, Location) {
                      ob.create<scf::YieldOp>(l, sum);
                    });
                mb.create<scf::YieldOp>(l, last.getResults());
              },
              [&](OpBuilder &mb, Location) { mb.create<scf::YieldOp>(l, p0); });
          ValueRange p = more.getResults();
          // predux: (p0 + p2) + (p1 + p3).
          Value lo = add(tb, p[0], p[2]);
          Value hi = add(tb, p[1], p[3]);
          Value res = add(tb, lo, hi);
          res = inOrder(tb, res, c(tb, 0), start);
          res = inOrder(tb, res, end1, c(tb, n));
          tb.create<scf::YieldOp>(l, res);
        },
        [&](OpBuilder &eb, Location) {
          // No full packet: x[0] + x[1] + ... in order.
          eb.create<scf::YieldOp>(
              l, inOrder(eb, at(eb, c(eb, 0)), c(eb, 1), c(eb, n)));
        });
    nb.create<linalg::YieldOp>(l, ifOp.getResults());
  };
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{lw::tensorType({numRows}, f32)}, ValueRange{},
          ValueRange{lw::emptyTensor(b, loc, {numRows})},
          SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(1, ctx)},
          lw::parallel(1), body)
      .getResult(0);
}

Value ortTrailingSum(OpBuilder &b, Location loc, Value x,
                     ArrayRef<int64_t> axes, bool mean,
                     ArrayRef<int64_t> outShape) {
  namespace lw = lowering;
  ArrayRef<int64_t> shape = lw::shapeOf(x);
  int64_t rank = shape.size(), n = 1;
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[axes.size() - 1 - i] != rank - 1 - int64_t(i))
      return Value();
  if (axes.empty())
    return Value();
  for (int64_t a : axes)
    n *= shape[a];
  int64_t rows = 1;
  for (int64_t d : shape)
    rows *= d;
  rows /= std::max<int64_t>(n, 1);
  Value r = eigenRowSums(b, loc, lw::reshapeTo(b, loc, x, {rows, n}));
  if (mean)
    r = lw::elementwise(b, loc, {rows}, ValueRange{r},
                        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                          return nb.create<arith::DivFOp>(
                              l, a[0], lw::f32(nb, l, double(n)));
                        });
  return lw::reshapeTo(b, loc, r, outShape);
}

} // namespace systole::conversion
