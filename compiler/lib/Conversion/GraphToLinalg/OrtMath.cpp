//===- OrtMath.cpp - Float functions computed as ONNX Runtime's MLAS does -===//
//
// Constants and operation order of onnxruntime/core/mlas/lib/logistic.cpp
// (MlasLogisticConstants) and x86_64/LogisticKernelFma3.S, the kernel ORT
// 1.23 dispatches on any x86-64 with AVX2/FMA3. math.fma is correctly
// rounded on every target we emit (libm fmaf, PTX fma.rn.f32), like
// vfmadd*ps.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/OrtMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace systole::conversion {

Value mlasLogistic(OpBuilder &b, Location loc, Value x) {
  auto c = [&](float v) -> Value {
    return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
  };
  auto fma = [&](Value a, Value m, Value add) -> Value {
    return b.create<math::FmaOp>(loc, a, m, add);
  };
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

} // namespace systole::conversion
