//===- ImportQuant.cpp - QuantizeLinear / DequantizeLinear ----------------===//
//
// Quantization parameters must be constants: they become the `!quant.uniform`
// element types of the tensors, which is where every later pass reads them.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"

#include "mlir/Dialect/Quant/QuantOps.h"

#include <cmath>

using namespace mlir;

namespace systole::frontend {

/// Normalizes ONNX's `axis` (may be negative) for a tensor of `rank`. Not
/// the shared normalizeAxis (ImportHelpers.h): axis 0 of a rank-0 tensor is
/// accepted here (the upper bound is max(rank, 1)), as it always was.
static llvm::Expected<int64_t> normalizeQuantAxis(ImportContext &ic,
                                                  int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return ic.fail("axis " + llvm::Twine(axis) + " out of range for rank " +
                   llvm::Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

/// The quantization axis: only meaningful (and only checked) when the scale
/// input has more than one element.
static llvm::Expected<int64_t> quantAxis(ImportContext &ic, int64_t rank) {
  const HostTensor *scale = ic.constantInput(1);
  if (!scale || scale->numElements() <= 1)
    return 0;
  return normalizeQuantAxis(ic, ic.attrInt("axis", 1), rank);
}

/// QuantizeLinear of a constant float tensor (weights exported unquantized):
/// evaluated now with ONNX semantics, so the weight stays a constant.
static llvm::Expected<HostTensor> quantizeConstant(ImportContext &ic,
                                                   const HostTensor &x,
                                                   quant::QuantizedType type,
                                                   int64_t axis) {
  if (x.type() != ElementType::Float32)
    return ic.fail("QuantizeLinear of a non-float constant");
  bool isUnsigned = !type.isSigned();
  HostTensor out(isUnsigned ? ElementType::UInt8 : ElementType::Int8,
                 x.shape());
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(type);
  auto perTensor = dyn_cast<quant::UniformQuantizedType>(type);
  int64_t inner = 1, axisSize = 1;
  if (perAxis) {
    axisSize = x.shape()[axis];
    for (size_t d = axis + 1; d < x.shape().size(); ++d)
      inner *= x.shape()[d];
  }
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t c = perAxis ? (i / inner) % axisSize : 0;
    float scale = perAxis ? static_cast<float>(perAxis.getScales()[c])
                          : static_cast<float>(perTensor.getScale());
    int64_t zp =
        perAxis ? perAxis.getZeroPoints()[c] : perTensor.getZeroPoint();
    double q = std::nearbyint(x.dataAs<float>()[i] / scale) + zp;
    q = std::min<double>(std::max<double>(q, type.getStorageTypeMin()),
                         type.getStorageTypeMax());
    if (isUnsigned)
      out.dataAs<uint8_t>()[i] = static_cast<uint8_t>(q);
    else
      out.dataAs<int8_t>()[i] = static_cast<int8_t>(q);
  }
  return out;
}

static llvm::Error importQuantizeLinear(ImportContext &ic) {
  // Parameters known only at run time: no quantized type, host arithmetic.
  if (!ic.constantInput(1) || (ic.hasInput(2) && !ic.constantInput(2)))
    return importHostQuantizeLinear(ic);
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  int64_t rank = shapeOf(*x).size();
  auto axis = quantAxis(ic, rank);
  if (!axis)
    return axis.takeError();
  // Opset 13's default output type is uint8 when no zero point is given.
  auto qtype = ic.quantElementType(
      1, 2, *axis, IntegerType::get(ic.ctx(), 8, IntegerType::Unsigned));
  if (!qtype)
    return qtype.takeError();
  if (const HostTensor *c = ic.constantInput(0)) {
    auto q =
        quantizeConstant(ic, *c, cast<quant::QuantizedType>(*qtype), *axis);
    if (!q)
      return q.takeError();
    ic.defineConstant(ic.node->output(0), std::move(*q));
    return llvm::Error::success();
  }
  if (!isa<FloatType>(elementOf(*x)))
    return ic.fail("QuantizeLinear input must be float");
  Value q = ic.builder.create<graph::QuantizeOp>(
      ic.loc(), tensorType(shapeOf(*x), *qtype), *x);
  return ic.defineOutput(0, q);
}

static llvm::Error importDequantizeLinear(ImportContext &ic) {
  if (!ic.constantInput(1) || (ic.hasInput(2) && !ic.constantInput(2)))
    return importHostDequantizeLinear(ic);
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  int64_t rank = shapeOf(*x).size();
  auto axis = quantAxis(ic, rank);
  if (!axis)
    return axis.takeError();
  // Storage signedness comes from the zero point's type (uint8 zero point:
  // uint8 data); a tensor without zero point keeps its quant type's.
  Type storage = elementOf(*x);
  if (auto q = dyn_cast<quant::QuantizedType>(storage))
    storage = q.isSigned()
                  ? IntegerType::get(ic.ctx(), q.getStorageTypeIntegralWidth())
                  : IntegerType::get(ic.ctx(), q.getStorageTypeIntegralWidth(),
                                     IntegerType::Unsigned);
  auto qtype = ic.quantElementType(1, 2, *axis, storage);
  if (!qtype)
    return qtype.takeError();
  auto qx = ic.asQuantized(*x, *qtype);
  if (!qx)
    return qx.takeError();
  Value f = ic.builder.create<graph::DequantizeOp>(
      ic.loc(), tensorType(shapeOf(*x), Float32Type::get(ic.ctx())), *qx);
  return ic.defineOutput(0, f);
}

void registerQuantImporters(llvm::StringMap<OpImporter> &table) {
  table["QuantizeLinear"] = importQuantizeLinear;
  table["DequantizeLinear"] = importDequantizeLinear;
}

} // namespace systole::frontend
