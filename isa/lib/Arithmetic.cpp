//===- Arithmetic.cpp - The exact element arithmetic of the ISA -----------===//
//
// Each function is the ORT/MLAS kernel's arithmetic the instruction
// reproduces (docs/isa.md): fp32 operations in the kernel's order, each
// rounded on its own (no contraction into FMA except where the kernel uses
// one, std::fma).
//
//===----------------------------------------------------------------------===//
#include "systole/ISA/Arithmetic.h"
#include "systole/ISA/Instruction.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace systole::isa {

// x86 cvtps2dq under the default MXCSR: RNE; NaN and |t| >= 2^31 give
// INT32_MIN ("integer indefinite").
int32_t roundHalfEven(float v) {
  if (!(v > -2147483904.0f && v < 2147483648.0f)) // NaN fails both
    return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(std::nearbyint(v));
}

// _mm_max_ps(a, b) / _mm_min_ps(a, b): the second operand when a is NaN.
static float maxps(float a, float b) { return a > b ? a : b; }
static float minps(float a, float b) { return a < b ? a : b; }

// REQUANT: f = fl(fl(float(v)) * s), clamp to [lo - zp, hi - zp] in fp32
// (MlasRequantizeOutput's max/min order, so NaN becomes lo), rne, + zp.
int32_t requantizeValue(int32_t acc, float scale, int32_t zp, int32_t lo,
                        int32_t hi) {
  float f = static_cast<float>(acc) * scale;
  f = minps(maxps(f, static_cast<float>(lo - zp)), static_cast<float>(hi - zp));
  return roundHalfEven(f) + zp;
}

float addValue(uint64_t mode, float a, float b, float ra, float rb,
               float fixed) {
  switch (mode) {
  case AddMode_fma:
    return std::fma(a, ra, std::fma(b, rb, fixed));
  case AddMode_fma_scalar_b:
    return std::fma(a, ra, fixed + b * rb);
  case AddMode_fma_scalar_a:
    return std::fma(b, rb, fixed + a * ra);
  case AddMode_mul_add:
    return (fixed + a * ra) + b * rb;
  case AddMode_mul_add_scalar_b:
    return (fixed + b * rb) + a * ra;
  }
  return 0.0f;
}

// MlasQLinearMulKernel (SSE2): the product in int32, _mm_cvtepi32_ps,
// _mm_mul_ps(ratio), _mm_add_ps(zero point), _mm_cvtps_epi32, packs.
int32_t mulValue(int32_t a, int32_t b, int32_t aZp, int32_t bZp, int32_t oZp,
                 float ratio, int32_t lo, int32_t hi) {
  int32_t p = (a - aZp) * (b - bZp);
  volatile float t = float(p) * ratio; // rounded before the add
  float u = t + float(oZp);
  return std::min(std::max(roundHalfEven(u), lo), hi);
}

void softmaxRow(const int8_t *x, uint64_t n, const float table[256], float c,
                int32_t zp, bool u8, uint8_t *out) {
  if (n == 0)
    return;
  int32_t m = *std::max_element(x, x + n);
  auto entry = [&](uint64_t i) { return table[255 - (m - x[i])]; };
  float sum = 0.0f;
  for (uint64_t i = 0; i < n; ++i)
    sum = sum + entry(i);
  for (uint64_t i = 0; i < n; ++i) {
    float p = entry(i) * c;
    float q = std::nearbyint(p / sum);
    uint32_t v;
    if (!u8)
      v = (q < 2147483648.0f && q >= -2147483648.0f)
              ? uint32_t(int32_t(q))
              : uint32_t(std::numeric_limits<int32_t>::min());
    else
      v = (q < 9223372036854775808.0f && q >= -9223372036854775808.0f)
              ? uint32_t(uint64_t(int64_t(q)))
              : 0u;
    uint32_t w = v + uint32_t(zp);
    bool over = u8 ? w > 255u : int32_t(w) > 255;
    out[i] = over ? 0xff : uint8_t(w);
  }
}

void layerNormRow(const int8_t *x, uint64_t n, float xScale, int32_t xZp,
                  const float *gamma, const float *beta, float eps,
                  float yScale, int32_t yZp, int8_t *out) {
  auto dq = [&](uint64_t i) { return float(int32_t(x[i]) - xZp) * xScale; };
  float s = 0.0f, s2 = 0.0f;
  for (uint64_t i = 0; i < n; ++i) {
    float v = dq(i);
    s = s + v;
    float sq = v * v;
    s2 = s2 + sq;
  }
  float nf = float(n);
  float mean = s / nf;
  float ms = s2 / nf;
  float m2 = mean * mean;
  float var = ms - m2;
  float d = std::sqrt(var + eps);
  for (uint64_t i = 0; i < n; ++i) {
    float c = dq(i) - mean;
    float norm = c / d;
    float y = norm * gamma[i];
    if (beta)
      y = y + beta[i];
    out[i] = quantizeLinear(y, yScale, yZp);
  }
}

int8_t quantizeLinear(float y, float yScale, int32_t yZp) {
  // MlasQuantizeLinear's bounds: the int8 domain's [-128, 127] less yZp.
  float lo = float(-128 - yZp), hi = float(127 - yZp);
  float v = y / yScale;
  v = maxps(v, lo); // NaN becomes lo
  v = minps(v, hi);
  return int8_t(int32_t(std::nearbyint(v)) + yZp);
}

int8_t binaryValue(uint64_t op, int32_t a, int32_t b, float aScale, int32_t aZp,
                   float bScale, int32_t bZp, float oScale, int32_t oZp) {
  return binaryValueF32(op, a, aScale, aZp, float(b - bZp) * bScale, oScale,
                        oZp);
}

int8_t binaryValueF32(uint64_t op, int32_t a, float aScale, int32_t aZp,
                      float y, float oScale, int32_t oZp) {
  float x = float(a - aZp) * aScale;
  float r;
  switch (op) {
  case BinaryOp_add:
    r = x + y;
    break;
  case BinaryOp_sub:
    r = x - y;
    break;
  case BinaryOp_mul:
    r = x * y;
    break;
  default:
    r = x / y;
    break;
  }
  return quantizeLinear(r, oScale, oZp);
}

float eigenRowSum(const float *v, uint64_t n, uint64_t phase) {
  constexpr uint64_t kPacket = 4;
  uint64_t start = std::min<uint64_t>((kPacket - phase % kPacket) % kPacket, n);
  uint64_t size = n - start;
  uint64_t end1 = start + size / kPacket * kPacket;
  uint64_t end2 = start + size / (2 * kPacket) * (2 * kPacket);
  if (end1 == start) {
    float s = v[0];
    for (uint64_t i = 1; i < n; ++i)
      s = s + v[i];
    return s;
  }
  float p[kPacket], q[kPacket];
  for (uint64_t k = 0; k < kPacket; ++k)
    p[k] = v[start + k];
  if (end1 > start + kPacket) {
    for (uint64_t k = 0; k < kPacket; ++k)
      q[k] = v[start + kPacket + k];
    for (uint64_t i = start + 2 * kPacket; i < end2; i += 2 * kPacket)
      for (uint64_t k = 0; k < kPacket; ++k) {
        p[k] = p[k] + v[i + k];
        q[k] = q[k] + v[i + kPacket + k];
      }
    for (uint64_t k = 0; k < kPacket; ++k)
      p[k] = p[k] + q[k];
    if (end1 > end2)
      for (uint64_t k = 0; k < kPacket; ++k)
        p[k] = p[k] + v[end2 + k];
  }
  float lo = p[0] + p[2], hi = p[1] + p[3];
  float s = lo + hi;
  for (uint64_t i = 0; i < start; ++i)
    s = s + v[i];
  for (uint64_t i = end1; i < n; ++i)
    s = s + v[i];
  return s;
}

int8_t reduceRow(const int8_t *x, uint64_t n, uint64_t phase, bool mean,
                 float xScale, int32_t xZp, float yScale, int32_t yZp) {
  std::vector<float> v(n);
  for (uint64_t i = 0; i < n; ++i)
    v[i] = float(int32_t(x[i]) - xZp) * xScale;
  float s = eigenRowSum(v.data(), n, phase);
  if (mean)
    s = s / float(n);
  return quantizeLinear(s, yScale, yZp);
}

} // namespace systole::isa
