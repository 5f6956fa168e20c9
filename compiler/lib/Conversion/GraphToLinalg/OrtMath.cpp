//===- OrtMath.cpp - Float functions computed as ONNX Runtime's MLAS does -===//
//
// Constants and operation order of the MLAS kernels ORT 1.23 dispatches on
// this project's x86-64 machines (AVX2/FMA3 and AVX512F):
// onnxruntime/core/mlas/lib/logistic.cpp (MlasLogisticConstants) with
// x86_64/LogisticKernelFma3.S, and compute.cpp (MlasExpConstants,
// MlasComputeSoftmaxThreaded) with the AVX512F sum-of-exponentials kernel
// (TransKernelAvx512F). math.fma is correctly rounded on every target we
// emit (libm fmaf, PTX fma.rn.f32), like vfmadd*ps.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/OrtMath.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

using namespace mlir;

namespace systole::conversion {

namespace {

/// float32 constants and fused multiply-adds at one location, the
/// vocabulary of the kernels below.
struct Scalars {
  OpBuilder &b;
  Location loc;
  Value c(float v) const {
    return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
  }
  Value fma(Value a, Value m, Value add) const {
    return b.create<math::FmaOp>(loc, a, m, add);
  }
};

} // namespace

Value mlasLogistic(OpBuilder &b, Location loc, Value x) {
  Scalars k{b, loc};
  auto c = [&](float v) { return k.c(v); };
  auto fma = [&](Value a, Value m, Value add) { return k.fma(a, m, add); };
  // vmaxps/vminps return the memory operand (x) when it is NaN: NaN in,
  // NaN out, as maximumf/minimumf propagate it.
  Value v = b.create<arith::MaximumFOp>(loc, x, c(-18.0f));
  v = b.create<arith::MinimumFOp>(loc, v, c(18.0f));
  Value v2 = b.create<arith::MulFOp>(loc, v, v);
  Value p = fma(v2, c(4.37031012579801e-11f), c(1.15627324459942e-07f));
  p = fma(v2, p, c(6.08574864600143e-05f));
  p = fma(v2, p, c(8.51377133304701e-03f));
  p = fma(v2, p, c(2.48287947061529e-01f));
  Value q = fma(v2, c(6.10247389755681e-13f), c(5.76102136993427e-09f));
  q = fma(v2, q, c(6.29106785017040e-06f));
  q = fma(v2, q, c(1.70198817374094e-03f));
  q = fma(v2, q, c(1.16817656904453e-01f));
  q = fma(v2, q, c(9.93151921023180e-01f));
  p = b.create<arith::MulFOp>(loc, v, p);
  Value r =
      b.create<arith::AddFOp>(loc, b.create<arith::DivFOp>(loc, p, q), c(0.5f));
  return b.create<arith::MaximumFOp>(loc, r, c(0.0f));
}

Value mlasTanh(OpBuilder &b, Location loc, Value x) {
  Scalars k{b, loc};
  auto c = [&](float v) { return k.c(v); };
  auto fma = [&](Value a, Value m, Value add) { return k.fma(a, m, add); };
  // MlasTanhConstants (tanh.cpp): LowerRange, UpperRange, alpha_13..1,
  // beta_6..0.
  Value v = b.create<arith::MaximumFOp>(loc, x, c(-9.0f));
  v = b.create<arith::MinimumFOp>(loc, v, c(9.0f));
  Value v2 = b.create<arith::MulFOp>(loc, v, v);
  Value p = fma(v2, c(-2.76076847742355e-16f), c(2.00018790482477e-13f));
  for (float k :
       {-8.60467152213735e-11f, 5.12229709037114e-08f, 1.48572235717979e-05f,
        6.37261928875436e-04f, 4.89352455891786e-03f})
    p = fma(p, v2, c(k));
  p = b.create<arith::MulFOp>(loc, p, v);
  Value q = fma(v2, c(1.19825839466702e-06f), c(1.18534705686654e-04f));
  for (float k : {2.26843463243900e-03f, 4.89352518554385e-03f})
    q = fma(q, v2, c(k));
  return b.create<arith::DivFOp>(loc, p, q);
}

Value mlasErf(OpBuilder &b, Location loc, Value x) {
  Scalars k{b, loc};
  auto c = [&](float v) { return k.c(v); };
  auto fma = [&](Value a, Value m, Value add) { return k.fma(a, m, add); };
  // MlasErfConstants (erf.cpp, ORT 1.23). The kernel computes both branches
  // for every lane and merges them with masks; a select of the two is the
  // same value.
  Value a = b.create<math::AbsFOp>(loc, x);
  a = b.create<arith::MinimumFOp>(loc, a, c(3.925f));
  Value s = b.create<arith::MulFOp>(loc, a, a);
  Value small = c(-5.99104969e-4f);
  for (float k : {4.99339588e-3f, -2.67667342e-2f, 1.12818025e-1f,
                  -3.76124859e-1f, 1.28379151e-1f})
    small = fma(small, s, c(k));
  small = fma(small, a, a);
  Value big = c(1.72948930e-5f);
  for (float k : {-3.83208680e-4f, 3.88393435e-3f, -2.42545605e-2f,
                  1.06777847e-1f, 6.34846687e-1f, 1.28717512e-1f})
    big = fma(big, a, c(k));
  big = fma(big, a, a);
  // exp(-big): the erf kernel's own exp (Exp_* constants).
  Value t = b.create<arith::NegFOp>(loc, big);
  t = b.create<arith::MaximumFOp>(loc, t, c(-88.3762626647949f));
  Value r = fma(c(1.44269504088896341f), t, c(12582912.0f));
  r = b.create<arith::SubFOp>(loc, r, c(12582912.0f));
  Value f = fma(c(-6.93145752e-1f), r, t);
  f = fma(r, c(-1.42860677e-6f), f);
  Value y = c(1.38319808e-3f);
  for (float k : {8.37550033e-3f, 4.16689515e-2f, 1.66664466e-1f,
                  4.99999851e-1f, 1.0f, 1.0f})
    y = fma(y, f, c(k));
  // 2^r built from its exponent bits (r >= -127 here, so a normal float).
  Type i32 = b.getI32Type();
  Value bits = b.create<arith::FPToSIOp>(loc, i32, r);
  bits = b.create<arith::AddIOp>(
      loc, bits, b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(127)));
  bits = b.create<arith::ShLIOp>(
      loc, bits, b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(23)));
  y = b.create<arith::MulFOp>(
      loc, y, b.create<arith::BitcastOp>(loc, b.getF32Type(), bits));
  y = b.create<arith::SubFOp>(loc, c(1.0f), y);
  Value isBig =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGE, a, c(0.921875f));
  Value e = b.create<arith::SelectOp>(loc, isBig, y, small);
  // The kernel ORs x's sign bit onto the non-negative result (bit ops
  // rather than math.copysign, which the GPU lowering has no pattern for).
  Value sign = b.create<arith::AndIOp>(
      loc, b.create<arith::BitcastOp>(loc, i32, x),
      b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(INT32_MIN)));
  Value merged = b.create<arith::OrIOp>(
      loc, b.create<arith::BitcastOp>(loc, i32, e), sign);
  return b.create<arith::BitcastOp>(loc, b.getF32Type(), merged);
}

Value mlasExp(OpBuilder &b, Location loc, Value x) {
  Scalars k{b, loc};
  auto c = [&](float v) { return k.c(v); };
  auto fma = [&](Value a, Value m, Value add) { return k.fma(a, m, add); };
  // MlasExpConstants.
  const float lowerRange = -103.9720840454f, upperRange = 88.7762626647950f,
              roundingBias = 12582912.0f, log2Reciprocal = 1.44269504088896341f,
              log2High = -6.93145752e-1f, log2Low = -1.42860677e-6f;
  const float poly[] = {0x1.694000p-10f, 0x1.125edcp-7f, 0x1.555b5ap-5f,
                        0x1.555450p-3f,  0x1.fffff6p-2f, 0x1.000000p+0f};
  // vmaxps(lower, x) returns x when x is NaN, as maximumf does. The upper
  // clamp only matters for +inf (which overflows to inf, not NaN); the
  // softmax's x <= 0 never reaches it.
  Value v = b.create<arith::MaximumFOp>(loc, x, c(lowerRange));
  v = b.create<arith::MinimumFOp>(loc, v, c(upperRange));
  Value biased = fma(c(log2Reciprocal), v, c(roundingBias));
  Value m = b.create<arith::SubFOp>(loc, biased, c(roundingBias));
  v = fma(m, c(log2High), v);
  v = fma(m, c(log2Low), v);
  Value p = c(poly[0]);
  for (float k : {poly[1], poly[2], poly[3], poly[4], poly[5], poly[5]})
    p = fma(p, v, c(k));
  // VSCALEFPS: p * 2^m rounded once. m is an integer in [-150, 128], so
  // the product is exact in float64 and truncf rounds it as the instruction
  // does (denormal results and overflow to infinity included).
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  Value e = b.create<arith::FPToSIOp>(loc, i64, m);
  e = b.create<arith::AddIOp>(
      loc, e, b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(1023)));
  e = b.create<arith::ShLIOp>(
      loc, e, b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(52)));
  Value scale = b.create<arith::BitcastOp>(loc, f64, e);
  Value wide =
      b.create<arith::MulFOp>(loc, b.create<arith::ExtFOp>(loc, f64, p), scale);
  return b.create<arith::TruncFOp>(loc, b.getF32Type(), wide);
}

Value mlasSoftmax(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes) {
  namespace lw = lowering;
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  ArrayRef<int64_t> shape = lw::shapeOf(x);
  int64_t rank = shape.size();
  // ORT computes rows of D contiguous elements: the softmax dims go last
  // (ORT transposes too when the axis is not the last) and become one.
  SmallVector<int64_t> perm, outer;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(axes, d)) {
      perm.push_back(d);
      outer.push_back(shape[d]);
    }
  int64_t n = outer.size(), width = 1;
  SmallVector<int64_t> moved(outer);
  for (int64_t d : axes) {
    perm.push_back(d);
    moved.push_back(shape[d]);
    width *= shape[d];
  }
  bool transposed = !llvm::equal(perm, llvm::seq<int64_t>(0, rank));
  Value xt = x;
  if (transposed)
    xt = b.create<linalg::TransposeOp>(loc, x, lw::emptyTensor(b, loc, moved),
                                       perm)
             ->getResult(0);
  SmallVector<ReassociationIndices> rowGroups;
  for (int64_t d = 0; d < n; ++d)
    rowGroups.push_back({d});
  rowGroups.emplace_back();
  for (int64_t d = n; d < rank; ++d)
    rowGroups.back().push_back(d);
  SmallVector<int64_t> rowShape(outer);
  rowShape.push_back(width);
  Value rows = b.create<tensor::CollapseShapeOp>(
      loc, lw::tensorType(rowShape, f32), xt, rowGroups);

  // The row maximum (from MlasMinimumF32Value, the lowest float), then
  // e = exp(x + -max).
  Value max =
      lw::reduce(b, loc, rows, {n}, std::numeric_limits<float>::lowest(),
                 [](OpBuilder &nb, Location l, Value acc, Value v) {
                   return nb.create<arith::MaximumFOp>(l, acc, v);
                 });
  Value e = lw::withReduced(
      b, loc, rows, ValueRange{max}, {n},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value negMax = nb.create<arith::NegFOp>(l, a[1]);
        return mlasExp(nb, l, nb.create<arith::AddFOp>(l, a[0], negMax));
      });

  // Sixteen lane sums: lane k mod 16 adds the row's elements in order (the
  // masked tail adds nothing, as the zeros padded here).
  int64_t chunks = (width + 15) / 16;
  SmallVector<int64_t> high(n + 1, 0);
  high[n] = chunks * 16 - width;
  Value ep = lw::padded(b, loc, e, SmallVector<int64_t>(n + 1, 0), high, 0.0);
  SmallVector<int64_t> laneShape(outer);
  laneShape.append({chunks, 16});
  SmallVector<ReassociationIndices> laneGroups(rowGroups.begin(),
                                               rowGroups.begin() + n);
  laneGroups.push_back({n, n + 1});
  Value byLane = b.create<tensor::ExpandShapeOp>(
      loc, lw::tensorType(laneShape, f32), ep, laneGroups);
  SmallVector<int64_t> accShape(outer);
  accShape.push_back(16);
  SmallVector<AffineExpr> accExprs;
  for (int64_t d = 0; d < n; ++d)
    accExprs.push_back(getAffineDimExpr(d, ctx));
  accExprs.push_back(getAffineDimExpr(n + 1, ctx));
  SmallVector<utils::IteratorType> iters(n, utils::IteratorType::parallel);
  iters.append({utils::IteratorType::reduction, utils::IteratorType::parallel});
  Value lanes =
      b.create<linalg::GenericOp>(
           loc, TypeRange{lw::tensorType(accShape, f32)}, ValueRange{byLane},
           ValueRange{
               lw::filledWith(b, loc, accShape, lw::scalar(b, loc, f32, 0))},
           SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(n + 2, ctx),
                                  AffineMap::get(n + 2, 0, accExprs, ctx)},
           iters,
           [](OpBuilder &nb, Location l, ValueRange a) {
             nb.create<linalg::YieldOp>(
                 l, ValueRange{nb.create<arith::AddFOp>(l, a[1], a[0])});
           })
          .getResult(0);

  // The kernel's reduction: s_i = lane[i + 8] + lane[i], then
  // ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)).
  Value sum =
      b.create<linalg::GenericOp>(
           loc, TypeRange{lw::tensorType(outer, f32)}, ValueRange{},
           ValueRange{lw::emptyTensor(b, loc, outer)},
           SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(n, ctx)},
           lw::parallel(n),
           [&](OpBuilder &nb, Location l, ValueRange) {
             SmallVector<Value> at;
             for (int64_t d = 0; d < n; ++d)
               at.push_back(nb.create<linalg::IndexOp>(l, d));
             auto lane = [&](int64_t i) -> Value {
               SmallVector<Value> idx(at);
               idx.push_back(nb.create<arith::ConstantIndexOp>(l, i));
               return nb.create<tensor::ExtractOp>(l, lanes, idx);
             };
             auto add = [&](Value u, Value v) -> Value {
               return nb.create<arith::AddFOp>(l, u, v);
             };
             // One statement per op: the IR's order does not depend on
             // the C++ compiler's argument evaluation order.
             SmallVector<Value> s;
             for (int64_t i = 0; i < 8; ++i) {
               Value hi = lane(i + 8);
               Value lo = lane(i);
               s.push_back(add(hi, lo));
             }
             SmallVector<Value> pairs;
             for (int64_t i = 0; i < 8; i += 2)
               pairs.push_back(add(s[i], s[i + 1]));
             Value t0 = add(pairs[0], pairs[1]);
             Value t1 = add(pairs[2], pairs[3]);
             nb.create<linalg::YieldOp>(l, ValueRange{add(t0, t1)});
           })
          .getResult(0);

  // Output: scale * e with scale = 1 / sum.
  Value y = lw::withReduced(
      b, loc, e, ValueRange{sum}, {n},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value scale = nb.create<arith::DivFOp>(
            l, nb.create<arith::ConstantOp>(l, nb.getF32FloatAttr(1.0f)), a[1]);
        return nb.create<arith::MulFOp>(l, scale, a[0]);
      });
  Value back = b.create<tensor::ExpandShapeOp>(loc, lw::tensorType(moved, f32),
                                               y, rowGroups);
  if (!transposed)
    return back;
  SmallVector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[perm[i]] = i;
  return b
      .create<linalg::TransposeOp>(loc, back, lw::emptyTensor(b, loc, shape),
                                   inverse)
      ->getResult(0);
}

std::vector<float> qlinearSoftmaxTable(float xScale, int64_t reduceLen,
                                       bool isSigned) {
  // float / size_t is a float division, and log of a float is
  // std::log(float) (logf), widened to double afterwards.
  float ratio = std::numeric_limits<float>::max() / float(reduceLen);
  double shift = double(std::log(ratio));
  shift = std::max(0.0, shift - 5.0) / double(xScale);
  std::vector<float> table(256);
  for (int32_t i = 0; i < 256; ++i) {
    double e = std::exp((double(i) - 255 + shift) * double(xScale));
    table[uint8_t(isSigned ? i - 128 : i)] = float(e);
  }
  return table;
}

} // namespace systole::conversion
