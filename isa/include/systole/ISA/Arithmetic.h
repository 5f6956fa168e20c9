//===- Arithmetic.h - The exact element arithmetic of the ISA ---*- C++ -*-===//
//
// The value every vector/post-processing instruction computes for one
// element (docs/isa.md §4-5), in one place: the simulators execute with it
// and the compiler evaluates it when it folds a chain of such operations
// into a table (npu-fuse-gate), so both agree bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_ISA_ARITHMETIC_H
#define SYSTOLE_ISA_ARITHMETIC_H

#include <cstdint>

namespace systole::isa {

/// x86 cvtps2dq: round half to even; NaN and |v| >= 2^31 give INT32_MIN.
int32_t roundHalfEven(float v);
/// Requantization of one int32 value (REQUANT, POOL avg_int): fp32
/// product, clamp to [lo, hi] - zp (NaN -> lo), round half to even, + zp.
int32_t requantizeValue(int32_t acc, float scale, int32_t zp, int32_t lo,
                        int32_t hi);
/// VADD's fp32 value of one element: a*ra + b*rb + fixed in the evaluation
/// order of ORT's AVX2 (fma*) or SSE2 (mul_add*) QLinearAdd kernel, `mode`
/// an isa::AddMode.
float addValue(uint64_t mode, float a, float b, float ra, float rb,
               float fixed);
/// VMUL's result for one element (QLinearMul): p = (a - aZp) * (b - bZp)
/// exactly, t = fl(fl(float(p) * ratio) + float(oZp)), rne, clamped to
/// [lo, hi].
int32_t mulValue(int32_t a, int32_t b, int32_t aZp, int32_t bZp, int32_t oZp,
                 float ratio, int32_t lo, int32_t hi);

/// VSOFTMAX on one row of `n` codes `x` (int8 domain), ORT's QLinearSoftmax:
/// the row maximum m, entries e = table[255 - (m - x)], their fp32 sum in
/// row order, then per element rne(fl(fl(e * c) / sum)) converted as the
/// kernel converts (int8: cvtss2si to int32; uint8: to int64, low 32
/// bits; out of range: INT32_MIN / 0), + zp modulo 2^32, and stored as the
/// byte 0xff above 255 (unsigned compare with `u8`) or the low byte.
void softmaxRow(const int8_t *x, uint64_t n, const float table[256], float c,
                int32_t zp, bool u8, uint8_t *out);

/// VLAYERNORM on one row of `n` codes `x` (int8 domain): ONNX Runtime's
/// DequantizeLinear -> LayerNormalization (LayerNormImpl, float stash) ->
/// QuantizeLinear. x_i = fl((x_i - xZp) * xScale); s = sum x_i and s2 =
/// sum fl(x_i * x_i) in row order from +0; mean = s / n, d = sqrt(fl(s2 /
/// n - fl(mean * mean)) + eps); y_i = fl(fl((x_i - mean) / d) * gamma_i)
/// (+ beta_i), quantized as MlasQuantizeLinear (divide, clamp, rne) to
/// int8 codes with `yZp`. `beta` may be null (no bias term).
void layerNormRow(const int8_t *x, uint64_t n, float xScale, int32_t xZp,
                  const float *gamma, const float *beta, float eps,
                  float yScale, int32_t yZp, int8_t *out);

/// MlasQuantizeLinear of one fp32 value to an int8-domain code with `yZp`:
/// v = fl(y / yScale), clamped to [-128 - yZp, 127 - yZp] (NaN -> the lower
/// bound, _mm_max_ps), rne, + yZp.
int8_t quantizeLinear(float y, float yScale, int32_t yZp);

/// VBINARY's value of one element: Q(op(fl((a - aZp) * aScale), fl((b -
/// bZp) * bScale))), `op` an isa::BinaryOp (one IEEE operation), quantized
/// with quantizeLinear.
int8_t binaryValue(uint64_t op, int32_t a, int32_t b, float aScale, int32_t aZp,
                   float bScale, int32_t bZp, float oScale, int32_t oZp);
/// VBINARY's value with an fp32 B (b_f32): Q(op(fl((a - aZp) * aScale), y)).
int8_t binaryValueF32(uint64_t op, int32_t a, float aScale, int32_t aZp,
                      float y, float oScale, int32_t oZp);

/// Eigen's sum of `n` floats `v` (redux_impl, LinearVectorizedTraversal, SSE
/// packets of 4) where v[0] lies `phase` elements (mod 4) past a 16-byte
/// boundary: packets from the first aligned element, two accumulators over
/// pairs of packets, one more packet if odd, predux (p0 + p2) + (p1 + p3),
/// then the elements before the aligned start and after the last packet in
/// order. Without a whole packet: v[0] + v[1] + ... in order.
float eigenRowSum(const float *v, uint64_t n, uint64_t phase);

/// VREDUCE on one row of `n` codes `x` (int8 domain): ORT's ReduceSum or
/// ReduceMean (`mean`: the sum / n) over the dequantized row
/// fl((x_i - xZp) * xScale), summed as eigenRowSum, quantized with
/// quantizeLinear.
int8_t reduceRow(const int8_t *x, uint64_t n, uint64_t phase, bool mean,
                 float xScale, int32_t xZp, float yScale, int32_t yZp);

} // namespace systole::isa

#endif // SYSTOLE_ISA_ARITHMETIC_H
