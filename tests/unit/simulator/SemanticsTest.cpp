//===- SemanticsTest.cpp - Integer semantics against hand-computed values -===//
#include "SimTestUtil.h"

#include "systole/Simulator/Semantics.h"

#include <cmath>
#include <random>

using namespace systole;
using namespace systole::sim;
using namespace systole::sim::test;

namespace {
struct Machine {
  isa::HwConfig cfg = preset("tiny-4x4");
  MachineState s = MachineState::create(cfg, 4096);
  void run(const Instruction &I) {
    auto f = checkInstruction(I, s);
    ASSERT_FALSE(f) << f->detail;
    noteIssue(I, s);
    executeInstruction(I, s);
  }
  int8_t sp(uint64_t a) const { return int8_t(s.scratchpad[a]); }
  void setF32(uint64_t word, float f) {
    s.accumulator[word] = int32_t(bitsOf(f));
  }
};

Instruction requant(uint64_t M, uint64_t N, int zp, int lo, int hi,
                    bool perTensor) {
  Instruction I(Opcode::Requant);
  I.with(F::Requant_m, M)
      .with(F::Requant_n, N)
      .with(F::Requant_c_stride, N)
      .with(F::Requant_scale_addr, 512)
      .with(F::Requant_o_addr, 1000)
      .with(F::Requant_o_stride, N)
      .with(F::Requant_zp, zp)
      .with(F::Requant_lo, lo)
      .with(F::Requant_hi, hi)
      .with(F::Requant_per_tensor, perTensor);
  return I;
}
} // namespace

TEST(Requant, RoundsHalfToEvenAfterTheFp32Product) {
  Machine m;
  m.setF32(512, 0.5f);
  // v * 0.5: 1 -> 0.5 -> 0, 3 -> 1.5 -> 2, 5 -> 2.5 -> 2, 7 -> 3.5 -> 4,
  // -1 -> -0.5 -> -0, -3 -> -1.5 -> -2, -5 -> -2.5 -> -2, 4 -> 2 -> 2.
  int32_t in[8] = {1, 3, 5, 7, -1, -3, -5, 4};
  int8_t expect[8] = {0, 2, 2, 4, 0, -2, -2, 2};
  for (int i = 0; i < 8; ++i)
    m.s.accumulator[i] = in[i];
  m.run(requant(1, 8, 0, -128, 127, true));
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(m.sp(1000 + i), expect[i]) << "element " << i;
  // With zp = -3 the tie is broken before the zero point is added:
  // 2.5 -> 2 -> -1 (not rne(2.5 - 3) = -0 -> 0).
  m.run(requant(1, 8, -3, -128, 127, true));
  EXPECT_EQ(m.sp(1002), -1);
}

TEST(Requant, SaturatesClampsAndAppliesPerChannelScales) {
  Machine m;
  m.setF32(512, 0.5f);
  m.setF32(513, 0.25f);
  m.setF32(514, 1.0f);
  m.setF32(515, 3.0f);
  // Column scales 0.5, 0.25, 1, 3; zp = 10; ReLU-style clamp lo = 10.
  int32_t in[2][4] = {{1000, 10, -7, 30}, {-1000, 2, 117, -2}};
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 4; ++c)
      m.s.accumulator[r * 4 + c] = in[r][c];
  m.run(requant(2, 4, 10, 10, 127, false));
  // row 0: 500+10 -> 127; 2.5 -> 2 (+10) = 12; -7 -> 3 clamped to 10; 90+10 =
  // 100 row 1: -500 -> 10; 0.5 -> 0 -> 10; 117+10 -> 127; -6+10 = 4 -> 10
  int8_t expect[2][4] = {{127, 12, 10, 100}, {10, 10, 127, 10}};
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(m.sp(1000 + r * 4 + c), expect[r][c]) << r << "," << c;
  // The extreme int32 values saturate instead of wrapping.
  m.s.accumulator[0] = INT32_MIN;
  m.s.accumulator[1] = INT32_MAX;
  m.setF32(512, 1.0f);
  m.run(requant(1, 2, 0, -128, 127, true));
  EXPECT_EQ(m.sp(1000), -128);
  EXPECT_EQ(m.sp(1001), 127);
  // A NaN scale gives lo (MLAS's max/min order), an infinite one saturates.
  m.setF32(512, std::nanf(""));
  m.s.accumulator[0] = 5;
  m.run(requant(1, 1, 0, -20, 127, true));
  EXPECT_EQ(m.sp(1000), -20);
}

TEST(Requant, AddsThePerColumnBiasWithWraparoundBeforeScaling) {
  Machine m;
  m.setF32(512, 0.5f);
  m.setF32(513, 0.5f);
  m.s.accumulator[600] = 7;         // bias of column 0
  m.s.accumulator[601] = INT32_MAX; // bias of column 1: wraps with acc 2
  int32_t in[2][2] = {{1, 2}, {-9, -3}};
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c)
      m.s.accumulator[r * 2 + c] = in[r][c];
  Instruction I = requant(2, 2, 0, -128, 127, false);
  I.with(F::Requant_bias, 1).with(F::Requant_bias_addr, 600);
  m.run(I);
  // (1+7)*0.5 = 4; (2+INT32_MAX) wraps to INT32_MIN+1 -> saturates to -128;
  // (-9+7)*0.5 = -1; (-3+INT32_MAX)*0.5 = 1073741822 -> 127.
  EXPECT_EQ(m.sp(1000), 4);
  EXPECT_EQ(m.sp(1001), -128);
  EXPECT_EQ(m.sp(1002), -1);
  EXPECT_EQ(m.sp(1003), 127);
}

TEST(Requant, LutIsIndexedByTheValuePlus128) {
  Machine m;
  m.setF32(512, 1.0f);
  for (int i = 0; i < 256; ++i)
    m.s.scratchpad[2000 + i] = uint8_t(255 - i); // table[y + 128] = 127 - y
  m.s.accumulator[0] = -128;
  m.s.accumulator[1] = 0;
  m.s.accumulator[2] = 5;
  Instruction I = requant(1, 3, 0, -128, 127, true);
  I.with(F::Requant_lut, 1).with(F::Requant_lut_addr, 2000);
  m.run(I);
  EXPECT_EQ(uint8_t(m.sp(1000)), 255); // y = -128 -> table[0]
  EXPECT_EQ(uint8_t(m.sp(1001)), 127);
  EXPECT_EQ(uint8_t(m.sp(1002)), 122);
}

// Implicit im2col against a naive NHWC convolution: 3x3 kernel, stride 2,
// Cin = 3, Cout = 4, input tile 7 x 9 (already padded), asymmetric zero points,
// bias preloaded into ACC, K split into chunks with a_k_offset.
TEST(Matmul, ImplicitIm2colMatchesNaiveConvolution) {
  isa::HwConfig cfg = preset("default-32x32");
  MachineState s = MachineState::create(cfg, 0);
  const int H = 7, W = 9, Cin = 3, Cout = 4, kh = 3, kw = 3, sh = 2, sw = 2;
  const int OH = (H - kh) / sh + 1, OW = (W - kw) / sw + 1; // 3 x 4
  const int xZp = -5, wZp = 3;
  std::mt19937 rng(42);
  auto rnd = [&] { return int8_t(rng() % 256); };
  const uint64_t xAddr = 0, wAddr = 40000, cAddr = 100;
  std::vector<int8_t> x(H * W * Cin), w(kh * kw * Cin * Cout);
  for (auto &v : x)
    v = rnd();
  for (auto &v : w)
    v = rnd();
  std::memcpy(&s.scratchpad[xAddr], x.data(), x.size());
  // B rows kk = ky*(kw*Cin) + kx*Cin + ci, columns co.
  std::memcpy(&s.scratchpad[wAddr], w.data(), w.size());
  int32_t bias[Cout] = {1000, -7, 0, 123456};
  for (int m = 0; m < OH * OW; ++m)
    for (int co = 0; co < Cout; ++co)
      s.accumulator[cAddr + m * Cout + co] = bias[co];
  const int K = kh * kw * Cin; // 27, in chunks of 10, 10, 7
  for (int k0 = 0; k0 < K; k0 += 10) {
    int kc = std::min(10, K - k0);
    Instruction I(Opcode::Matmul);
    I.with(F::Matmul_dataflow, isa::Dataflow_os)
        .with(F::Matmul_accumulate, 1)
        .with(F::Matmul_a_zp, xZp)
        .with(F::Matmul_b_zp, wZp)
        .with(F::Matmul_a_addr, xAddr)
        .with(F::Matmul_a_m_inner, OW)
        .with(F::Matmul_a_m_inner_stride, sw * Cin)
        .with(F::Matmul_a_m_outer_stride, sh * W * Cin)
        .with(F::Matmul_a_k_inner, kw * Cin)
        .with(F::Matmul_a_k_outer_stride, W * Cin)
        .with(F::Matmul_a_k_offset, k0)
        .with(F::Matmul_m, OH * OW)
        .with(F::Matmul_k, kc)
        .with(F::Matmul_n, Cout)
        .with(F::Matmul_b_addr, wAddr + k0 * Cout)
        .with(F::Matmul_b_stride, Cout)
        .with(F::Matmul_c_addr, cAddr)
        .with(F::Matmul_c_stride, Cout);
    ASSERT_FALSE(checkInstruction(I, s));
    noteIssue(I, s);
    executeInstruction(I, s);
  }
  for (int oy = 0; oy < OH; ++oy)
    for (int ox = 0; ox < OW; ++ox)
      for (int co = 0; co < Cout; ++co) {
        int32_t ref = bias[co];
        for (int ky = 0; ky < kh; ++ky)
          for (int kx = 0; kx < kw; ++kx)
            for (int ci = 0; ci < Cin; ++ci) {
              int xv = x[((oy * sh + ky) * W + ox * sw + kx) * Cin + ci];
              int wv = w[((ky * kw + kx) * Cin + ci) * Cout + co];
              ref += (xv - xZp) * (wv - wZp);
            }
        EXPECT_EQ(s.accumulator[cAddr + (oy * OW + ox) * Cout + co], ref)
            << "oy " << oy << " ox " << ox << " co " << co;
      }
}

TEST(Matmul, WsReusesTheLatchedWeightsAndWrapsInt32) {
  Machine m;
  // B = [[1, 2], [3, 4]] at 64; A = [[1, 1], [2, -1]] at 0.
  int8_t b[4] = {1, 2, 3, 4}, a[4] = {1, 1, 2, -1};
  std::memcpy(&m.s.scratchpad[64], b, 4);
  std::memcpy(&m.s.scratchpad[0], a, 4);
  Instruction I = matmul(isa::Dataflow_ws, 2, 2, 2, true, 0, 64, 0);
  m.run(I);
  EXPECT_EQ(m.s.accumulator[0], 4);  // 1*1 + 1*3
  EXPECT_EQ(m.s.accumulator[1], 6);  // 1*2 + 1*4
  EXPECT_EQ(m.s.accumulator[2], -1); // 2*1 - 3
  EXPECT_EQ(m.s.accumulator[3], 0);  // 2*2 - 4
  // Overwrite B in SP: a preload=0 matmul still uses the latched weights.
  std::memset(&m.s.scratchpad[64], 0, 4);
  I.set(F::Matmul_preload, 0);
  I.set(F::Matmul_accumulate, 1);
  m.run(I);
  EXPECT_EQ(m.s.accumulator[0], 8);
  // Wraparound: INT32_MAX + 4.
  m.s.accumulator[0] = INT32_MAX;
  m.run(I);
  EXPECT_EQ(m.s.accumulator[0], INT32_MIN + 3);
  // An OS matmul clobbers the array: reuse after it is a fault.
  m.run(matmul(isa::Dataflow_os, 1, 1, 1, false, 0, 64, 100));
  auto f = checkInstruction(I, m.s);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, FaultKind::WeightReuseMismatch);
}

namespace {
Instruction vadd(uint64_t mode, float ra, float rb, float fixed, uint64_t n) {
  Instruction I(Opcode::Vadd);
  I.with(F::Vadd_mode, mode)
      .with(F::Vadd_n0, n)
      .with(F::Vadd_n1, 1)
      .with(F::Vadd_a_addr, 0)
      .with(F::Vadd_b_addr, 100)
      .with(F::Vadd_o_addr, 200)
      .with(F::Vadd_lo, -128)
      .with(F::Vadd_hi, 127);
  I.setF32(F::Vadd_ratio_a, ra);
  I.setF32(F::Vadd_ratio_b, rb);
  I.setF32(F::Vadd_fixed, fixed);
  return I;
}
} // namespace

TEST(Vadd, ValuesTiesAndSaturation) {
  Machine m;
  // t = 0.5 a + 0.25 b + 1: (3,2) -> 3; (1,0) -> 1.5 -> 2; (-1,0) -> 0.5 -> 0;
  // (127,127) -> 63.5 + 31.75 + 1 = 96.25 -> 96; (-128,-128) -> -95;
  // (5,2) -> 4 exactly.
  int8_t a[6] = {3, 1, -1, 127, -128, 5}, b[6] = {2, 0, 0, 127, -128, 2};
  std::memcpy(&m.s.scratchpad[0], a, 6);
  std::memcpy(&m.s.scratchpad[100], b, 6);
  m.run(vadd(isa::AddMode_fma, 0.5f, 0.25f, 1.0f, 6));
  int8_t expect[6] = {3, 2, 0, 96, -95, 4};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(m.sp(200 + i), expect[i]) << i;
  // Saturation at the clamp: ratio 2 -> 254 -> 127 (hi = 127).
  m.run(vadd(isa::AddMode_mul_add, 2.0f, 0.0f, 0.0f, 6));
  EXPECT_EQ(m.sp(203), 127);
  EXPECT_EQ(m.sp(204), -128);
}

TEST(Vadd, FmaAndSeparateRoundingDiffer) {
  // ratio_a = 1 + 2^-23, a = 3: the exact product 3 + 1.5 ulp(3) rounds (tie
  // to even) to 3 + 2^-21 when rounded separately. fixed = -1.5 - 2^-21:
  //   mul_add: fl(fixed + (3 + 2^-21)) = 1.5 -> rne 2
  //   fma    : 3 + 3*2^-23 - 1.5 - 2^-21 = 1.5 - 2^-23 (exact) -> 1
  Machine m;
  m.s.scratchpad[0] = 3;
  m.s.scratchpad[100] = 0;
  float ra = 1.0f + std::ldexp(1.0f, -23);
  float fixed = -1.5f - std::ldexp(1.0f, -21);
  m.run(vadd(isa::AddMode_fma, ra, 0.0f, fixed, 1));
  EXPECT_EQ(m.sp(200), 1);
  m.run(vadd(isa::AddMode_mul_add, ra, 0.0f, fixed, 1));
  EXPECT_EQ(m.sp(200), 2);
  m.run(vadd(isa::AddMode_fma_scalar_b, ra, 0.0f, fixed, 1)); // fma with a
  EXPECT_EQ(m.sp(200), 1);
  m.run(
      vadd(isa::AddMode_fma_scalar_a, 0.0f, ra, fixed, 1)); // a*ra folded first
  // b = 0 here, a is multiplied by 0: t = fixed -> -1.5 - 2^-21 -> -2
  EXPECT_EQ(m.sp(200), -2);
}

TEST(Vmul, ZeroPointsRatioAndTies) {
  Machine m;
  Instruction I(Opcode::Vmul);
  I.with(F::Vmul_n0, 3)
      .with(F::Vmul_n1, 2)
      .with(F::Vmul_a_addr, 0)
      .with(F::Vmul_b_addr, 100)
      .with(F::Vmul_o_addr, 200)
      .with(F::Vmul_a_s1, 3)
      .with(F::Vmul_b_s1, 0)
      .with(F::Vmul_o_s1, 3)
      .with(F::Vmul_a_zp, 1)
      .with(F::Vmul_b_zp, 2)
      .with(F::Vmul_o_zp, 1)
      .with(F::Vmul_lo, -128)
      .with(F::Vmul_hi, 127);
  I.setF32(F::Vmul_ratio, 0.25f);
  // A rows {3, 5, -1}, {127, 0, 1}; B one row {5, 4, 2} broadcast (b_s1 = 0).
  int8_t a[6] = {3, 5, -1, 127, 0, 1}, b[3] = {5, 4, 2};
  std::memcpy(&m.s.scratchpad[0], a, 6);
  std::memcpy(&m.s.scratchpad[100], b, 3);
  m.run(I);
  // p = (a-1)(b-2): 6 -> 1.5+1 = 2.5 -> 2; 8 -> 3 -> 3; 0 -> 1; 378 -> 95.5 ->
  // 96; -3 -> -0.75+1 = 0.25 -> 0; 0 -> 1.
  int8_t expect[6] = {2, 3, 1, 96, 0, 1};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(m.sp(200 + i), expect[i]) << i;
}

TEST(Vlut, IndexesByTheCodeMinusTheStorageMinimumPerTensorOrPerColumn) {
  Machine m;
  // Table t at 1000: t[k] = k (the index itself); per column, table i at
  // 2000 + 256 i holds t_i[k] = k + 16 i (mod 256).
  for (int k = 0; k < 256; ++k) {
    m.s.scratchpad[1000 + k] = uint8_t(k);
    for (int i = 0; i < 3; ++i)
      m.s.scratchpad[2000 + 256 * i + k] = uint8_t(k + 16 * i);
  }
  // A: 2 rows of 3 int8 codes, row stride 5.
  int8_t a[8] = {-128, -1, 0, 0, 0, 127, 5, -7};
  std::memcpy(&m.s.scratchpad[0], a, 8);
  Instruction I(Opcode::Vlut);
  I.with(F::Vlut_n0, 3)
      .with(F::Vlut_n1, 2)
      .with(F::Vlut_a_addr, 0)
      .with(F::Vlut_a_s1, 5)
      .with(F::Vlut_lut_addr, 1000)
      .with(F::Vlut_o_addr, 200)
      .with(F::Vlut_o_s1, 4);
  m.run(I);
  // int8: index = code + 128.
  uint8_t expect[2][3] = {{0, 127, 128}, {255, 133, 121}};
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(m.s.scratchpad[200 + 4 * j + i], expect[j][i]) << j << i;
  // uint8 codes index by the byte itself; column i reads table i.
  I.with(F::Vlut_u8, 1)
      .with(F::Vlut_per_column, 1)
      .with(F::Vlut_lut_addr, 2000);
  m.run(I);
  uint8_t bytes[2][3] = {{0x80, 0xff, 0x00}, {0x7f, 0x05, 0xf9}};
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(m.s.scratchpad[200 + 4 * j + i], uint8_t(bytes[j][i] + 16 * i))
          << j << i;
}

/// Writes `table` (256 fp32 values, defaults 0) at ACC word `at`.
static void putTable(Machine &m, uint64_t at,
                     std::initializer_list<std::pair<int, float>> entries) {
  for (int k = 0; k < 256; ++k)
    m.s.accumulator[at + k] = 0;
  for (auto [k, v] : entries)
    std::memcpy(&m.s.accumulator[at + k], &v, 4);
}

TEST(Vsoftmax, RowMaximumTableSumAndOrtRounding) {
  Machine m;
  // T[255] = 1, T[253] = 0.25, T[0] = 0.5 (the entry of a code 255 below
  // its row's maximum).
  putTable(m, 64, {{255, 1.0f}, {253, 0.25f}, {0, 0.5f}});
  int8_t a[8] = {5, 3, 5, 0, -128, -128, 127, 0};
  std::memcpy(&m.s.scratchpad[0], a, 8);
  Instruction I(Opcode::Vsoftmax);
  I.with(F::Vsoftmax_n0, 3)
      .with(F::Vsoftmax_n1, 2)
      .with(F::Vsoftmax_a_addr, 0)
      .with(F::Vsoftmax_a_s1, 4)
      .with(F::Vsoftmax_table_addr, 64)
      .with(F::Vsoftmax_o_addr, 100)
      .with(F::Vsoftmax_o_s1, 3)
      .with(F::Vsoftmax_zp, -128);
  I.setF32(F::Vsoftmax_c, 256.0f);
  m.run(I);
  // Row 0: m = 5, entries 1, 0.25, 1, sum 2.25: 256 / 2.25 = 113.8 -> 114,
  // 64 / 2.25 = 28.4 -> 28; - 128. Row 1: m = 127, entries 0.5, 0.5, 1,
  // sum 2: 64 and 128, - 128.
  int8_t expect[6] = {-14, -100, -14, -64, -64, 0};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(m.sp(100 + i), expect[i]) << i;
  // uint8: zero point read unsigned (200); 114 + 200 and 28 + 200.
  I.with(F::Vsoftmax_u8, 1).with(F::Vsoftmax_zp, int8_t(200));
  m.run(I);
  // Row 1: 64 + 200 and 128 + 200, above 255 too.
  uint8_t bytes[6] = {0xff, 228, 0xff, 0xff, 0xff, 0xff};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(m.s.scratchpad[100 + i], bytes[i]) << i;
}

TEST(Vsoftmax, OverflowToInfinityConvertsAsTheX86Kernels) {
  Machine m;
  // One element per row: e * c = 3e38 * 256 = inf, inf / 3e38 = inf.
  putTable(m, 0, {{255, 3e38f}});
  m.s.scratchpad[0] = 7;
  Instruction I(Opcode::Vsoftmax);
  I.with(F::Vsoftmax_n0, 1)
      .with(F::Vsoftmax_n1, 1)
      .with(F::Vsoftmax_a_s1, 1)
      .with(F::Vsoftmax_o_addr, 10)
      .with(F::Vsoftmax_o_s1, 1)
      .with(F::Vsoftmax_zp, 0);
  I.setF32(F::Vsoftmax_c, 256.0f);
  m.run(I);
  // int8: cvtss2si gives INT32_MIN, not above 255: its low byte.
  EXPECT_EQ(m.s.scratchpad[10], 0x00);
  // INT32_MIN - 128 wraps to 0x7fffff80, above 255: 0xff.
  m.run(I.with(F::Vsoftmax_zp, -128));
  EXPECT_EQ(m.s.scratchpad[10], 0xff);
  // uint8: the 64-bit conversion is out of range too: 0, + zero point 9.
  m.run(I.with(F::Vsoftmax_u8, 1).with(F::Vsoftmax_zp, 9));
  EXPECT_EQ(m.s.scratchpad[10], 9);
}

TEST(Vlayernorm, RowStatisticsScaleBiasAndQuantizeLinear) {
  Machine m;
  // gamma {1, 1, 2, 1} at ACC 0, beta {0, 0, 0, 0.5} at ACC 8.
  float gamma[4] = {1, 1, 2, 1}, beta[4] = {0, 0, 0, 0.5f};
  std::memcpy(&m.s.accumulator[0], gamma, 16);
  std::memcpy(&m.s.accumulator[8], beta, 16);
  // One row of codes {2, 4, 6, 8}, x_scale 0.5, x_zp 0: x = {1, 2, 3, 4}.
  int8_t a[4] = {2, 4, 6, 8};
  std::memcpy(&m.s.scratchpad[0], a, 4);
  Instruction I(Opcode::Vlayernorm);
  I.with(F::Vlayernorm_bias, 1)
      .with(F::Vlayernorm_y_zp, 3)
      .with(F::Vlayernorm_n0, 4)
      .with(F::Vlayernorm_n1, 1)
      .with(F::Vlayernorm_a_s1, 4)
      .with(F::Vlayernorm_gamma_addr, 0)
      .with(F::Vlayernorm_beta_addr, 8)
      .with(F::Vlayernorm_o_addr, 100)
      .with(F::Vlayernorm_o_s1, 4);
  I.setF32(F::Vlayernorm_x_scale, 0.5f);
  I.setF32(F::Vlayernorm_y_scale, 0.1f);
  I.setF32(F::Vlayernorm_eps, 0.0f);
  m.run(I);
  // s = 10, s2 = 30: mean 2.5, var 7.5 - 6.25 = 1.25, d = sqrt(1.25) =
  // 1.118034; (x - mean) / d = -1.341641, -0.447214, 0.447214, 1.341641;
  // times gamma plus beta: -1.341641, -0.447214, 0.894427, 1.841641; / 0.1,
  // rne, + 3.
  int8_t expect[4] = {-10, -1, 12, 21};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(m.sp(100 + i), expect[i]) << i;
  // y_scale 0.01 clamps at [-128 - 3, 127 - 3] before the rounding.
  I.setF32(F::Vlayernorm_y_scale, 0.01f);
  m.run(I);
  int8_t clamped[4] = {-128, -42, 92, 127};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(m.sp(100 + i), clamped[i]) << i;
  // Without the bias term the last value is 1.341641 / 0.1 -> 13, + 3.
  I.setF32(F::Vlayernorm_y_scale, 0.1f);
  m.run(I.with(F::Vlayernorm_bias, 0));
  EXPECT_EQ(m.sp(103), 16);
}

TEST(Vbinary, DequantizeOperateQuantizeWithAPerRowOperand) {
  Machine m;
  // Two rows of A {10, 20, -6, 0} and {6, 2, 2, 2}, a_zp 2, a_scale 0.25:
  // {2, 4.5, -2, -0.5} and {1, 0, 0, 0}. B one code per row (b_bcast,
  // b_s1 1): {4, -2}, b_scale 0.5: 2 and -1.
  int8_t a[8] = {10, 20, -6, 0, 6, 2, 2, 2}, b[2] = {4, -2};
  std::memcpy(&m.s.scratchpad[0], a, 8);
  std::memcpy(&m.s.scratchpad[32], b, 2);
  Instruction I(Opcode::Vbinary);
  I.with(F::Vbinary_op, isa::BinaryOp_sub)
      .with(F::Vbinary_b_bcast, 1)
      .with(F::Vbinary_a_zp, 2)
      .with(F::Vbinary_o_zp, -1)
      .with(F::Vbinary_b_addr, 32)
      .with(F::Vbinary_o_addr, 100)
      .with(F::Vbinary_n0, 4)
      .with(F::Vbinary_n1, 2)
      .with(F::Vbinary_a_s1, 4)
      .with(F::Vbinary_b_s1, 1)
      .with(F::Vbinary_o_s1, 4);
  I.setF32(F::Vbinary_a_scale, 0.25f);
  I.setF32(F::Vbinary_b_scale, 0.5f);
  I.setF32(F::Vbinary_o_scale, 1.0f);
  m.run(I);
  // a - b = {0, 2.5, -4, -2.5} and {2, 1, 1, 1}: rne (ties to even), - 1.
  int8_t sub[8] = {-1, 1, -5, -3, 1, 0, 0, 0};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(m.sp(100 + i), sub[i]) << i;
  // a / b = {1, 2.25, -1, -0.25} and {-1, -0, -0, -0}; / 0.25: {4, 9, -4,
  // -1} and {-4, -0, -0, -0}, - 1.
  I.setF32(F::Vbinary_o_scale, 0.25f);
  m.run(I.with(F::Vbinary_op, isa::BinaryOp_div));
  int8_t div[8] = {3, 8, -5, -2, -5, -1, -1, -1};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(m.sp(100 + i), div[i]) << i;
  // Division by a zero operand: x / 0 = +-inf clamps to [-128 + 1, 127 +
  // 1]'s ends, 0 / 0 = NaN goes to the lower bound (_mm_max_ps).
  m.s.scratchpad[33] = 0; // row 1's b: 0
  m.run(I);
  int8_t byZero[4] = {127, -128, -128, -128};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(m.sp(104 + i), byZero[i]) << i;
  // add and mul, B now elementwise (b_bcast 0, b_s1 4): B = A's codes.
  std::memcpy(&m.s.scratchpad[32], a, 8);
  I.with(F::Vbinary_b_bcast, 0).with(F::Vbinary_b_s1, 4);
  I.with(F::Vbinary_b_zp, 2).with(F::Vbinary_o_zp, 0);
  I.setF32(F::Vbinary_b_scale, 0.25f);
  I.setF32(F::Vbinary_o_scale, 0.5f);
  m.run(I.with(F::Vbinary_op, isa::BinaryOp_add));
  // 2a = {4, 9, -4, -1} / 0.5 = {8, 18, -8, -2}; row 1 {4, 0, 0, 0}.
  int8_t add[8] = {8, 18, -8, -2, 4, 0, 0, 0};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(m.sp(100 + i), add[i]) << i;
  m.run(I.with(F::Vbinary_op, isa::BinaryOp_mul));
  // a^2 = {4, 20.25, 4, 0.25} / 0.5 = {8, 40.5 -> 40, 8, 0.5 -> 0}.
  int8_t mul[8] = {8, 40, 8, 0, 2, 0, 0, 0};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(m.sp(100 + i), mul[i]) << i;
}

TEST(Vbinary, Fp32OperandFromTheAccumulator) {
  Machine m;
  // b_f32: B is fp32 words in ACC, used as they are. A {10, 20, -6, 0} and
  // {6, 2, 2, 2}, a_zp 2, a_scale 0.25: {2, 4.5, -2, -0.5} and {1, 0, 0,
  // 0}. B rows at ACC words 8 and 12 (b_s1 4): {-100, 0.25, 1.5, 0} and
  // {0.5, -0.5, 3, -1.25}. The scratchpad at b_addr holds other bytes, so
  // a B read from there gives other results.
  int8_t a[8] = {10, 20, -6, 0, 6, 2, 2, 2};
  std::memcpy(&m.s.scratchpad[0], a, 8);
  std::memset(&m.s.scratchpad[8], 50, 8);
  float b[8] = {-100.0f, 0.25f, 1.5f, 0.0f, 0.5f, -0.5f, 3.0f, -1.25f};
  std::memcpy(&m.s.accumulator[8], b, sizeof b);
  Instruction I(Opcode::Vbinary);
  I.with(F::Vbinary_op, isa::BinaryOp_add)
      .with(F::Vbinary_b_f32, 1)
      .with(F::Vbinary_a_zp, 2)
      .with(F::Vbinary_o_zp, -1)
      .with(F::Vbinary_b_addr, 8)
      .with(F::Vbinary_o_addr, 100)
      .with(F::Vbinary_n0, 4)
      .with(F::Vbinary_n1, 2)
      .with(F::Vbinary_a_s1, 4)
      .with(F::Vbinary_b_s1, 4)
      .with(F::Vbinary_o_s1, 4);
  I.setF32(F::Vbinary_a_scale, 0.25f);
  I.setF32(F::Vbinary_o_scale, 0.5f);
  m.run(I);
  // a + b = {-98, 4.75, -0.5, -0.5} and {1.5, -0.5, 3, -1.25}; / 0.5 =
  // {-196, 9.5, -1, -1} and {3, -1, 6, -2.5}: clamped to [-127, 128] before
  // rne (9.5 -> 10, -2.5 -> -2), then - 1.
  int8_t add[8] = {-128, 9, -2, -2, 2, -2, 5, -3};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(m.sp(100 + i), add[i]) << i;
  // One word per row (b_bcast, b_s1 4): row 0 adds -100, row 1 0.5; sub.
  m.run(I.with(F::Vbinary_b_bcast, 1).with(F::Vbinary_op, isa::BinaryOp_sub));
  // a - b = {102, 104.5, 98, 99.5} / 0.5 -> clamped 128 -> 127; row 1
  // {0.5, -0.5, -0.5, -0.5} / 0.5 = {1, -1, -1, -1}, - 1.
  int8_t sub[8] = {127, 127, 127, 127, 0, -2, -2, -2};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(m.sp(100 + i), sub[i]) << i;
}

TEST(Vreduce, EigenPacketOrderFromTheRowsAlignment) {
  Machine m;
  // Codes x_scale 0.1: v = fl(code * 0.1f). Summed in order from v0 the
  // row is 43.800003; Eigen from an aligned v0 sums (v0 + v2) + (v1 + v3)
  // (one packet, predux), then v4, v5: 43.8. The mean / 6 and / 0.2 is
  // 36.499996 against 36.500004 in order: 36 against 37.
  int8_t a[6] = {93, 43, 120, -18, 123, 77};
  std::memcpy(&m.s.scratchpad[0], a, 6);
  std::memcpy(&m.s.scratchpad[6], a, 6);
  Instruction I(Opcode::Vreduce);
  I.with(F::Vreduce_mean, 1)
      .with(F::Vreduce_n0, 6)
      .with(F::Vreduce_n1, 1)
      .with(F::Vreduce_a_s1, 6)
      .with(F::Vreduce_o_addr, 100)
      .with(F::Vreduce_o_s1, 1);
  I.setF32(F::Vreduce_x_scale, 0.1f);
  I.setF32(F::Vreduce_y_scale, 0.2f);
  m.run(I);
  EXPECT_EQ(m.sp(100), 36);
  // Phase 1: the first aligned element is v3, no whole packet fits in
  // the 3 after it: in order from v0.
  m.run(I.with(F::Vreduce_phase, 1));
  EXPECT_EQ(m.sp(100), 37);
  // Two rows at phase 0: row 1 starts 6 elements on, at phase 2 (one
  // packet v2..v5, then v0, v1): 43.8 again, 36.
  m.run(I.with(F::Vreduce_phase, 0).with(F::Vreduce_n1, 2));
  EXPECT_EQ(m.sp(100), 36);
  EXPECT_EQ(m.sp(101), 36);
  // Sum, y_scale 0.5, y_zp -100: 43.8 / 0.5 = 87.6 -> 88, - 100.
  I.setF32(F::Vreduce_y_scale, 0.5f);
  m.run(I.with(F::Vreduce_mean, 0).with(F::Vreduce_y_zp, -100));
  EXPECT_EQ(m.sp(100), -12);
  // x_zp 93 zeroes v0 and shifts the rest: {0, -5, 2.7, -11.1, 3, -1.6}
  // (each fl((code - 93) * 0.1f)): -12.000001 / 0.5 -> -24, - 100.
  m.run(I.with(F::Vreduce_x_zp, 93));
  EXPECT_EQ(m.sp(100), -124);
}

TEST(Pool, MaxAvgIntAvgFloatWithValidRegion) {
  Machine m;
  // 3x3 input tile, 1 channel, row stride 3: values 1..9, window 2x2 stride 1
  // -> 2x2 outputs. Valid region rows [0,3), cols [1,3): column 0 is padding.
  for (int i = 0; i < 9; ++i)
    m.s.scratchpad[i] = uint8_t(i + 1);
  Instruction P(Opcode::Pool);
  P.with(F::Pool_kh, 2)
      .with(F::Pool_kw, 2)
      .with(F::Pool_sh, 1)
      .with(F::Pool_sw, 1)
      .with(F::Pool_oh, 2)
      .with(F::Pool_ow, 2)
      .with(F::Pool_ch, 1)
      .with(F::Pool_in_row_stride, 3)
      .with(F::Pool_in_pix_stride, 1)
      .with(F::Pool_out_addr, 100)
      .with(F::Pool_out_pix_stride, 1)
      .with(F::Pool_out_row_stride, 2)
      .with(F::Pool_valid_y0, 0)
      .with(F::Pool_valid_y1, 3)
      .with(F::Pool_valid_x0, 1)
      .with(F::Pool_valid_x1, 3)
      .with(F::Pool_lo, -128)
      .with(F::Pool_hi, 127);
  m.run(P); // max: windows {2,5}, {2,3,5,6}, {5,8}, {5,6,8,9}
  EXPECT_EQ(m.sp(100), 5);
  EXPECT_EQ(m.sp(101), 6);
  EXPECT_EQ(m.sp(102), 8);
  EXPECT_EQ(m.sp(103), 9);
  // avg_int: acc = bias + sum, requant by scale 0.5, out_zp 1:
  // (-2 + 7) * 0.5 = 2.5 -> 2 (+1) = 3; (-2 + 16) * .5 = 7 -> 8; (-2+13)*.5
  // = 5.5 -> 6 -> 7;
  // (-2 + 28) * .5 = 13 -> 14.
  P.set(F::Pool_mode, isa::PoolMode_avg_int);
  P.set(F::Pool_bias, -2);
  P.setF32(F::Pool_scale, 0.5f);
  P.set(F::Pool_out_zp, 1);
  m.run(P);
  EXPECT_EQ(m.sp(100), 3);
  EXPECT_EQ(m.sp(101), 8);
  EXPECT_EQ(m.sp(102), 7);
  EXPECT_EQ(m.sp(103), 14);
  // avg_float, in_zp 1, in scale 1, out scale 0.5, out_zp 0:
  // {2,5} -> (1+4)/2 = 2.5 / .5 = 5; {2,3,5,6} -> 12/4 = 3 -> 6;
  // {5,8} -> 11/2 = 5.5 -> 11; {5,6,8,9} -> 24/4 = 6 -> 12.
  // With count_include_pad: divisors 4: 5/4 = 1.25 -> 2.5 -> 2; 11/4 -> 5.5 ->
  // 6 (even).
  P.set(F::Pool_mode, isa::PoolMode_avg_float);
  P.set(F::Pool_in_zp, 1);
  P.set(F::Pool_out_zp, 0);
  P.setF32(F::Pool_scale, 1.0f);
  P.setF32(F::Pool_out_scale, 0.5f);
  m.run(P);
  EXPECT_EQ(m.sp(100), 5);
  EXPECT_EQ(m.sp(101), 6);
  EXPECT_EQ(m.sp(102), 11);
  EXPECT_EQ(m.sp(103), 12);
  P.set(F::Pool_count_include_pad, 1);
  m.run(P);
  EXPECT_EQ(m.sp(100), 2);
  EXPECT_EQ(m.sp(102), 6);
}

TEST(Pool, Uint8DomainFlag) {
  Machine m;
  // Stored int8 bytes are uint8 ^ 0x80. uint8 inputs 200 and 10: max is 200
  // (as int8 the bytes are 72 and -118, so the int8 max would pick 72 too;
  // use 100 vs 200: bytes -28 and 72 -> the u8 max is 200).
  m.s.scratchpad[0] = uint8_t(100 ^ 0x80);
  m.s.scratchpad[1] = uint8_t(200 ^ 0x80);
  Instruction P(Opcode::Pool);
  P.with(F::Pool_kh, 1)
      .with(F::Pool_kw, 2)
      .with(F::Pool_sh, 1)
      .with(F::Pool_sw, 1)
      .with(F::Pool_oh, 1)
      .with(F::Pool_ow, 1)
      .with(F::Pool_ch, 1)
      .with(F::Pool_in_pix_stride, 1)
      .with(F::Pool_out_addr, 100)
      .with(F::Pool_valid_y1, 1)
      .with(F::Pool_valid_x1, 2)
      .with(F::Pool_mode, isa::PoolMode_avg_float)
      .with(F::Pool_u8, 1)
      .with(F::Pool_in_zp, 0)
      .with(F::Pool_out_zp, int8_t(uint8_t(128)))
      .with(F::Pool_lo, 0)
      .with(F::Pool_hi, -1); // lo = 0, hi = 255 as unsigned bytes
  P.setF32(F::Pool_scale, 1.0f);
  P.setF32(F::Pool_out_scale, 1.0f);
  // (100 + 200) / 2 = 150 + out_zp 128 = 278 -> clamp 255 -> byte 255 ^ 0x80.
  m.run(P);
  EXPECT_EQ(uint8_t(m.sp(100)), uint8_t(255 ^ 0x80));
}

TEST(Dwconv, HandComputed3x3) {
  Machine m;
  // 4x4 input, 2 channels (pixel stride 2, row stride 8), 3x3 weights,
  // stride 1, 2x2 output. Input x(y, x, c) = y*4 + x + 10c; weights all 1
  // for c=0 and w[ky][kx][1] = ky - kx; in_zp 1, w_zp 0.
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x)
      for (int c = 0; c < 2; ++c)
        m.s.scratchpad[y * 8 + x * 2 + c] = uint8_t(y * 4 + x + 10 * c);
  for (int ky = 0; ky < 3; ++ky)
    for (int kx = 0; kx < 3; ++kx) {
      m.s.scratchpad[100 + (ky * 3 + kx) * 2 + 0] = 1;
      m.s.scratchpad[100 + (ky * 3 + kx) * 2 + 1] = uint8_t(int8_t(ky - kx));
    }
  Instruction D(Opcode::Dwconv);
  D.with(F::Dwconv_kh, 3)
      .with(F::Dwconv_kw, 3)
      .with(F::Dwconv_sh, 1)
      .with(F::Dwconv_sw, 1)
      .with(F::Dwconv_dh, 1)
      .with(F::Dwconv_dw, 1)
      .with(F::Dwconv_oh, 2)
      .with(F::Dwconv_ow, 2)
      .with(F::Dwconv_ch, 2)
      .with(F::Dwconv_in_row_stride, 8)
      .with(F::Dwconv_in_pix_stride, 2)
      .with(F::Dwconv_w_addr, 100)
      .with(F::Dwconv_c_addr, 0)
      .with(F::Dwconv_c_pix_stride, 2)
      .with(F::Dwconv_c_row_stride, 4)
      .with(F::Dwconv_in_zp, 1);
  m.run(D);
  // c=0 at (oy, ox): sum over the window of (v - 1) = 9 * (center value - 1),
  // center (oy+1, ox+1): value 4(oy+1) + ox + 1.
  // c=1: sum (ky - kx) * (v - 1) = sum (ky - kx) * (4(oy+ky) + ox + kx + 10 -
  // 1)
  //     = sum (ky - kx)(4ky + kx)      (the rest cancels: sum (ky - kx) = 0)
  //     = 4*3*(0+1+4) - 3*(0+1+2)^2 - 3*(0+1+4) = 60 - 27 - 15 = 18.
  int expectC1 = 0;
  for (int ky = 0; ky < 3; ++ky)
    for (int kx = 0; kx < 3; ++kx)
      expectC1 += (ky - kx) * (4 * ky + kx);
  EXPECT_EQ(expectC1, 18);
  for (int oy = 0; oy < 2; ++oy)
    for (int ox = 0; ox < 2; ++ox) {
      EXPECT_EQ(m.s.accumulator[oy * 4 + ox * 2 + 0],
                9 * (4 * (oy + 1) + ox + 1 - 1));
      EXPECT_EQ(m.s.accumulator[oy * 4 + ox * 2 + 1], 18);
    }
}

TEST(Dma, PaddingFlipsStridesAndAccBroadcast) {
  Machine m;
  // DRAM rows of 3 bytes (uint8 200, 0, 128) at 0 and 16.
  uint8_t row[3] = {200, 0, 128};
  std::memcpy(&m.s.dram[0], row, 3);
  std::memcpy(&m.s.dram[16], row, 3);
  Instruction L = dma(Opcode::Load, 0, 1000, 3);
  L.with(F::Load_n1, 1)
      .with(F::Load_n2, 2)
      .with(F::Load_s2, 16)
      .with(F::Load_t1, 3)
      .with(F::Load_t2, 5)
      .with(F::Load_pad_left, 0)
      .with(F::Load_pad_top, 1)
      .with(F::Load_pad_right, 0)
      .with(F::Load_pad_bottom, 0)
      .with(F::Load_pad_value, -7)
      .with(F::Load_u8_to_i8, 1);
  m.run(L);
  // Row 0 (padding): -7 -7 -7; rows 1, 2 at 1005, 1010: 200^0x80 = 72, -128, 0.
  EXPECT_EQ(m.sp(1000), -7);
  EXPECT_EQ(m.sp(1002), -7);
  EXPECT_EQ(m.sp(1005), 72);
  EXPECT_EQ(m.sp(1006), -128);
  EXPECT_EQ(m.sp(1007), 0);
  EXPECT_EQ(m.sp(1010), 72);
  // Store back with i8_to_u8 restores the uint8 bytes.
  Instruction S = dma(Opcode::Store, 100, 1005, 3);
  S.set(F::Store_i8_to_u8, 1);
  m.run(S);
  EXPECT_EQ(m.s.dram[100], 200);
  EXPECT_EQ(m.s.dram[101], 0);
  EXPECT_EQ(m.s.dram[102], 128);
  // ACC: one int32 bias row broadcast (s1 = 0) into 3 rows of 2 words.
  int32_t bias[2] = {-5, 70000};
  std::memcpy(&m.s.dram[200], bias, 8);
  Instruction B(Opcode::Load);
  B.with(F::Load_sram, isa::Memory_acc)
      .with(F::Load_elem_bytes, 4)
      .with(F::Load_dram_addr, 200)
      .with(F::Load_sram_addr, 10)
      .with(F::Load_n0, 2)
      .with(F::Load_n1, 3)
      .with(F::Load_n2, 1)
      .with(F::Load_n3, 1)
      .with(F::Load_s1, 0)
      .with(F::Load_t1, 2);
  m.run(B);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(m.s.accumulator[10 + 2 * r], -5);
    EXPECT_EQ(m.s.accumulator[11 + 2 * r], 70000);
  }
}
