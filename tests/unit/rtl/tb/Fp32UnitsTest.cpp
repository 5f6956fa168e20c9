//===- Fp32UnitsTest.cpp - The RTL's binary32 units vs the simulator ------===//
//
// Drives the Verilated tb_npu_fp32 (every fp32 unit of rtl/npu_fp32_*_pkg.sv
// and the REQUANT / vector / POOL lanes) with random and edge-case vectors
// and asserts bit equality with the simulator's semantics: the host's IEEE
// binary32 arithmetic (-ffp-contract=off, std::fma) and the functions of
// simulator/lib/Semantics.cpp (sim::roundHalfEven, sim::requantizeValue).
// A NaN result only has to be a NaN: every fp32 value of the NPU ends in
// cvtps2dq or _mm_max/min_ps, which never see the payload.
//
//===----------------------------------------------------------------------===//
#include "Vtb_npu_fp32.h"
#include "verilated.h"

#include "systole/ISA/Instruction.h"
#include "systole/Simulator/Semantics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>

using namespace systole;

namespace {

float F(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint32_t B(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
bool isNan(uint32_t b) {
  return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu);
}
bool sameF32(uint32_t rtl, uint32_t ref) {
  return rtl == ref || (isNan(rtl) && isNan(ref));
}

// Random binary32 patterns, weighted toward the cases that break units:
// specials, subnormals, values near 1 (carry / cancellation) and short
// mantissas (ties).
struct Gen {
  std::mt19937_64 rng;
  explicit Gen(uint64_t seed) : rng(seed) {}
  uint32_t u32() { return uint32_t(rng()); }
  int32_t range(int32_t lo, int32_t hi) {
    return int32_t(lo + int64_t(rng() % uint64_t(int64_t(hi) - lo + 1)));
  }
  uint32_t special() {
    static const uint32_t s[] = {
        0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
        0xffc00000, 0x7f800001, 0x00000001, 0x80000001, 0x007fffff,
        0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000,
        0x3f000000, 0x4f000000, 0xcf000000, 0x4effffff, 0xcf000001};
    return s[rng() % (sizeof(s) / sizeof(s[0]))];
  }
  uint32_t withExp(int exp) { // biased exponent, random sign and mantissa
    uint32_t m = u32() & 0x7fffff;
    if (rng() % 3 == 0) // few mantissa bits: exact ties after alignment
      m &= ~((1u << (rng() % 24)) - 1) & 0x7fffff;
    return (u32() & 0x80000000u) | (uint32_t(exp) << 23) | m;
  }
  uint32_t f32() {
    switch (rng() % 8) {
    case 0:
      return u32();
    case 1:
      return special();
    case 2:
      return (u32() & 0x80000000u) | (u32() & 0x7fffff); // subnormal
    case 3:
      return withExp(range(1, 20)); // tiny normals
    case 4:
      return withExp(range(235, 254)); // huge normals
    default:
      return withExp(range(107, 147)); // around 1
    }
  }
  // b near a: close exponents, cancellation and ties in add/fma.
  uint32_t near(uint32_t a) {
    if (rng() % 8 == 0) // -a, or -a with its low bits changed: cancellation
      return (a ^ 0x80000000u) ^ (rng() % 2 ? 0 : uint32_t(rng() % 16));
    int e = int((a >> 23) & 0xff) + range(-26, 26);
    if (e < 0 || e > 254 || rng() % 4 == 0)
      return f32();
    uint32_t b = withExp(e);
    if (rng() % 2)
      b = (b & 0x7fffffffu) | (~a & 0x80000000u); // opposite sign
    return b;
  }
  // A requant / pool scale: mostly the small positive normals ORT uses.
  uint32_t scale() {
    switch (rng() % 6) {
    case 0:
      return f32();
    case 1:
      return withExp(range(120, 126)) & 0x7fffffffu &
             ~((1u << range(10, 23)) - 1);
    default:
      return withExp(range(100, 127)) & 0x7fffffffu;
    }
  }
  int32_t acc() {
    switch (rng() % 4) {
    case 0:
      return int32_t(u32());
    case 1:
      return range(-300, 300);
    default:
      return range(-(1 << 20), 1 << 20);
    }
  }
};

struct Dut {
  std::unique_ptr<VerilatedContext> ctx = std::make_unique<VerilatedContext>();
  std::unique_ptr<Vtb_npu_fp32> m = std::make_unique<Vtb_npu_fp32>(ctx.get());
  void zero() {
    m->a = m->b = m->c = m->d = m->e = m->f = m->g = m->h = m->k = 0;
    m->mode = 0;
    m->flag = 0;
  }
};

// The vector counts keep the suite a few seconds (docs/rtl.md).
constexpr int kVectors = 1000000;

// Whether the exact value x (a double holding it exactly) lies halfway
// between two binary32 values: the round-to-even case.
bool isTie(double x) {
  float r = float(x);
  if (double(r) == x || std::isinf(r))
    return false;
  float o = std::nextafter(r, x > double(r) ? INFINITY : -INFINITY);
  return std::fabs(x - double(r)) == std::fabs(double(o) - x);
}

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

TEST(Fp32Units, AddMulFmaDivAgainstHostIeee) {
  Dut dut;
  Gen gen(1);
  dut.zero();
  int failures = 0;
  // Coverage of the cases that break rounding logic (asserted below).
  int addTies = 0, mulTies = 0, subnormals = 0, overflows = 0, cancels = 0;
  for (int i = 0; i < kVectors && failures < 10; ++i) {
    uint32_t a = gen.f32();
    uint32_t b = i % 2 ? gen.near(a) : gen.f32();
    uint32_t c = i % 3 ? gen.near(B(F(a) * F(b))) : gen.f32();
    dut.m->a = a;
    dut.m->b = b;
    dut.m->c = c;
    dut.m->eval();
    volatile float fa = F(a), fb = F(b), fc = F(c);
    uint32_t add = B(fa + fb), mul = B(fa * fb), div = B(fa / fb),
             fma = B(std::fma(float(fa), float(fb), float(fc)));
    double exactMul = double(fa) * double(fb),
           exactAdd = double(fa) + double(fb);
    mulTies += isTie(exactMul);
    if (exactAdd - double(fa) == double(fb) &&
        exactAdd - double(fb) == double(fa))
      addTies += isTie(exactAdd); // the double sum is exact
    subnormals +=
        (mul & 0x7f800000u) == 0 && (mul & 0x7fffffu) != 0 && exactMul != 0;
    overflows += std::isinf(F(mul)) && !std::isinf(fa) && !std::isinf(fb);
    cancels += add == 0 && fa != 0 && fb != 0;
    auto check = [&](const char *op, uint32_t rtl, uint32_t ref) {
      if (!sameF32(rtl, ref)) {
        ++failures;
        ADD_FAILURE() << op << "(" << hex(a) << ", " << hex(b) << ", " << hex(c)
                      << "): rtl " << hex(rtl) << ", ref " << hex(ref);
      }
    };
    check("fadd", dut.m->add_y, add);
    check("fmul", dut.m->mul_y, mul);
    check("ffma", dut.m->fma_y, fma);
    check("fdiv", dut.m->div_y, div);
  }
  EXPECT_GT(addTies, 1000);
  EXPECT_GT(mulTies, 1000);
  EXPECT_GT(subnormals, 1000);
  EXPECT_GT(overflows, 1000);
  EXPECT_GT(cancels, 1000);
  std::printf("%d vectors: %d add ties, %d mul ties, %d subnormal products, %d "
              "overflows, "
              "%d exact cancellations\n",
              kVectors, addTies, mulTies, subnormals, overflows, cancels);
}

TEST(Fp32Units, ConversionsAndMinMax) {
  Dut dut;
  Gen gen(2);
  dut.zero();
  int failures = 0;
  for (int i = 0; i < kVectors && failures < 10; ++i) {
    uint32_t a;
    switch (i % 4) {
    case 0: // integers as floats and k + 1/2 ties for cvtps2dq
      a = B(float(gen.range(-5000, 5000)) * (i % 8 == 0 ? 0.5f : 1.0f));
      break;
    case 1:
      a = gen.withExp(gen.range(120, 160));
      break;
    default:
      a = i % 8 == 2 ? gen.acc() : gen.f32();
    }
    uint32_t b = i % 2 ? gen.near(a) : gen.f32();
    dut.m->a = a;
    dut.m->b = b;
    dut.m->eval();
    float fa = F(a), fb = F(b);
    auto check = [&](const char *op, uint32_t rtl, uint32_t ref, bool fp) {
      if (fp ? !sameF32(rtl, ref) : rtl != ref) {
        ++failures;
        ADD_FAILURE() << op << "(" << hex(a) << ", " << hex(b) << "): rtl "
                      << hex(rtl) << ", ref " << hex(ref);
      }
    };
    check("itof", dut.m->itof_y, B(float(int32_t(a))), false);
    check("rne_int", dut.m->toint_y, uint32_t(sim::roundHalfEven(fa)), false);
    // _mm_max_ps / _mm_min_ps are exact selections: the bits must match.
    check("fmaxps", dut.m->max_y, B(fa > fb ? fa : fb), false);
    check("fminps", dut.m->min_y, B(fa < fb ? fa : fb), false);
  }
}

TEST(Fp32Units, RequantLaneAgainstRequantizeValue) {
  Dut dut;
  Gen gen(3);
  dut.zero();
  int failures = 0, ties = 0, clamped = 0, nans = 0;
  for (int i = 0; i < kVectors && failures < 10; ++i) {
    int32_t acc = gen.acc(), bias = gen.acc();
    uint32_t scale = gen.scale();
    if (i % 16 == 0) // ties: a power-of-two scale and an odd accumulator
      scale = uint32_t(gen.range(118, 126)) << 23;
    bool u8 = i % 3 == 0;
    int32_t zp = u8 ? gen.range(0, 255) : gen.range(-128, 127);
    int32_t lo = u8 ? gen.range(0, 255) : gen.range(-128, 127);
    int32_t hi = u8 ? gen.range(0, 255) : gen.range(-128, 127);
    if (i % 2) { // the usual full range
      lo = u8 ? 0 : -128;
      hi = u8 ? 255 : 127;
    }
    bool biasEn = i % 2;
    dut.m->a = uint32_t(acc);
    dut.m->b = uint32_t(bias);
    dut.m->c = scale;
    dut.m->d = uint32_t(zp);
    dut.m->e = uint32_t(lo);
    dut.m->f = uint32_t(hi);
    dut.m->flag = biasEn;
    dut.m->eval();
    // Semantics.cpp: the bias adds with wraparound, then requantizeValue.
    int32_t v = biasEn ? int32_t(uint32_t(acc) + uint32_t(bias)) : acc;
    int32_t y = sim::requantizeValue(v, F(scale), zp, lo, hi);
    float f = float(v) * F(scale);
    ties += std::fabs(f) < 1e9f && f - std::floor(f) == 0.5f;
    clamped += !std::isnan(f) && (f < float(lo - zp) || f > float(hi - zp));
    nans += std::isnan(f);
    if (uint32_t(dut.m->rq_y) != uint32_t(y) ||
        dut.m->rq_lut != uint8_t(y + 128)) {
      ++failures;
      ADD_FAILURE() << "requant(acc " << acc << ", bias " << (biasEn ? bias : 0)
                    << ", scale " << hex(scale) << ", zp " << zp << ", [" << lo
                    << ", " << hi << "]): rtl " << int32_t(dut.m->rq_y)
                    << ", ref " << y;
    }
  }
  EXPECT_GT(ties, 1000);
  EXPECT_GT(clamped, 1000);
  EXPECT_GT(nans, 100);
  std::printf("%d vectors: %d rne ties, %d clamped, %d NaN products\n",
              kVectors, ties, clamped, nans);
}

int32_t clampI32(int32_t v, int32_t lo, int32_t hi) {
  return std::min(std::max(v, lo), hi);
}

TEST(Fp32Units, VectorLaneAgainstVaddVmulSemantics) {
  Dut dut;
  Gen gen(4);
  dut.zero();
  int failures = 0;
  for (int i = 0; i < kVectors && failures < 10; ++i) {
    bool add = i % 2, u8 = i % 3 == 0;
    int32_t dlo = u8 ? 0 : -128, dhi = u8 ? 255 : 127;
    int32_t av = gen.range(dlo, dhi), bv = gen.range(dlo, dhi);
    uint32_t mode = uint32_t(gen.range(0, 4));
    uint32_t ra = gen.scale(), rb = gen.scale(), fixed;
    if (i % 4 < 2)
      fixed = B(float(gen.range(-300, 300)) + F(gen.scale()));
    else
      fixed = gen.f32();
    int32_t azp = gen.range(dlo, dhi), bzp = gen.range(dlo, dhi),
            ozp = gen.range(dlo, dhi);
    int32_t lo = i % 5 ? dlo : gen.range(dlo, dhi),
            hi = i % 5 ? dhi : gen.range(dlo, dhi);
    dut.m->flag = add;
    dut.m->mode = mode;
    dut.m->a = uint32_t(av);
    dut.m->b = uint32_t(bv);
    dut.m->c = ra;
    dut.m->d = add ? rb : uint32_t(ozp);
    dut.m->e = fixed;
    dut.m->f = uint32_t(azp);
    dut.m->g = uint32_t(bzp);
    dut.m->h = uint32_t(lo);
    dut.m->k = uint32_t(hi);
    dut.m->eval();
    float t;
    if (add) {
      t = sim::addValue(mode, float(av), float(bv), F(ra), F(rb), F(fixed));
    } else {
      int32_t p = (av - azp) * (bv - bzp);
      t = float(p) * F(ra);
      t = t + float(ozp);
    }
    int32_t y = clampI32(sim::roundHalfEven(t), lo, hi);
    if (int32_t(dut.m->vec_y) != y) {
      ++failures;
      ADD_FAILURE() << (add ? "vadd mode " : "vmul ") << (add ? mode : 0)
                    << " (a " << av << ", b " << bv << ", ra " << hex(ra)
                    << ", rb " << hex(rb) << ", fixed " << hex(fixed)
                    << ", zps " << azp << "/" << bzp << "/" << ozp << "): rtl "
                    << int32_t(dut.m->vec_y) << ", ref " << y;
    }
  }
}

TEST(Fp32Units, PoolLaneAgainstPoolSemantics) {
  Dut dut;
  Gen gen(5);
  dut.zero();
  int failures = 0;
  for (int i = 0; i < kVectors && failures < 10; ++i) {
    bool u8 = i % 3 == 0;
    int32_t dlo = u8 ? 0 : -128, dhi = u8 ? 255 : 127;
    uint32_t facc =
        i % 2 ? B(float(gen.range(-20000, 20000)) * F(gen.scale())) : gen.f32();
    int32_t v = gen.range(dlo, dhi), inZp = gen.range(dlo, dhi),
            outZp = gen.range(dlo, dhi);
    uint32_t scale = gen.scale(), outScale = gen.scale();
    uint32_t div = i % 8 ? B(float(gen.range(1, 64))) : gen.f32();
    int32_t sum = i % 2 ? gen.range(-128 * 64, 255 * 64) : gen.acc();
    int32_t lo = i % 5 ? dlo : gen.range(dlo, dhi),
            hi = i % 5 ? dhi : gen.range(dlo, dhi);
    dut.m->a = i % 4 < 2 ? facc : uint32_t(sum);
    dut.m->b = uint32_t(v);
    dut.m->c = uint32_t(inZp);
    dut.m->d = scale;
    dut.m->e = div;
    dut.m->f = outScale;
    dut.m->g = uint32_t(outZp);
    dut.m->h = uint32_t(lo);
    dut.m->k = uint32_t(hi);
    dut.m->eval();
    // executePool's expressions, in its order.
    float fa = F(dut.m->a);
    uint32_t step = B(fa + F(scale) * float(v - inZp));
    float q = fa / F(div);
    int32_t avg =
        clampI32(sim::roundHalfEven(q / F(outScale) + float(outZp)), lo, hi);
    int32_t avgInt =
        sim::requantizeValue(int32_t(dut.m->a), F(scale), outZp, lo, hi);
    if (!sameF32(dut.m->pool_step_y, step) ||
        int32_t(dut.m->pool_avg_y) != avg ||
        int32_t(dut.m->pool_int_y) != avgInt) {
      ++failures;
      ADD_FAILURE() << "pool(acc " << hex(dut.m->a) << ", v " << v << ", in_zp "
                    << inZp << ", scale " << hex(scale) << ", div " << hex(div)
                    << ", out_scale " << hex(outScale) << ", out_zp " << outZp
                    << "): step rtl " << hex(dut.m->pool_step_y) << " ref "
                    << hex(step) << ", avg_float rtl "
                    << int32_t(dut.m->pool_avg_y) << " ref " << avg
                    << ", avg_int rtl " << int32_t(dut.m->pool_int_y) << " ref "
                    << avgInt;
    }
  }
}

} // namespace
