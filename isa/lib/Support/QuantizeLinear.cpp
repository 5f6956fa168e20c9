//===- QuantizeLinear.cpp - ONNX Runtime's scalar quantize / dequantize ---===//
#include "systole/Support/QuantizeLinear.h"

#include <cmath>

using namespace systole;

// MLAS MlasQuantizeLinear (x86, SSE2 MlasQuantizeLinearVector): divide (not
// multiply by a reciprocal), _mm_max_ps(x, qmin - zp), _mm_min_ps(x, qmax - zp)
// (a NaN input takes the second operand, so it becomes qmin - zp),
// _mm_cvtps_epi32 (RNE), + zp.
int32_t rt::quantizeLinear(float x, float scale, int32_t zp, int32_t qmin,
                           int32_t qmax) {
  float v = x / scale;
  float lo = static_cast<float>(qmin - zp), hi = static_cast<float>(qmax - zp);
  v = v > lo ? v : lo;
  v = v < hi ? v : hi;
  return static_cast<int32_t>(std::nearbyint(v)) + zp;
}

float rt::dequantizeLinear(int32_t q, float scale, int32_t zp) {
  return static_cast<float>(q - zp) * scale;
}
