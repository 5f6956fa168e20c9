//===- QuantizeLinear.h - ONNX Runtime's scalar quantize / dequantize -----===//
//
// One element of QuantizeLinear and DequantizeLinear as ORT's x86 kernels
// compute them. The runtime's builtin kernels and the compiler's
// compile-time tables (npu-fold-tables) call these same functions.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SUPPORT_QUANTIZELINEAR_H
#define SYSTOLE_SUPPORT_QUANTIZELINEAR_H

#include <cstdint>

namespace systole::rt {

/// QuantizeLinear (per tensor): the x86 MLAS arithmetic, fl(x / scale)
/// clamped to [qmin - zp, qmax - zp] (NaN -> qmin - zp), round half to
/// even, + zp.
int32_t quantizeLinear(float x, float scale, int32_t zeroPoint, int32_t qmin,
                       int32_t qmax);
/// DequantizeLinear: fl(float(q - zp) * scale).
float dequantizeLinear(int32_t q, float scale, int32_t zeroPoint);

} // namespace systole::rt

#endif // SYSTOLE_SUPPORT_QUANTIZELINEAR_H
