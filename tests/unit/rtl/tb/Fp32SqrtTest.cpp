//===- Fp32SqrtTest.cpp - The RTL's binary32 square root vs std::sqrt -----===//
//
// Drives the Verilated tb_npu_fp32_sqrt (npu_fp32_sqrt_pkg::fsqrt alone)
// and asserts bit equality with the host's std::sqrt (sqrtss: IEEE
// binary32, round to nearest even), the square root of VLAYERNORM's
// isa::layerNormRow. A NaN result only has to be a NaN (as in
// Fp32UnitsTest.cpp: no NPU value exposes a payload; sqrtss of a negative
// gives 0xffc00000, the RTL the canonical 0x7fc00000).
//
//===----------------------------------------------------------------------===//
#include "Vtb_npu_fp32_sqrt.h"
#include "verilated.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>

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
std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

// Random binary32 patterns of every class: any bits, specials' neighbours,
// subnormals, tiny and huge normals, values near 1.
struct Gen {
  std::mt19937_64 rng;
  explicit Gen(uint64_t seed) : rng(seed) {}
  uint32_t u32() { return uint32_t(rng()); }
  uint32_t withExp(uint32_t exp) {
    uint32_t m = u32() & 0x7fffff;
    if (rng() % 3 == 0) // few mantissa bits: squares and near-squares
      m &= ~((1u << (rng() % 24)) - 1) & 0x7fffff;
    return (u32() & 0x80000000u) | (exp << 23) | m;
  }
  uint32_t f32() {
    switch (rng() % 6) {
    case 0:
      return u32();
    case 1:
      return (u32() & 0x80000000u) | (u32() & 0x7fffff); // subnormal
    case 2:
      return withExp(1 + uint32_t(rng() % 20));
    case 3:
      return withExp(235 + uint32_t(rng() % 20));
    default:
      return withExp(107 + uint32_t(rng() % 41));
    }
  }
};

constexpr int kVectors = 1000000;

// std::sqrt (sqrtss) on every significand: sqrt(m * 2^e) depends on m and
// e's parity only (a subnormal normalizes to the same pair), so the two
// binades [1, 4) sweep every root the digit-by-digit loop computes; then
// every 61st subnormal, random patterns of every class, and the specials.
// Counts exact roots (zero remainder) and roots within 2^-12 ulp of a
// rounding midpoint, where a wrong sticky bit or off-by-one root shows.
TEST(Fp32Units, SqrtAgainstHostIeee) {
  auto ctx = std::make_unique<VerilatedContext>();
  auto dut = std::make_unique<Vtb_npu_fp32_sqrt>(ctx.get());
  Gen gen(6);
  int failures = 0;
  uint64_t vectors = 0, exact = 0, nearTies = 0, subnormals = 0, nans = 0;
  auto check = [&](uint32_t a) {
    dut->a = a;
    dut->eval();
    volatile float fa = F(a);
    uint32_t ref = B(std::sqrt(float(fa)));
    ++vectors;
    nans += isNan(ref);
    subnormals += (a & 0x7f800000u) == 0 && (a & 0x7fffffu) != 0;
    if (!isNan(ref) && !std::isinf(F(ref)) && F(ref) != 0) {
      double r = std::sqrt(double(fa)); // exact to 53 bits: 29 below a float's
      float lo = F(ref), hi = std::nextafter(lo, INFINITY);
      double mid = (double(lo) + double(hi)) / 2;
      double ulp = double(hi) - double(lo);
      exact += double(lo) * double(lo) == double(fa);
      nearTies += std::fabs(r - mid) < ulp * 0x1p-12;
    }
    if (!sameF32(dut->y, ref) && failures < 10) {
      ++failures;
      ADD_FAILURE() << "fsqrt(" << hex(a) << "): rtl " << hex(dut->y)
                    << ", ref " << hex(ref);
    }
  };
  for (uint32_t a = 0x3f800000u; a < 0x40800000u; ++a)
    check(a);
  for (uint32_t m = 0; m < 0x800000u; m += 61)
    check(m), check(0x80000000u | m);
  for (int i = 0; i < kVectors; ++i)
    check(gen.f32());
  for (uint32_t a :
       {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
        0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fbfffffu, 0x00000001u,
        0x80000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0xff7fffffu,
        0x3f800000u, 0xbf800000u})
    check(a);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(exact, 2000u);
  EXPECT_GT(nearTies, 1000u);
  EXPECT_GT(subnormals, 100000u);
  EXPECT_GT(nans, 10000u);
  std::printf("%llu vectors: %llu exact roots, %llu within 2^-12 ulp of a "
              "tie, %llu subnormal inputs, %llu NaN results\n",
              (unsigned long long)vectors, (unsigned long long)exact,
              (unsigned long long)nearTies, (unsigned long long)subnormals,
              (unsigned long long)nans);
}

} // namespace
