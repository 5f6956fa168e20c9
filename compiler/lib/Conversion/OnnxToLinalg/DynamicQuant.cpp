//===- DynamicQuant.cpp - Bodies of quantization with run-time parameters -===//
//
// DynamicQuantizeLinear computes its scale and zero point from the data; a
// QuantizeLinear/DequantizeLinear whose scale is a run-time value cannot
// carry `!quant.uniform` types. Both run on the host in float with ONNX
// Runtime's arithmetic (onnxruntime/core/providers/cpu/quantization/
// dynamicquantizelinear.cc and MLAS's QuantizeLinear):
//   min = min(0, min(x)), max = max(0, max(x)), scale = (max - min) / 255,
//   zero_point = round_half_even(clamp(0 - min / scale, 0, 255)),
//   y = clamp(round_half_even(x / scale) + zero_point, qmin, qmax).
// The importer (Frontend/ImportDynamicQuant.cpp) checks the types.
//
//===----------------------------------------------------------------------===//
#include "HostBody.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion::onnx {

namespace dynquant {
namespace {

Value cst(OpBuilder &b, Location loc, float v) {
  return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
}

/// round_half_even(x / scale) + zp, saturated to [lo, hi], as an i8.
Value quantizeScalar(OpBuilder &b, Location loc, Value x, Value scale, Value zp,
                     float lo, float hi, Type storage) {
  Value q =
      b.create<math::RoundEvenOp>(loc, b.create<arith::DivFOp>(loc, x, scale));
  q = b.create<arith::AddFOp>(loc, q, zp);
  q = b.create<arith::MaximumFOp>(loc, q, cst(b, loc, lo));
  q = b.create<arith::MinimumFOp>(loc, q, cst(b, loc, hi));
  return b.create<arith::FPToSIOp>(loc, storage, q);
}

/// Rank-0 min(0, min(x)) and max(0, max(x)) of a float32 tensor.
std::pair<Value, Value> rangeWithZero(OpBuilder &b, Location loc, Value x) {
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < int64_t(shapeOf(x).size()); ++d)
    all.push_back(d);
  Value mn = lw::reduce(b, loc, x, all, 0.0,
                        [](OpBuilder &nb, Location l, Value acc, Value v) {
                          return nb.create<arith::MinimumFOp>(l, acc, v);
                        });
  Value mx = lw::reduce(b, loc, x, all, 0.0,
                        [](OpBuilder &nb, Location l, Value acc, Value v) {
                          return nb.create<arith::MaximumFOp>(l, acc, v);
                        });
  return {mn, mx};
}

/// scale = (max - min) / 255 and zp = round_half_even(clamp(-min / scale)).
std::pair<Value, Value> scaleAndZeroPoint(OpBuilder &b, Location loc, Value mn,
                                          Value mx) {
  Value scale = b.create<arith::DivFOp>(
      loc, b.create<arith::SubFOp>(loc, mx, mn), cst(b, loc, 255.0f));
  Value zp = b.create<arith::SubFOp>(loc, cst(b, loc, 0.0f),
                                     b.create<arith::DivFOp>(loc, mn, scale));
  zp = b.create<arith::MaximumFOp>(loc, zp, cst(b, loc, 0.0f));
  zp = b.create<arith::MinimumFOp>(loc, zp, cst(b, loc, 255.0f));
  zp = b.create<math::RoundEvenOp>(loc, zp);
  return {scale, zp};
}

/// An integer element as fp32, read as unsigned or signed.
Value intToF32(OpBuilder &b, Location l, Value v, bool isUnsigned) {
  Type f32 = b.getF32Type();
  return isUnsigned ? Value(b.create<arith::UIToFPOp>(l, f32, v))
                    : Value(b.create<arith::SIToFPOp>(l, f32, v));
}

/// DynamicQuantizeLinear's output `output`: y (0), y_scale (1) or
/// y_zero_point (2); each recomputes the range (a reduction).
llvm::Expected<Value> dynamicQuantizeLinear(OpBuilder &b, Location loc,
                                            ValueRange a, Type,
                                            const Params &p) {
  SYSTOLE_PARAM(out, p.i64("output"));
  if (a.size() != 1 || !elementOf(a[0]).isF32() || out < 0 || out > 2)
    return p.fail("expects one float32 operand and an output of 0, 1 or 2");
  Type f32 = b.getF32Type(), i8 = b.getI8Type();
  auto [mn, mx] = rangeWithZero(b, loc, a[0]);
  Value range[] = {mn, mx};
  if (out == 0)
    return lw::elementwise(
        b, loc, shapeOf(a[0]), {a[0], mn, mx},
        [](OpBuilder &nb, Location l, ValueRange s) -> Value {
          auto [scale, zp] = scaleAndZeroPoint(nb, l, s[1], s[2]);
          return quantizeScalar(nb, l, s[0], scale, zp, 0.0f, 255.0f,
                                nb.getI8Type());
        },
        i8);
  return lw::elementwise(
      b, loc, {}, range,
      [out](OpBuilder &nb, Location l, ValueRange s) -> Value {
        auto [scale, zp] = scaleAndZeroPoint(nb, l, s[0], s[1]);
        if (out == 1)
          return scale;
        return nb.create<arith::FPToSIOp>(l, nb.getI8Type(), zp);
      },
      out == 1 ? f32 : i8);
}

/// QuantizeLinear with a run-time scalar scale: args x, scale[, zero point];
/// param `unsigned` (uint8 result range).
llvm::Expected<Value> quantizeLinear(OpBuilder &b, Location loc, ValueRange a,
                                     Type, const Params &p) {
  SYSTOLE_PARAM(unsignedOut, p.flag("unsigned"));
  if (a.size() < 2 || a.size() > 3)
    return p.fail("expects x, scale and an optional zero point");
  float lo = unsignedOut ? 0.0f : -128.0f, hi = unsignedOut ? 255.0f : 127.0f;
  Type i8 = b.getI8Type();
  return lw::elementwise(
      b, loc, shapeOf(a[0]), a,
      [&](OpBuilder &nb, Location l, ValueRange s) -> Value {
        Value zp = s.size() > 2 ? intToF32(nb, l, s[2], unsignedOut)
                                : cst(nb, l, 0.0f);
        return quantizeScalar(nb, l, s[0], s[1], zp, lo, hi, i8);
      },
      i8);
}

/// DequantizeLinear with a run-time scalar scale: args x, scale[, zero
/// point]; param `unsigned` (x is uint8).
llvm::Expected<Value> dequantizeLinear(OpBuilder &b, Location loc, ValueRange a,
                                       Type, const Params &p) {
  SYSTOLE_PARAM(uns, p.flag("unsigned"));
  if (a.size() < 2 || a.size() > 3)
    return p.fail("expects x, scale and an optional zero point");
  return lw::elementwise(
      b, loc, shapeOf(a[0]), a,
      [&](OpBuilder &nb, Location l, ValueRange s) -> Value {
        Value v = intToF32(nb, l, s[0], uns);
        if (s.size() > 2)
          v = nb.create<arith::SubFOp>(l, v, intToF32(nb, l, s[2], uns));
        return nb.create<arith::MulFOp>(l, v, s[1]);
      },
      b.getF32Type());
}

} // namespace
} // namespace dynquant

void registerDynamicQuantBodies(llvm::StringMap<HostBodyFn> &table) {
  table["DynamicQuantizeLinear"] = dynquant::dynamicQuantizeLinear;
  table["QuantizeLinear"] = dynquant::quantizeLinear;
  table["DequantizeLinear"] = dynquant::dequantizeLinear;
}

} // namespace systole::conversion::onnx
