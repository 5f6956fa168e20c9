//===- OrtMath.h - Float functions computed as ONNX Runtime's MLAS does ---===//
//
// Where ORT computes a transcendental function with its own approximation
// (MLAS), the host fallback repeats that approximation operation for
// operation, so quantized models that round its result agree with ORT
// bit for bit instead of "within an ulp".
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_CONVERSION_ORTMATH_H
#define SYSTOLE_CONVERSION_ORTMATH_H

#include "mlir/IR/Builders.h"

namespace systole::conversion {

/// logistic(x) = 1 / (1 + e^-x) of a float32 scalar as MLAS's x86-64 FMA3
/// kernel computes it (MlasComputeLogistic, the kernel of ORT's Sigmoid and
/// of the table of com.microsoft.QLinearSigmoid): x clamped to [-18, 18],
/// odd/even rational polynomial in x^2 by fused multiply-adds, p / q + 0.5,
/// clamped below at 0.
mlir::Value mlasLogistic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

} // namespace systole::conversion

#endif // SYSTOLE_CONVERSION_ORTMATH_H
