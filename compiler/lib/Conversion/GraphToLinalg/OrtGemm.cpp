//===- OrtGemm.cpp - Float32 contractions summed as MLAS's SGEMM does -----===//
//
// ORT's MatMul<float> sums each output in an order fixed by MLAS's blocking
// (onnxruntime/core/mlas/lib/sgemm.cpp: MlasGemmBatch, MlasSgemmOperation,
// MlasSgemmPackedOperation; kernels x86_64/FgemmKernelAvx512FCommon.h and
// SgemmKernelM1Avx.S). A contraction summed in another order differs in
// the last bits, and a QuantizeLinear near a tie turns that into a step, so
// the host builds the same partial sums: K is cut into MLAS's strides (or
// the M1 kernel's groups of 4), each piece summed from zero by one
// linalg.generic over the operands reshaped to (pieces, piece length), the
// pieces then added in order by a second one. MLAS splits a large product
// across threads by rows (M >= N) or by 16-column blocks (N > M); a split
// by columns could change the N/K stride rule on machines with many
// threads, which this does not model (docs/host.md).
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/OrtMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace systole::conversion {

namespace {

// MLAS_SGEMM_STRIDEN / _STRIDEK / _PACKED_STRIDEK (mlasi.h).
constexpr int64_t kStrideN = 128, kStrideK = 128, kPackedStrideK = 256;

/// The K stride of MlasSgemmOperation for an N x K product (B not packed).
int64_t strideK(int64_t n, int64_t k) {
  int64_t sn = kStrideN, sk = kStrideK;
  if (n >= k) {
    while (sk / 2 >= k) {
      sn *= 2;
      sk /= 2;
    }
  } else {
    while (sn > 16 && sn / 2 >= n) {
      sk *= 2;
      sn /= 2;
    }
  }
  return sk;
}

/// One MLAS accumulation step: the general kernels' vfmadd231ps, or the M1
/// kernel's vmulps + vaddps.
enum class Step { Fma, MulAdd };

struct Builder {
  OpBuilder &b;
  Location loc;
  AffineMap lhsMap, rhsMap, yMap;
  ArrayRef<int64_t> out;
  Step step;
  float alpha;

  /// The operand dim the K loop (the maps' last loop) indexes.
  static int64_t kDim(AffineMap m) {
    unsigned k = m.getNumDims() - 1;
    for (auto [i, e] : llvm::enumerate(m.getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(e); d && d.getPosition() == k)
        return i;
    return -1;
  }

  Value zeros(ArrayRef<int64_t> shape) const {
    Value e = b.create<tensor::EmptyOp>(loc, shape, b.getF32Type());
    Value z = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(0.0f));
    return b.create<linalg::FillOp>(loc, ValueRange{z}, ValueRange{e})
        .getResult(0);
  }

  Value slice(Value v, int64_t dim, int64_t off, int64_t len) const {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<OpFoldResult> offs(type.getRank(), b.getIndexAttr(0)), sizes,
        strides(type.getRank(), b.getIndexAttr(1));
    for (int64_t d : type.getShape())
      sizes.push_back(b.getIndexAttr(d));
    offs[dim] = b.getIndexAttr(off);
    sizes[dim] = b.getIndexAttr(len);
    return b.create<tensor::ExtractSliceOp>(loc, v, offs, sizes, strides);
  }

  void accumulate(OpBuilder &nb, Location l, ValueRange a) const {
    Value r = step == Step::Fma
                  ? nb.create<math::FmaOp>(l, a[0], a[1], a[2]).getResult()
                  : nb.create<arith::AddFOp>(
                        l, a[2], nb.create<arith::MulFOp>(l, a[0], a[1]));
    nb.create<linalg::YieldOp>(l, r);
  }

  /// sum over K of lhs * rhs from zero, in K order: one MLAS chain.
  Value chain(Value lhs, Value rhs) const {
    SmallVector<utils::IteratorType> iters(lhsMap.getNumDims() - 1,
                                           utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    return b
        .create<linalg::GenericOp>(
            loc, TypeRange{RankedTensorType::get(out, b.getF32Type())},
            ValueRange{lhs, rhs}, ValueRange{zeros(out)},
            ArrayRef<AffineMap>{lhsMap, rhsMap, yMap}, iters,
            [&](OpBuilder &nb, Location l, ValueRange a) {
              accumulate(nb, l, a);
            })
        .getResult(0);
  }

  /// K split into `pieces` x `len`: operand dim kd becomes (piece, j), the
  /// maps' K loop becomes loops (piece, j), the piece a parallel loop.
  Value expand(Value v, int64_t kd, int64_t pieces, int64_t len) const {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape;
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      ReassociationIndices g = {int64_t(shape.size())};
      if (d == kd) {
        shape.append({pieces, len});
        g.push_back(int64_t(shape.size()) - 1);
      } else {
        shape.push_back(type.getDimSize(d));
      }
      groups.push_back(g);
    }
    return b.create<tensor::ExpandShapeOp>(
        loc, RankedTensorType::get(shape, type.getElementType()), v, groups);
  }
  AffineMap splitMap(AffineMap m, int64_t kd) const {
    unsigned n = m.getNumDims();
    SmallVector<AffineExpr> e;
    for (auto [i, r] : llvm::enumerate(m.getResults())) {
      if (int64_t(i) == kd) {
        e.push_back(b.getAffineDimExpr(n - 1));
        e.push_back(b.getAffineDimExpr(n));
      } else {
        e.push_back(r);
      }
    }
    return AffineMap::get(n + 1, 0, e, b.getContext());
  }

  /// The sums of `pieces` consecutive runs of `len` K values (each from
  /// zero), added in order.
  Value pieces(Value lhs, Value rhs, int64_t lk, int64_t rk, int64_t count,
               int64_t len) const {
    unsigned n = lhsMap.getNumDims(); // loops: out..., piece, j
    SmallVector<AffineExpr> pe(yMap.getResults());
    pe.push_back(b.getAffineDimExpr(n - 1));
    AffineMap pMap = AffineMap::get(n + 1, 0, pe, b.getContext());
    SmallVector<int64_t> pShape(out);
    pShape.push_back(count);
    SmallVector<utils::IteratorType> iters(n, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    Value partial =
        b.create<linalg::GenericOp>(
             loc, TypeRange{RankedTensorType::get(pShape, b.getF32Type())},
             ValueRange{expand(lhs, lk, count, len),
                        expand(rhs, rk, count, len)},
             ValueRange{zeros(pShape)},
             ArrayRef<AffineMap>{splitMap(lhsMap, lk), splitMap(rhsMap, rk),
                                 pMap},
             iters,
             [&](OpBuilder &nb, Location l, ValueRange a) {
               accumulate(nb, l, a);
             })
            .getResult(0);
    // Result += piece, pieces in order (the first onto zero: exact).
    int64_t rank = out.size();
    SmallVector<utils::IteratorType> sumIters(rank,
                                              utils::IteratorType::parallel);
    sumIters.push_back(utils::IteratorType::reduction);
    AffineMap in = AffineMap::getMultiDimIdentityMap(rank + 1, b.getContext());
    AffineMap to = in.getMajorSubMap(rank);
    return b
        .create<linalg::GenericOp>(
            loc, TypeRange{RankedTensorType::get(out, b.getF32Type())},
            ValueRange{partial}, ValueRange{zeros(out)},
            ArrayRef<AffineMap>{in, to}, sumIters,
            [&](OpBuilder &nb, Location l, ValueRange a) {
              // The first piece onto zero: exact for alpha 1, else one
              // rounding of piece * alpha, as ZeroMode's multiply.
              nb.create<linalg::YieldOp>(l, addScaled(nb, l, a[1], a[0]));
            })
        .getResult(0);
  }

  /// result + alpha * piece as the kernels' output step does it: plain
  /// add for alpha 1, else one fused multiply-add.
  Value addScaled(OpBuilder &nb, Location l, Value acc, Value piece) const {
    if (alpha == 1.0f)
      return nb.create<arith::AddFOp>(l, acc, piece);
    Value a = nb.create<arith::ConstantOp>(l, nb.getF32FloatAttr(alpha));
    return nb.create<math::FmaOp>(l, piece, a, acc);
  }

  /// The first piece: its sum times alpha (ZeroMode's vmulps).
  Value scale(Value piece) const {
    if (alpha == 1.0f)
      return piece;
    return b
        .create<linalg::MapOp>(
            loc, ValueRange{piece}, zeros(out),
            [&](OpBuilder &nb, Location l, ValueRange a) {
              Value s =
                  nb.create<arith::ConstantOp>(l, nb.getF32FloatAttr(alpha));
              nb.create<linalg::YieldOp>(
                  l, nb.create<arith::MulFOp>(l, a[0], s).getResult());
            })
        .getResult()[0];
  }

  Value add(Value acc, Value piece) const {
    return b
        .create<linalg::MapOp>(loc, ValueRange{acc, piece}, zeros(out),
                               [&](OpBuilder &nb, Location l, ValueRange a) {
                                 nb.create<linalg::YieldOp>(
                                     l, addScaled(nb, l, a[0], a[1]));
                               })
        .getResult()[0];
  }
};

} // namespace

Value mlasSgemm(OpBuilder &b, Location loc, Value lhs, Value rhs,
                AffineMap lhsMap, AffineMap rhsMap, AffineMap yMap,
                ArrayRef<int64_t> outShape, SgemmShape s) {
  // MLAS takes the M1 kernel only for alpha 1.
  bool m1 = s.m == 1 && !s.packedB && s.alpha == 1.0f;
  Builder g{b,
            loc,
            lhsMap,
            rhsMap,
            yMap,
            outShape,
            m1 ? Step::MulAdd : Step::Fma,
            s.alpha};
  int64_t lk = Builder::kDim(lhsMap), rk = Builder::kDim(rhsMap);
  int64_t stride = m1 ? 4 : s.packedB ? kPackedStrideK : strideK(s.n, s.k);
  if (lk < 0 || rk < 0 || s.k <= stride)
    return g.scale(g.chain(lhs, rhs));
  // Whole strides, then what is left: one piece (general kernels) or a
  // group of 2 and one of 1 (the M1 kernel).
  int64_t whole = s.k / stride, done = whole * stride;
  // (Operands built one statement at a time: the IR's order must not
  // depend on the C++ compiler's order of evaluating arguments.)
  Value l = g.slice(lhs, lk, 0, done);
  Value r = g.slice(rhs, rk, 0, done);
  Value y = whole == 1 ? g.scale(g.chain(l, r))
                       : g.pieces(l, r, lk, rk, whole, stride);
  SmallVector<int64_t> tails;
  if (m1) {
    if (s.k - done >= 2)
      tails.push_back(2);
    if ((s.k - done) % 2)
      tails.push_back(1);
  } else if (s.k > done) {
    tails.push_back(s.k - done);
  }
  for (int64_t len : tails) {
    Value tl = g.slice(lhs, lk, done, len);
    Value tr = g.slice(rhs, rk, done, len);
    y = g.add(y, g.chain(tl, tr));
    done += len;
  }
  return y;
}

} // namespace systole::conversion
