//===- ImportLinear.cpp - Conv, MatMul, Gemm and their int8 forms ---------===//
//
// Float (Conv/MatMul/Gemm), QOperator (QLinearConv, QLinearMatMul, QGemm) and
// integer (ConvInteger, MatMulInteger) forms all map to graph.conv2d /
// graph.matmul; only the element types differ.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"

#include "mlir/Dialect/Quant/QuantOps.h"

using namespace mlir;

namespace systole::frontend {

namespace {

/// Quantization parameter input positions of a QOperator node; -1 = absent.
struct QuantOperands {
  int x = 0, xScale = -1, xZp = -1;
  int w = 1, wScale = -1, wZp = -1;
  int yScale = -1, yZp = -1;
  int bias = -1;
};

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
      return ic.fail("zero point must be a constant");
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

/// Operands of a QOperator/Integer node, cast to their quantized types.
struct LinearOperands {
  Value x, w, bias;
  Type resultElement;
};

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

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

llvm::Error buildConv(ImportContext &ic, Value x, Value w, Value bias,
                      Type resultElement) {
  auto xs = shapeOf(x), ws = shapeOf(w);
  if (xs.size() != 4 || ws.size() != 4)
    return ic.fail("only 2-D convolution (4-D input and weight) is supported, "
                   "got a " +
                   llvm::Twine(xs.size()) + "-D input");
  std::vector<int64_t> kernel{ws[2], ws[3]};
  if (auto k = ic.attrInts("kernel_shape"))
    if (*k != kernel)
      return ic.fail("kernel_shape does not match the weight shape");
  auto strides = ic.attrInts("strides").value_or(std::vector<int64_t>{1, 1});
  auto dilations =
      ic.attrInts("dilations").value_or(std::vector<int64_t>{1, 1});
  if (strides.size() != 2 || dilations.size() != 2)
    return ic.fail("strides and dilations must have 2 entries");
  for (int64_t s : strides)
    if (s <= 0)
      return ic.fail("strides must be positive");
  for (int64_t d : dilations)
    if (d <= 0)
      return ic.fail("dilations must be positive");
  auto pads = resolvePads2D(ic, {xs[2], xs[3]}, kernel, strides, dilations);
  if (!pads)
    return pads.takeError();
  int64_t group = ic.attrInt("group", 1);
  if (group <= 0 || xs[1] % group || ws[0] % group || xs[1] / group != ws[1])
    return ic.fail("group " + llvm::Twine(group) + " is inconsistent with " +
                   llvm::Twine(xs[1]) + " input channels and a weight of " +
                   llvm::Twine(ws[1]) + " channels per group");
  int64_t oh = graph::windowOutputSize(xs[2], kernel[0], strides[0],
                                       dilations[0], (*pads)[0], (*pads)[2]);
  int64_t ow = graph::windowOutputSize(xs[3], kernel[1], strides[1],
                                       dilations[1], (*pads)[1], (*pads)[3]);
  if (oh <= 0 || ow <= 0)
    return ic.fail("the kernel does not fit the padded input");
  if (bias && (shapeOf(bias).size() != 1 || shapeOf(bias)[0] != ws[0]))
    return ic.fail("bias must be 1-D with one value per output channel");
  auto b = ic.builder;
  Value y = b.create<graph::Conv2DOp>(
      ic.loc(), tensorType({xs[0], ws[0], oh, ow}, resultElement), x, w, bias,
      b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(dilations),
      b.getDenseI64ArrayAttr(*pads), b.getI64IntegerAttr(group),
      graph::LayoutAttr::get(ic.ctx(), graph::Layout::NCHW), IntegerAttr(),
      IntegerAttr());
  return ic.defineOutput(0, y);
}

llvm::Error importConv(ImportContext &ic) {
  auto x = ic.input(0), w = ic.input(1);
  if (!x)
    return x.takeError();
  if (!w)
    return w.takeError();
  Value bias;
  if (ic.hasInput(2)) {
    auto b = ic.input(2);
    if (!b)
      return b.takeError();
    bias = *b;
  }
  if (!isa<FloatType>(elementOf(*x)))
    return ic.fail("Conv expects float tensors");
  return buildConv(ic, *x, *w, bias, elementOf(*x));
}

llvm::Error importQLinearConv(ImportContext &ic) {
  QuantOperands q{0, 1, 2, 3, 4, 5, 6, 7, 8};
  auto ops = quantizedOperands(ic, q, /*wAxis=*/0, /*integerOp=*/false);
  if (!ops)
    return ops.takeError();
  return buildConv(ic, ops->x, ops->w, ops->bias, ops->resultElement);
}

llvm::Error importConvInteger(ImportContext &ic) {
  QuantOperands q;
  q.x = 0, q.w = 1, q.xZp = 2, q.wZp = 3;
  auto ops = quantizedOperands(ic, q, /*wAxis=*/0, /*integerOp=*/true);
  if (!ops)
    return ops.takeError();
  return buildConv(ic, ops->x, ops->w, Value(), ops->resultElement);
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

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
  if (!isa<FloatType>(elementOf(*a)))
    return ic.fail("MatMul expects float tensors");
  return buildMatMul(ic, *a, *b, Value(), elementOf(*a));
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

llvm::Error importMatMulInteger(ImportContext &ic) {
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

llvm::Error importGemm(ImportContext &ic) {
  auto a = ic.input(0), b = ic.input(1);
  if (!a)
    return a.takeError();
  if (!b)
    return b.takeError();
  if (shapeOf(*a).size() != 2 || shapeOf(*b).size() != 2)
    return ic.fail("Gemm operands must be 2-D");
  if (ic.attrFloat("alpha", 1.0f) != 1.0f || ic.attrFloat("beta", 1.0f) != 1.0f)
    return ic.fail("Gemm with alpha or beta other than 1 is not supported");
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
  table["Conv"] = importConv;
  table["QLinearConv"] = importQLinearConv;
  table["ConvInteger"] = importConvInteger;
  table["MatMul"] = importMatMul;
  table["QLinearMatMul"] = importQLinearMatMul;
  table["MatMulInteger"] = importMatMulInteger;
  table["Gemm"] = importGemm;
  table["com.microsoft::QGemm"] = importQGemm;
}

} // namespace systole::frontend
