//===- ImportDynamicQuant.cpp - Quantization with run-time parameters -----===//
//
// DynamicQuantizeLinear computes its scale and zero point from the data, and
// a QuantizeLinear/DequantizeLinear whose scale is a run-time value (the
// expansion of DynamicQuantizeLinear, dynamically quantized matmuls) cannot
// carry `!quant.uniform` types: both run on the host in float with ONNX
// Runtime's arithmetic (onnxruntime/core/providers/cpu/quantization/
// dynamicquantizelinear.cc and MLAS's QuantizeLinear):
//   min = min(0, min(x)), max = max(0, max(x)), scale = (max - min) / 255,
//   zero_point = round_half_even(clamp(0 - min / scale, 0, 255)),
//   y = clamp(round_half_even(x / scale) + zero_point, qmin, qmax).
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::frontend {

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

llvm::Error importDynamicQuantizeLinear(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  if (!elementOf(*x).isF32())
    return ic.fail("DynamicQuantizeLinear input must be float32");
  Type f32 = Float32Type::get(ic.ctx()), i8 = IntegerType::get(ic.ctx(), 8);
  // One host op per output: each recomputes the range (a reduction).
  for (int out = 0; out < ic.node->output_size(); ++out) {
    if (ic.node->output(out).empty())
      continue;
    auto y = ic.hostOp(
        *x,
        [&](OpBuilder &b, Location loc,
            ValueRange args) -> llvm::Expected<Value> {
          auto [mn, mx] = rangeWithZero(b, loc, args[0]);
          Value range[] = {mn, mx};
          if (out == 0)
            return lw::elementwise(
                b, loc, shapeOf(args[0]), {args[0], mn, mx},
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
        });
    if (!y)
      return y.takeError();
    if (auto e = ic.defineOutput(out, *y))
      return e;
  }
  return llvm::Error::success();
}

/// An integer element as fp32, read as unsigned or signed.
Value intToF32(OpBuilder &b, Location l, Value v, bool isUnsigned) {
  Type f32 = b.getF32Type();
  return isUnsigned ? Value(b.create<arith::UIToFPOp>(l, f32, v))
                    : Value(b.create<arith::SIToFPOp>(l, f32, v));
}

} // namespace

llvm::Error importHostQuantizeLinear(ImportContext &ic) {
  auto x = ic.input(0), scale = ic.input(1);
  if (!x)
    return x.takeError();
  if (!scale)
    return scale.takeError();
  if (!elementOf(*x).isF32() || !elementOf(*scale).isF32())
    return ic.fail("QuantizeLinear with a run-time scale needs float32 data "
                   "and scale");
  if (shapeOf(*scale).size() > 1 ||
      (shapeOf(*scale).size() == 1 && shapeOf(*scale)[0] != 1))
    return ic.notConstant(ic.constantInput(1) ? 2 : 1,
                          "per-axis quantization parameters");
  SmallVector<Value> ins{*x, *scale};
  bool unsignedOut = true; // ONNX's default without a zero point
  if (ic.hasInput(2)) {
    auto zp = ic.input(2);
    if (!zp)
      return zp.takeError();
    if (elementOf(*zp) != IntegerType::get(ic.ctx(), 8))
      return ic.fail("QuantizeLinear zero point must be int8 or uint8");
    unsignedOut = ic.isUnsignedInput(2);
    ins.push_back(*zp);
  }
  float lo = unsignedOut ? 0.0f : -128.0f, hi = unsignedOut ? 255.0f : 127.0f;
  Type i8 = IntegerType::get(ic.ctx(), 8);
  auto y = ic.hostOp(
      ins,
      [&](OpBuilder &b, Location loc,
          ValueRange args) -> llvm::Expected<Value> {
        return lw::elementwise(
            b, loc, shapeOf(args[0]), args,
            [&](OpBuilder &nb, Location l, ValueRange s) -> Value {
              Value zp = s.size() > 2 ? intToF32(nb, l, s[2], unsignedOut)
                                      : cst(nb, l, 0.0f);
              return quantizeScalar(nb, l, s[0], s[1], zp, lo, hi, i8);
            },
            i8);
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

llvm::Error importHostDequantizeLinear(ImportContext &ic) {
  auto x = ic.input(0), scale = ic.input(1);
  if (!x)
    return x.takeError();
  if (!scale)
    return scale.takeError();
  if (!isa<IntegerType>(elementOf(*x)) || !elementOf(*scale).isF32())
    return ic.fail("DequantizeLinear with a run-time scale needs integer "
                   "data and a float32 scale");
  if (shapeOf(*scale).size() > 1 ||
      (shapeOf(*scale).size() == 1 && shapeOf(*scale)[0] != 1))
    return ic.notConstant(ic.constantInput(1) ? 2 : 1,
                          "per-axis quantization parameters");
  SmallVector<Value> ins{*x, *scale};
  if (ic.hasInput(2)) {
    auto zp = ic.input(2);
    if (!zp)
      return zp.takeError();
    if (elementOf(*zp) != elementOf(*x))
      return ic.fail("DequantizeLinear zero point type differs from data");
    ins.push_back(*zp);
  }
  bool uns = ic.isUnsignedInput(0);
  auto y = ic.hostOp(
      ins,
      [&](OpBuilder &b, Location loc,
          ValueRange args) -> llvm::Expected<Value> {
        return lw::elementwise(
            b, loc, shapeOf(args[0]), args,
            [&](OpBuilder &nb, Location l, ValueRange s) -> Value {
              Value v = intToF32(nb, l, s[0], uns);
              if (s.size() > 2)
                v = nb.create<arith::SubFOp>(l, v, intToF32(nb, l, s[2], uns));
              return nb.create<arith::MulFOp>(l, v, s[1]);
            },
            Float32Type::get(ic.ctx()));
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

void registerDynamicQuantImporters(llvm::StringMap<OpImporter> &table) {
  table["DynamicQuantizeLinear"] = importDynamicQuantizeLinear;
}

} // namespace systole::frontend
