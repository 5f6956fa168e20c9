//===- ImportLinear.cpp - MatMul, Gemm and their int8 forms ---------------===//
//
// Float (MatMul/Gemm), QOperator (QLinearMatMul, QGemm) and integer
// (MatMulInteger) forms all map to graph.matmul; only the element types
// differ. The convolutions are in ImportConv.cpp; both use quantizedOperands
// (ImportHelpers.h), defined here.
//
//===----------------------------------------------------------------------===//
#include "ImportHelpers.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;

namespace systole::frontend {

namespace {

Type i8Type(ImportContext &ic) { return IntegerType::get(ic.ctx(), 8); }
Type i32Type(ImportContext &ic) { return IntegerType::get(ic.ctx(), 32); }

/// A unit-scale quantized type for the *Integer ops, which only have zero
/// points: `sum((x - zx) * (w - zw))` is all they compute.
llvm::Expected<Type> integerOpType(ImportContext &ic, Value v, int zpIdx,
                                   int64_t axis) {
  Type storage = elementOf(v);
  if (!isa<IntegerType>(storage) || cast<IntegerType>(storage).getWidth() != 8)
    return ic.fail("expects an 8-bit integer operand");
  // Integer tensors are signless in the IR; a uint8 zero point marks uint8
  // data (and unsigned-typed values keep saying so).
  bool isUnsigned = cast<IntegerType>(storage).isUnsigned();
  if (const HostTensor *zt =
          ic.hasInput(zpIdx) ? ic.constantInput(zpIdx) : nullptr)
    isUnsigned = zt->type() == ElementType::UInt8;
  int64_t lo = isUnsigned ? 0 : -128;
  int64_t hi = lo + 255;
  unsigned flags = lo < 0 ? quant::QuantizationFlags::Signed : 0;
  std::vector<int64_t> zps{0};
  if (ic.hasInput(zpIdx)) {
    const HostTensor *zt = ic.constantInput(zpIdx);
    if (!zt)
      return ic.notConstant(zpIdx, "the zero point");
    zps.clear();
    for (int64_t i = 0; i < zt->numElements(); ++i)
      zps.push_back(zt->type() == ElementType::UInt8
                        ? int64_t(zt->dataAs<uint8_t>()[i])
                        : int64_t(zt->dataAs<int8_t>()[i]));
  }
  Type f32 = Float32Type::get(ic.ctx());
  if (zps.size() == 1)
    return Type(quant::UniformQuantizedType::get(flags, i8Type(ic), f32, 1.0,
                                                 zps[0], lo, hi));
  SmallVector<double> scales(zps.size(), 1.0);
  return Type(quant::UniformQuantizedPerAxisType::get(
      flags, i8Type(ic), f32, scales, zps, axis, lo, hi));
}

/// The int32 bias type whose scale is x_scale * w_scale[o], as ORT's
/// quantizer defines it (the scale is informational: the bias is added to the
/// int32 accumulator as stored).
Type biasType(ImportContext &ic, Type x, Type w) {
  auto xq = cast<quant::UniformQuantizedType>(x);
  SmallVector<double> scales;
  SmallVector<int64_t> zps;
  if (auto wa = dyn_cast<quant::UniformQuantizedPerAxisType>(w)) {
    for (double s : wa.getScales())
      scales.push_back(static_cast<float>(xq.getScale()) *
                       static_cast<float>(s));
  } else {
    scales.push_back(
        static_cast<float>(xq.getScale()) *
        static_cast<float>(cast<quant::UniformQuantizedType>(w).getScale()));
  }
  zps.assign(scales.size(), 0);
  Type f32 = Float32Type::get(ic.ctx());
  unsigned flags = quant::QuantizationFlags::Signed;
  int64_t lo = INT32_MIN, hi = INT32_MAX;
  if (scales.size() == 1)
    return quant::UniformQuantizedType::get(flags, i32Type(ic), f32, scales[0],
                                            0, lo, hi);
  return quant::UniformQuantizedPerAxisType::get(flags, i32Type(ic), f32,
                                                 scales, zps, 0, lo, hi);
}

} // namespace

llvm::Expected<LinearOperands> quantizedOperands(ImportContext &ic,
                                                 const QuantOperands &q,
                                                 int64_t wAxis,
                                                 bool integerOp) {
  LinearOperands out;
  auto x = ic.input(q.x);
  if (!x)
    return x.takeError();
  auto w = ic.input(q.w);
  if (!w)
    return w.takeError();
  llvm::Expected<Type> xt =
      integerOp ? integerOpType(ic, *x, q.xZp, 0)
                : ic.quantElementType(q.xScale, q.xZp, 0, i8Type(ic));
  if (!xt)
    return xt.takeError();
  if (!isa<quant::UniformQuantizedType>(*xt))
    return ic.fail("the activation input must be quantized per tensor");
  llvm::Expected<Type> wt =
      integerOp ? integerOpType(ic, *w, q.wZp, wAxis)
                : ic.quantElementType(q.wScale, q.wZp, wAxis, i8Type(ic));
  if (!wt)
    return wt.takeError();
  auto qx = ic.asQuantized(*x, *xt);
  if (!qx)
    return qx.takeError();
  auto qw = ic.asQuantized(*w, *wt);
  if (!qw)
    return qw.takeError();
  out.x = *qx;
  out.w = *qw;
  if (q.bias >= 0 && ic.hasInput(q.bias)) {
    auto b = ic.input(q.bias);
    if (!b)
      return b.takeError();
    if (elementOf(*b) != i32Type(ic))
      return ic.fail("bias must be int32");
    auto qb = ic.asQuantized(*b, biasType(ic, *xt, *wt));
    if (!qb)
      return qb.takeError();
    out.bias = *qb;
  }
  if (integerOp) {
    out.resultElement = i32Type(ic);
  } else {
    auto yt = ic.quantElementType(q.yScale, q.yZp, 0, i8Type(ic));
    if (!yt)
      return yt.takeError();
    if (!isa<quant::UniformQuantizedType>(*yt))
      return ic.fail("the output must be quantized per tensor");
    out.resultElement = *yt;
  }
  return out;
}

namespace {

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

// The graph.matmul forms below are what FoldQDQ and the NPU partition map
// onto the array (float32 operands of rank >= 2, quantized operands, a Gemm
// whose bias is a row). Every other MatMul/Gemm/MatMulInteger -- 1-D
// operands, float64/float16/integer data, alpha/beta, a full or scalar C,
// runtime integer operands -- is a graph.host op built here: one
// contraction (linalg.matmul for two plain matrices, otherwise a
// linalg.generic whose maps express numpy batch broadcasting, transposes and
// the promoted 1-D operands), accumulating in the operands' type as ORT's
// CPU kernels do.

/// The loops of an ONNX MatMul: batch dims (numpy broadcasting), M unless A
/// is 1-D, N unless B is 1-D, then K. A 1-D A is [K] (ONNX promotes it to
/// [1, K] and drops that 1 from the result), a 1-D B is [K].
struct Contraction {
  SmallVector<int64_t> out;
  int64_t loops = 0;
  /// Loop positions of M and N (-1 if the operand is 1-D) and K.
  int64_t m = -1, n = -1, k = -1;
  AffineMap aMap, bMap, yMap;
};

llvm::Expected<Contraction> matMulLoops(ImportContext &ic, ArrayRef<int64_t> as,
                                        ArrayRef<int64_t> bs) {
  if (as.empty() || bs.empty())
    return ic.fail("MatMul operands must have rank 1 or more");
  int64_t ka = as.back();
  int64_t kb = bs.size() >= 2 ? bs[bs.size() - 2] : bs[0];
  if (ka != kb)
    return ic.fail("MatMul contraction mismatch: " + llvm::Twine(ka) + " vs " +
                   llvm::Twine(kb));
  ArrayRef<int64_t> aBatch =
      as.size() > 2 ? as.drop_back(2) : ArrayRef<int64_t>();
  ArrayRef<int64_t> bBatch =
      bs.size() > 2 ? bs.drop_back(2) : ArrayRef<int64_t>();
  auto batch = graph::broadcastShapes(aBatch, bBatch);
  if (failed(batch))
    return ic.fail("MatMul batch dimensions do not broadcast");
  Contraction c;
  c.out.assign(batch->begin(), batch->end());
  int64_t nb = c.out.size();
  if (as.size() >= 2) {
    c.m = c.out.size();
    c.out.push_back(as[as.size() - 2]);
  }
  if (bs.size() >= 2) {
    c.n = c.out.size();
    c.out.push_back(bs.back());
  }
  c.k = c.out.size();
  c.loops = c.k + 1;
  MLIRContext *ctx = ic.ctx();
  auto batchExprs = [&](ArrayRef<int64_t> s) {
    SmallVector<AffineExpr> e;
    int64_t off = nb - int64_t(s.size());
    for (int64_t i = 0; i < int64_t(s.size()); ++i)
      e.push_back(s[i] == 1 && c.out[i + off] != 1
                      ? getAffineConstantExpr(0, ctx)
                      : getAffineDimExpr(i + off, ctx));
    return e;
  };
  SmallVector<AffineExpr> ae = batchExprs(aBatch), be = batchExprs(bBatch), ye;
  if (c.m >= 0)
    ae.push_back(getAffineDimExpr(c.m, ctx));
  ae.push_back(getAffineDimExpr(c.k, ctx));
  be.push_back(getAffineDimExpr(c.k, ctx));
  if (c.n >= 0)
    be.push_back(getAffineDimExpr(c.n, ctx));
  for (int64_t i = 0; i < c.k; ++i)
    ye.push_back(getAffineDimExpr(i, ctx));
  c.aMap = AffineMap::get(c.loops, 0, ae, ctx);
  c.bMap = AffineMap::get(c.loops, 0, be, ctx);
  c.yMap = AffineMap::get(c.loops, 0, ye, ctx);
  return c;
}

/// ONNX MatMul of any rank and element type as a graph.host op.
llvm::Error hostMatMul(ImportContext &ic, Value a, Value bv,
                       ArrayRef<NamedAttribute> extra = {}) {
  if (elementOf(a) != elementOf(bv))
    return ic.fail("MatMul operands have different element types");
  auto c = matMulLoops(ic, shapeOf(a), shapeOf(bv));
  if (!c)
    return c.takeError();
  Type elem = elementOf(a);
  OpBuilder &b = ic.builder;
  SmallVector<NamedAttribute> params = {b.getNamedAttr(
      "indexing_maps",
      b.getArrayAttr({AffineMapAttr::get(c->aMap), AffineMapAttr::get(c->bMap),
                      AffineMapAttr::get(c->yMap)}))};
  params.append(extra.begin(), extra.end());
  Value y = ic.hostOp({a, bv}, tensorType(c->out, elem), params);
  return ic.defineOutput(0, y);
}

/// Reads a zero point of an integer MatMul: one value for the whole tensor,
/// or one per row of A (`along` = the M loop) / column of B (the N loop).
llvm::Expected<AffineMap> zeroPointMap(ImportContext &ic, Value zp,
                                       const Contraction &c, int64_t along,
                                       int64_t extent, const char *what) {
  auto s = shapeOf(zp);
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  MLIRContext *ctx = ic.ctx();
  if (n == 1)
    return AffineMap::get(
        c.loops, 0,
        SmallVector<AffineExpr>(s.size(), getAffineConstantExpr(0, ctx)), ctx);
  if (s.size() == 1 && along >= 0 && s[0] == extent)
    return AffineMap::get(c.loops, 0, {getAffineDimExpr(along, ctx)}, ctx);
  return ic.fail(llvm::Twine(what) +
                 " must be a scalar or 1-D with one value per " +
                 (along == c.m ? "row of A" : "column of B"));
}

/// ONNX MatMulInteger on the host: sum((a - a_zp) * (b - b_zp)) in int32,
/// with uint8 or int8 data extended by its ONNX signedness.
llvm::Error hostMatMulInteger(ImportContext &ic) {
  SmallVector<Value> ins;
  for (int i = 0; i < 4; ++i) {
    if (!ic.hasInput(i))
      continue;
    auto v = ic.input(i);
    if (!v)
      return v.takeError();
    if (!elementOf(*v).isInteger(8))
      return ic.fail("MatMulInteger expects int8/uint8 tensors");
    ins.push_back(*v);
  }
  auto as = shapeOf(ins[0]), bs = shapeOf(ins[1]);
  auto c = matMulLoops(ic, as, bs);
  if (!c)
    return c.takeError();
  SmallVector<AffineMap> maps = {c->aMap, c->bMap};
  // Which of ins[2..] is a's and b's zero point.
  int aZp = -1, bZp = -1, next = 2;
  if (ic.hasInput(2)) {
    auto m =
        zeroPointMap(ic, ins[next], *c, c->m,
                     as.size() >= 2 ? as[as.size() - 2] : 1, "a_zero_point");
    if (!m)
      return m.takeError();
    maps.push_back(*m);
    aZp = next++;
  }
  if (ic.hasInput(3)) {
    auto m = zeroPointMap(ic, ins[next], *c, c->n,
                          bs.size() >= 2 ? bs.back() : 1, "b_zero_point");
    if (!m)
      return m.takeError();
    maps.push_back(*m);
    bZp = next++;
  }
  maps.push_back(c->yMap);
  OpBuilder &b = ic.builder;
  SmallVector<Attribute> mapAttrs;
  for (AffineMap m : maps)
    mapAttrs.push_back(AffineMapAttr::get(m));
  Value y = ic.hostOp(
      ins, tensorType(c->out, i32Type(ic)),
      {b.getNamedAttr("indexing_maps", b.getArrayAttr(mapAttrs)),
       b.getNamedAttr("has_a_zero_point", b.getBoolAttr(aZp >= 0)),
       b.getNamedAttr("has_b_zero_point", b.getBoolAttr(bZp >= 0)),
       b.getNamedAttr("unsigned_a", b.getBoolAttr(ic.isUnsignedInput(0))),
       b.getNamedAttr("unsigned_b", b.getBoolAttr(ic.isUnsignedInput(1)))});
  return ic.defineOutput(0, y);
}

/// ONNX Gemm on the host: alpha * A' B' + beta * C with A' = transA ? A^T :
/// A (likewise B'), C broadcast to [M, N] (numpy rules), any element type.
llvm::Error hostGemm(ImportContext &ic) {
  auto a = ic.input(0), b = ic.input(1);
  if (!a)
    return a.takeError();
  if (!b)
    return b.takeError();
  auto as = shapeOf(*a), bs = shapeOf(*b);
  if (as.size() != 2 || bs.size() != 2)
    return ic.fail("Gemm operands must be 2-D");
  Type elem = elementOf(*a);
  if (elementOf(*b) != elem)
    return ic.fail("Gemm operands have different element types");
  bool ta = ic.attrInt("transA", 0), tb = ic.attrInt("transB", 0);
  int64_t m = ta ? as[1] : as[0], k = ta ? as[0] : as[1];
  int64_t n = tb ? bs[0] : bs[1], kb = tb ? bs[1] : bs[0];
  if (k != kb)
    return ic.fail("Gemm contraction mismatch: " + llvm::Twine(k) + " vs " +
                   llvm::Twine(kb));
  float alpha = ic.attrFloat("alpha", 1.0f), beta = ic.attrFloat("beta", 1.0f);
  // Integer Gemm scales by the attributes converted to the element type.
  if (isa<IntegerType>(elem) &&
      (alpha != std::trunc(alpha) || beta != std::trunc(beta)))
    return ic.fail("integer Gemm with a non-integral alpha or beta");
  SmallVector<Value> ins = {*a, *b};
  bool withC = ic.hasInput(2) && beta != 0.0f;
  if (withC) {
    auto cv = ic.input(2);
    if (!cv)
      return cv.takeError();
    if (elementOf(*cv) != elem)
      return ic.fail("Gemm C has another element type than A and B");
    auto s = graph::broadcastShapes(shapeOf(*cv), ArrayRef<int64_t>{m, n});
    if (failed(s) || *s != ArrayRef<int64_t>{m, n})
      return ic.fail("Gemm C does not broadcast to [M, N]");
    ins.push_back(*cv);
  }
  MLIRContext *ctx = ic.ctx();
  Contraction c;
  c.out = {m, n};
  c.m = 0, c.n = 1, c.k = 2, c.loops = 3;
  AffineExpr dm = getAffineDimExpr(0, ctx), dn = getAffineDimExpr(1, ctx),
             dk = getAffineDimExpr(2, ctx);
  c.aMap = AffineMap::get(3, 0,
                          ta ? SmallVector<AffineExpr>{dk, dm}
                             : SmallVector<AffineExpr>{dm, dk},
                          ctx);
  c.bMap = AffineMap::get(3, 0,
                          tb ? SmallVector<AffineExpr>{dn, dk}
                             : SmallVector<AffineExpr>{dk, dn},
                          ctx);
  c.yMap = AffineMap::get(3, 0, {dm, dn}, ctx);
  OpBuilder &bld = ic.builder;
  Value y = ic.hostOp(
      ins, tensorType(c.out, elem),
      {bld.getNamedAttr("indexing_maps",
                        bld.getArrayAttr({AffineMapAttr::get(c.aMap),
                                          AffineMapAttr::get(c.bMap),
                                          AffineMapAttr::get(c.yMap)})),
       bld.getNamedAttr("alpha", bld.getF32FloatAttr(alpha)),
       bld.getNamedAttr("beta", bld.getF32FloatAttr(beta))});
  return ic.defineOutput(0, y);
}

llvm::Error buildMatMul(ImportContext &ic, Value a, Value b, Value bias,
                        Type resultElement) {
  auto as = shapeOf(a), bs = shapeOf(b);
  if (as.size() < 2 || bs.size() < 2)
    return ic.fail("1-D MatMul operands are not supported; reshape to 2-D");
  if (as.back() != bs[bs.size() - 2])
    return ic.fail("MatMul contraction mismatch: " + llvm::Twine(as.back()) +
                   " vs " + llvm::Twine(bs[bs.size() - 2]));
  auto batch = graph::broadcastShapes(as.drop_back(2), bs.drop_back(2));
  if (failed(batch))
    return ic.fail("MatMul batch dimensions do not broadcast");
  SmallVector<int64_t> shape(*batch);
  shape.push_back(as[as.size() - 2]);
  shape.push_back(bs.back());
  Value y = ic.builder.create<graph::MatMulOp>(
      ic.loc(), tensorType(shape, resultElement), a, b, bias, IntegerAttr(),
      IntegerAttr());
  return ic.defineOutput(0, y);
}

llvm::Error importMatMul(ImportContext &ic) {
  auto a = ic.input(0), b = ic.input(1);
  if (!a)
    return a.takeError();
  if (!b)
    return b.takeError();
  // float32 matrices stay graph.matmul: FoldQDQ maps QDQ ones onto the NPU.
  if (elementOf(*a).isF32() && elementOf(*b).isF32() &&
      shapeOf(*a).size() >= 2 && shapeOf(*b).size() >= 2)
    return buildMatMul(ic, *a, *b, Value(), elementOf(*a));
  return hostMatMul(ic, *a, *b);
}

/// com.microsoft FusedMatMul as ORT's MatMulScaleFusion writes it (and
/// Frontend/OrtFusions.cpp): alpha * (A x B) for float32, on the host,
/// where MLAS scales each K stride's sum (OnnxToLinalg MatMul's `alpha`).
/// The transposing forms (MatMulTransposeFusion) are not taken.
llvm::Error importFusedMatMul(ImportContext &ic) {
  for (const char *t : {"transA", "transB", "transBatchA", "transBatchB"})
    if (ic.attrInt(t, 0) != 0)
      return ic.fail(llvm::Twine("FusedMatMul with ") + t +
                     " = 1 is not supported (only its alpha form)");
  auto a = ic.input(0), b = ic.input(1);
  if (!a)
    return a.takeError();
  if (!b)
    return b.takeError();
  if (!elementOf(*a).isF32() || !elementOf(*b).isF32())
    return ic.fail("FusedMatMul is supported for float32 operands only");
  OpBuilder &bb = ic.builder;
  return hostMatMul(ic, *a, *b,
                    {bb.getNamedAttr("body", bb.getStringAttr("MatMul")),
                     bb.getNamedAttr("alpha", bb.getF32FloatAttr(ic.attrFloat(
                                                  "alpha", 1.0f)))});
}

llvm::Error importQLinearMatMul(ImportContext &ic) {
  QuantOperands q{0, 1, 2, 3, 4, 5, 6, 7, -1};
  auto b = ic.input(3);
  if (!b)
    return b.takeError();
  // Per-column weight scales quantize along N, the last axis.
  int64_t axis = static_cast<int64_t>(shapeOf(*b).size()) - 1;
  auto ops = quantizedOperands(ic, q, axis, /*integerOp=*/false);
  if (!ops)
    return ops.takeError();
  return buildMatMul(ic, ops->x, ops->w, Value(), ops->resultElement);
}

/// Whether MatMulInteger has the form the NPU array runs: constant int8
/// matrices B (batched only with A's batch dims) and constant zero points
/// with one value each (A's per tensor; the quantized type is what says
/// uint8 when one is given).
bool npuMatMulInteger(ImportContext &ic) {
  auto a = ic.input(0), b = ic.input(1);
  if (!a || !b) {
    llvm::consumeError(a.takeError());
    llvm::consumeError(b.takeError());
    return false;
  }
  auto as = shapeOf(*a), bs = shapeOf(*b);
  if (!ic.constantInput(1) || as.size() < 2 || bs.size() < 2 ||
      (bs.size() > 2 && as.drop_back(2) != bs.drop_back(2)))
    return false;
  for (int i : {2, 3}) {
    if (!ic.hasInput(i)) {
      if (ic.isUnsignedInput(i - 2))
        return false;
      continue;
    }
    // The array subtracts one zero point per operand.
    const HostTensor *zp = ic.constantInput(i);
    if (!zp || zp->numElements() < 1 || (i == 2 && zp->numElements() != 1))
      return false;
    const int8_t *z = zp->dataAs<int8_t>();
    if (!std::all_of(z, z + zp->numElements(),
                     [&](int8_t v) { return v == z[0]; }))
      return false;
  }
  return true;
}

llvm::Error importMatMulInteger(ImportContext &ic) {
  if (!npuMatMulInteger(ic))
    return hostMatMulInteger(ic);
  QuantOperands q;
  q.x = 0, q.w = 1, q.xZp = 2, q.wZp = 3;
  auto b = ic.input(1);
  if (!b)
    return b.takeError();
  int64_t axis = static_cast<int64_t>(shapeOf(*b).size()) - 1;
  auto ops = quantizedOperands(ic, q, axis, /*integerOp=*/true);
  if (!ops)
    return ops.takeError();
  return buildMatMul(ic, ops->x, ops->w, Value(), ops->resultElement);
}

Value transpose2D(ImportContext &ic, Value v) {
  auto s = shapeOf(v);
  // A per-axis quantized weight keeps its scales on the same logical axis.
  Type elem = elementOf(v);
  if (auto pa = dyn_cast<quant::UniformQuantizedPerAxisType>(elem))
    elem = quant::UniformQuantizedPerAxisType::get(
        pa.getFlags(), pa.getStorageType(), pa.getExpressedType(),
        pa.getScales(), pa.getZeroPoints(), 1 - pa.getQuantizedDimension(),
        pa.getStorageTypeMin(), pa.getStorageTypeMax());
  return ic.builder.create<graph::TransposeOp>(
      ic.loc(), tensorType({s[1], s[0]}, elem), v,
      ic.builder.getDenseI64ArrayAttr({1, 0}));
}

/// Gemm's C as a 1-D [N] bias when it is one (shape [N] or [1, N]).
llvm::Expected<Value> gemmBias(ImportContext &ic, int idx, int64_t n) {
  auto c = ic.input(idx);
  if (!c)
    return c.takeError();
  auto s = shapeOf(*c);
  bool isRow =
      (s.size() == 1 && s[0] == n) || (s.size() == 2 && s[0] == 1 && s[1] == n);
  if (!isRow)
    return ic.fail("Gemm bias C must have shape [N] or [1, N]; a full "
                   "[M, N] or scalar C is not supported");
  if (s.size() == 1)
    return *c;
  return ic.builder
      .create<graph::ReshapeOp>(ic.loc(), tensorType({n}, elementOf(*c)), *c)
      .getResult();
}

/// Whether a Gemm is a float32 matmul plus a row bias, the graph.matmul form
/// FoldQDQ maps onto the NPU.
bool graphGemm(ImportContext &ic, Value a, Value b) {
  if (!elementOf(a).isF32() || !elementOf(b).isF32() ||
      shapeOf(a).size() != 2 || shapeOf(b).size() != 2 ||
      ic.attrFloat("alpha", 1.0f) != 1.0f || ic.attrFloat("beta", 1.0f) != 1.0f)
    return false;
  if (!ic.hasInput(2))
    return true;
  int64_t n = ic.attrInt("transB", 0) ? shapeOf(b)[0] : shapeOf(b)[1];
  auto c = ic.input(2);
  if (!c) {
    llvm::consumeError(c.takeError());
    return false;
  }
  auto s = shapeOf(*c);
  return elementOf(*c).isF32() && ((s.size() == 1 && s[0] == n) ||
                                   (s.size() == 2 && s[0] == 1 && s[1] == n));
}

llvm::Error importGemm(ImportContext &ic) {
  auto a = ic.input(0), b = ic.input(1);
  if (!a)
    return a.takeError();
  if (!b)
    return b.takeError();
  if (!graphGemm(ic, *a, *b))
    return hostGemm(ic);
  Value lhs = ic.attrInt("transA", 0) ? transpose2D(ic, *a) : *a;
  Value rhs = ic.attrInt("transB", 0) ? transpose2D(ic, *b) : *b;
  Value bias;
  if (ic.hasInput(2)) {
    auto c = gemmBias(ic, 2, shapeOf(rhs)[1]);
    if (!c)
      return c.takeError();
    bias = *c;
  }
  return buildMatMul(ic, lhs, rhs, bias, elementOf(lhs));
}

/// com.microsoft QGemm: QLinearMatMul with Gemm's transposes and an int32
/// bias; without y_scale the output is float, which we do not support.
llvm::Error importQGemm(ImportContext &ic) {
  if (!ic.hasInput(7))
    return ic.fail("QGemm with a float output (no y_scale) is not supported");
  if (ic.attrFloat("alpha", 1.0f) != 1.0f)
    return ic.fail("QGemm with alpha other than 1 is not supported");
  auto b = ic.input(3);
  if (!b)
    return b.takeError();
  bool transB = ic.attrInt("transB", 0);
  // Weight scales are per output column: axis 0 of a transposed [N, K] B.
  int64_t axis = transB ? 0 : 1;
  QuantOperands q{0, 1, 2, 3, 4, 5, 7, 8, 6};
  auto ops = quantizedOperands(ic, q, axis, /*integerOp=*/false);
  if (!ops)
    return ops.takeError();
  Value lhs = ic.attrInt("transA", 0) ? transpose2D(ic, ops->x) : ops->x;
  Value rhs = transB ? transpose2D(ic, ops->w) : ops->w;
  return buildMatMul(ic, lhs, rhs, ops->bias, ops->resultElement);
}

} // namespace

void registerLinearImporters(llvm::StringMap<OpImporter> &table) {
  table["MatMul"] = importMatMul;
  table["QLinearMatMul"] = importQLinearMatMul;
  table["MatMulInteger"] = importMatMulInteger;
  table["Gemm"] = importGemm;
  table["com.microsoft::QGemm"] = importQGemm;
  table["com.microsoft::FusedMatMul"] = importFusedMatMul;
}

} // namespace systole::frontend
