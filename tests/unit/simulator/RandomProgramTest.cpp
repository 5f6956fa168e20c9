//===- RandomProgramTest.cpp - Functional and cycle backends agree --------===//
//
// Random but valid, token-synchronized programs (fixed seeds): a double-
// buffered pipeline of tiles, each loaded with a random DMA box, processed by
// a random mix of compute instructions and stored. Both backends must leave
// identical DRAM, scratchpad and accumulator contents. VSOFTMAX reads one of
// four fp32 tables loaded into ACC: ORT's exp tables, one with entries so
// large that e * c overflows, one with any bit patterns among them.
// VLAYERNORM reads its gamma and beta from eight 64-word vectors loaded into
// ACC: ORT-like scales and offsets, one wide, one with any bit patterns.
// VBINARY mixes elementwise, per-row and per-channel B with zero scales
// (x / 0), and fp32 B (b_f32) read from those ACC vectors and tables or the
// tile's accumulators; VREDUCE rows of every phase and packet count.
//
//===----------------------------------------------------------------------===//
#include "SimTestUtil.h"

#include "systole/ISA/Footprint.h"
#include "systole/ISA/Timing.h"
#include "systole/ISA/Verifier.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace systole;
using namespace systole::sim;
using namespace systole::sim::test;

namespace {
struct Range {
  isa::MemSpace space;
  uint64_t begin, end;
};

class Generator {
public:
  Generator(uint64_t seed, const isa::HwConfig &cfg) : rng(seed), cfg(cfg) {}
  std::vector<Instruction> program(unsigned tiles);
  std::vector<uint8_t> dram();

  static constexpr uint64_t kDram = 1 << 16;
  static constexpr uint64_t kWeights = 16384, kLut = 32768, kScalesDram = 20000;
  static constexpr uint64_t kScalesAcc = 3000, kOut = 32768, kAccOut = 49152;
  // REQUANT's table, or up to 8 per-column VLUT tables.
  static constexpr uint64_t kLutBytes = 8 * 256;
  // VSOFTMAX's tables of 256 fp32 words: in DRAM (bytes) and in ACC (words).
  static constexpr uint64_t kSoftmaxTables = 4, kSoftmaxDram = 57344;
  static constexpr uint64_t kSoftmaxAcc = 3072;
  // VLAYERNORM's gamma / beta vectors of 64 fp32 words (DRAM bytes, ACC words).
  static constexpr uint64_t kNormVectors = 8, kNormDram = 61440;
  static constexpr uint64_t kNormAcc = 2048;

private:
  uint64_t r(uint64_t lo, uint64_t hi) { return lo + rng() % (hi - lo + 1); }
  bool coin(unsigned pct = 50) { return rng() % 100 < pct; }
  float scale() {
    return std::ldexp(float(r(1 << 20, 1 << 21)), -int(r(20, 32)));
  }
  // VSOFTMAX's c (floor(1 / y_scale) in ORT): the usual 256, a y_scale of
  // any size, or powers of two that put q past 2^31 and 2^63 (the
  // conversions' out-of-range cases), or any bit pattern.
  float softmaxC() {
    switch (r(0, 5)) {
    case 0:
      return 256.0f;
    case 1:
      return 1.0f;
    case 2:
      return std::floor(1.0f / (float(r(1, 1000)) * 1e-5f));
    case 3:
    case 4:
      return std::ldexp(1.0f, int(r(20, 80)));
    default: {
      uint32_t bits = uint32_t(rng());
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    }
  }
  bool fits(const Instruction &I, const std::vector<Range> &reads,
            const std::vector<Range> &writes) {
    for (const isa::Access &a : isa::accessRanges(I)) {
      if (a.begin == a.end)
        continue;
      bool ok = false;
      for (const Range &g : a.write ? writes : reads)
        ok |= g.space == a.space && a.begin >= g.begin && a.end <= g.end;
      if (!ok)
        return false;
    }
    return true;
  }
  // With u8 the clamp bounds are read unsigned (docs/isa.md), so a random
  // signed lo <= hi may be out of order there: swap them.
  static void orderBounds(Instruction &I, Field u8, Field lo, Field hi) {
    if (I.getFlag(u8) && I.raw(lo) > I.raw(hi)) {
      int64_t l = I.get(lo);
      I.with(lo, I.get(hi)).with(hi, l);
    }
  }
  Instruction loadTile(unsigned b);
  Instruction computeOp(unsigned b);

  std::mt19937_64 rng;
  isa::HwConfig cfg;
  bool weightsLatched = false;
  // A run of WS MATMULs into one accumulator tile (a K split) or apart,
  // which array.matmul_inflight > 1 streams back to back.
  unsigned burst = 0;
  uint64_t burstC = 0, burstCStride = 0, burstN = 0;
  uint64_t latchedK = 0, latchedN = 0;
};

uint64_t aBase(unsigned b) { return b * 8192; }
uint64_t oBase(unsigned b) { return 24576 + b * 4096; }
uint64_t cBase(unsigned b) { return b * 1024; }

std::vector<uint8_t> Generator::dram() {
  std::vector<uint8_t> d(kDram);
  for (auto &v : d)
    v = uint8_t(rng());
  for (unsigned i = 0; i < 64; ++i) {
    uint32_t bits = bitsOf(scale());
    std::memcpy(&d[kScalesDram + 4 * i], &bits, 4);
  }
  // The VSOFTMAX tables: exp((i - 255 + shift) * x_scale), table 0
  // unshifted (entries <= 1, as ORT makes them), 1 shifted up, 2 with a
  // third of the entries near FLT_MAX (fl(e * c) = inf), 3 with a quarter
  // any bit pattern (NaN, inf, negative, subnormal, zero).
  for (unsigned t = 0; t < kSoftmaxTables; ++t) {
    float xScale = float(r(1, 200)) * 1e-3f;
    int shift = t == 0 ? 0 : int(r(1, 40));
    for (unsigned i = 0; i < 256; ++i) {
      float v = std::exp(float(int(i) - 255 + shift) * xScale);
      uint32_t bits = bitsOf(v);
      if (t == 2 && coin(33))
        bits = bitsOf(
            std::ldexp(float(r(1 << 23, (1 << 24) - 1)), int(r(90, 104))));
      if (t == 3 && coin(25))
        bits = uint32_t(rng());
      std::memcpy(&d[kSoftmaxDram + 1024 * t + 4 * i], &bits, 4);
    }
  }
  // The VLAYERNORM vectors: even ones gamma-like (around 1, a few
  // negative), odd ones beta-like (around 0); 6 ten times wider, 7 with a
  // tenth any bit pattern.
  for (unsigned v = 0; v < kNormVectors; ++v)
    for (unsigned i = 0; i < 64; ++i) {
      float x = float(r(0, 2000)) / 1000.0f - 1.0f;
      float f = v % 2 ? 0.5f * x : 1.0f + 0.4f * x * (coin(10) ? -3.0f : 1.0f);
      uint32_t bits = bitsOf(v == 6 ? 10.0f * f : f);
      if (v == 7 && coin(10))
        bits = uint32_t(rng());
      std::memcpy(&d[kNormDram + 256 * v + 4 * i], &bits, 4);
    }
  return d;
}

Instruction Generator::loadTile(unsigned b) {
  for (int attempt = 0;; ++attempt) {
    Instruction L(Opcode::Load);
    uint64_t elem = coin(20) ? 4 : 1;
    uint64_t n0 = r(1, 48), n1 = r(1, 6), n2 = r(1, 4), n3 = r(1, 2);
    uint64_t pl = r(0, 2), pr = r(0, 2), pt = r(0, 2), pb = r(0, 2);
    uint64_t t1 = n0 * elem + r(0, 4), t2 = t1 * (pl + n1 + pr) + r(0, 8);
    uint64_t t3 = t2 * (pt + n2 + pb) + r(0, 8);
    L.with(F::Load_elem_bytes, elem)
        .with(F::Load_n0, n0)
        .with(F::Load_n1, n1)
        .with(F::Load_n2, n2)
        .with(F::Load_n3, n3)
        .with(F::Load_t1, t1)
        .with(F::Load_t2, t2)
        .with(F::Load_t3, t3)
        .with(F::Load_pad_left, pl)
        .with(F::Load_pad_right, pr)
        .with(F::Load_pad_top, pt)
        .with(F::Load_pad_bottom, pb)
        .with(F::Load_pad_value, int64_t(r(0, 255)) - 128)
        .with(F::Load_s1, n0 * elem + r(0, 64) * (coin(10) ? 0 : 1))
        .with(F::Load_s2, r(0, 600))
        .with(F::Load_s3, r(0, 3000))
        .with(F::Load_dram_addr, r(0, 8000))
        .with(F::Load_sram_addr, aBase(b) + r(0, 64))
        .with(F::Load_u8_to_i8, elem == 1 && coin(30));
    if (fits(L, {{isa::MemSpace::Dram, 0, kDram}},
             {{isa::MemSpace::Scratchpad, aBase(b), aBase(b) + 8192}}))
      return L;
  }
}

Instruction Generator::computeOp(unsigned b) {
  std::vector<Range> reads = {
      {isa::MemSpace::Scratchpad, aBase(b), aBase(b) + 8192},
      {isa::MemSpace::Scratchpad, kWeights, kWeights + 4096},
      {isa::MemSpace::Scratchpad, oBase(b), oBase(b) + 4096},
      {isa::MemSpace::Scratchpad, kLut, kLut + kLutBytes},
      {isa::MemSpace::Accumulator, cBase(b), cBase(b) + 1024},
      {isa::MemSpace::Accumulator, kScalesAcc, kScalesAcc + 64},
      {isa::MemSpace::Accumulator, kSoftmaxAcc,
       kSoftmaxAcc + 256 * kSoftmaxTables},
      {isa::MemSpace::Accumulator, kNormAcc, kNormAcc + 64 * kNormVectors}};
  std::vector<Range> writes = {
      {isa::MemSpace::Scratchpad, oBase(b), oBase(b) + 4096},
      {isa::MemSpace::Accumulator, cBase(b), cBase(b) + 1024}};
  const uint64_t R = cfg.array.rows, C = cfg.array.cols;
  while (true) {
    unsigned kind = burst ? 0 : r(0, 11);
    Instruction I;
    if (kind <= 1) { // MATMUL
      // In a burst: the same tile (c_addr, c_stride, N) or, one time in
      // four, wherever it lands.
      bool follow = burst && coin(75);
      bool ws = burst || coin();
      uint64_t M = ws ? r(1, 20) : r(1, R), K = ws ? r(1, R) : r(1, 40),
               N = follow ? burstN : r(1, C);
      bool preload =
          ws && (!weightsLatched || coin(60) || (follow && N != latchedN));
      if (ws && !preload) {
        K = latchedK;
        N = latchedN;
      }
      I = Instruction(Opcode::Matmul);
      uint64_t mi = r(1, M), ki = r(1, K + 4);
      I.with(F::Matmul_dataflow, ws ? isa::Dataflow_ws : isa::Dataflow_os)
          .with(F::Matmul_preload, preload)
          .with(F::Matmul_accumulate, coin())
          .with(F::Matmul_a_zp, int64_t(r(0, 255)) - 128)
          .with(F::Matmul_b_zp, int64_t(r(0, 255)) - 128)
          .with(F::Matmul_m, M)
          .with(F::Matmul_k, K)
          .with(F::Matmul_n, N)
          .with(F::Matmul_a_addr, aBase(b) + r(0, 100))
          .with(F::Matmul_a_m_inner, mi)
          .with(F::Matmul_a_m_inner_stride, r(0, 16))
          .with(F::Matmul_a_m_outer_stride, r(0, 200))
          .with(F::Matmul_a_k_inner, ki)
          .with(F::Matmul_a_k_outer_stride, r(0, 100))
          .with(F::Matmul_a_k_offset, r(0, 6))
          .with(F::Matmul_b_addr, kWeights + r(0, 500))
          .with(F::Matmul_b_stride, N + r(0, 20))
          .with(F::Matmul_c_addr, follow ? burstC : cBase(b) + r(0, 100))
          .with(F::Matmul_c_stride, follow ? burstCStride : N + r(0, 8));
      if (!fits(I, reads, writes))
        continue;
      if (burst) {
        --burst;
      } else if (ws && coin(40)) {
        burst = r(1, 4);
        burstC = I.raw(F::Matmul_c_addr);
        burstCStride = I.raw(F::Matmul_c_stride);
        burstN = N;
      }
      if (ws) {
        weightsLatched = true;
        latchedK = K;
        latchedN = N;
      } else {
        weightsLatched = false;
      }
    } else if (kind == 2) { // REQUANT
      uint64_t M = r(1, 16), N = r(1, 24);
      int64_t lo = int64_t(r(0, 200)) - 128, hi = lo + r(0, 127 - lo);
      I = Instruction(Opcode::Requant);
      I.with(F::Requant_per_tensor, coin(30))
          .with(F::Requant_lut, coin(30))
          .with(F::Requant_zp, int64_t(r(0, 255)) - 128)
          .with(F::Requant_lo, lo)
          .with(F::Requant_hi, hi)
          .with(F::Requant_c_addr, cBase(b) + r(0, 200))
          .with(F::Requant_c_stride, N + r(0, 8))
          .with(F::Requant_scale_addr, kScalesAcc + r(0, 30))
          .with(F::Requant_o_addr, oBase(b) + r(0, 500))
          .with(F::Requant_o_stride, N + r(0, 8))
          .with(F::Requant_lut_addr, kLut)
          .with(F::Requant_m, M)
          .with(F::Requant_n, N);
    } else if (kind == 3) { // VADD / VMUL
      bool add = coin();
      uint64_t n0 = r(1, 40), n1 = r(1, 5);
      int64_t lo = int64_t(r(0, 200)) - 128, hi = lo + r(0, 127 - lo);
      // Each input is either apart from O (the tile region) or O itself, in
      // place: outputs stream into SP, so partial overlaps are invalid
      // (docs/isa.md §4).
      uint64_t o = oBase(b) + r(0, 2000), oS1 = n0 + r(0, 9);
      struct Input {
        uint64_t addr, s1;
        bool bcast;
      };
      auto pick = [&] {
        if (coin(40))
          return Input{o, oS1, false};
        return Input{aBase(b) + r(0, 3000), r(0, 50), coin(20)};
      };
      Input A = pick(), B = pick();
      if (add) {
        I = Instruction(Opcode::Vadd);
        I.with(F::Vadd_mode, r(0, 4))
            .with(F::Vadd_a_bcast, A.bcast)
            .with(F::Vadd_b_bcast, B.bcast)
            .with(F::Vadd_u8, coin(20))
            .with(F::Vadd_lo, lo)
            .with(F::Vadd_hi, hi)
            .with(F::Vadd_a_addr, A.addr)
            .with(F::Vadd_b_addr, B.addr)
            .with(F::Vadd_o_addr, o)
            .with(F::Vadd_n0, n0)
            .with(F::Vadd_n1, n1)
            .with(F::Vadd_a_s1, A.s1)
            .with(F::Vadd_b_s1, B.s1)
            .with(F::Vadd_o_s1, oS1);
        I.setF32(F::Vadd_ratio_a, scale() * 1024);
        I.setF32(F::Vadd_ratio_b, scale() * 1024);
        I.setF32(F::Vadd_fixed, float(int64_t(r(0, 400)) - 200) * 0.37f);
        orderBounds(I, F::Vadd_u8, F::Vadd_lo, F::Vadd_hi);
      } else {
        I = Instruction(Opcode::Vmul);
        I.with(F::Vmul_a_bcast, A.bcast)
            .with(F::Vmul_b_bcast, B.bcast)
            .with(F::Vmul_u8, coin(20))
            .with(F::Vmul_lo, lo)
            .with(F::Vmul_hi, hi)
            .with(F::Vmul_a_zp, int64_t(r(0, 255)) - 128)
            .with(F::Vmul_b_zp, int64_t(r(0, 255)) - 128)
            .with(F::Vmul_o_zp, int64_t(r(0, 255)) - 128)
            .with(F::Vmul_a_addr, A.addr)
            .with(F::Vmul_b_addr, B.addr)
            .with(F::Vmul_o_addr, o)
            .with(F::Vmul_n0, n0)
            .with(F::Vmul_n1, n1)
            .with(F::Vmul_a_s1, A.s1)
            .with(F::Vmul_b_s1, B.s1)
            .with(F::Vmul_o_s1, oS1);
        I.setF32(F::Vmul_ratio, scale() * 64);
        orderBounds(I, F::Vmul_u8, F::Vmul_lo, F::Vmul_hi);
      }
    } else if (kind == 7) { // VLUT
      bool perColumn = coin(40);
      uint64_t n0 = perColumn ? r(1, 8) : r(1, 40), n1 = r(1, 5);
      uint64_t o = oBase(b) + r(0, 2000), oS1 = n0 + r(0, 9);
      bool inPlace = coin(30);
      I = Instruction(Opcode::Vlut);
      I.with(F::Vlut_u8, coin(30))
          .with(F::Vlut_per_column, perColumn)
          .with(F::Vlut_a_addr, inPlace ? o : aBase(b) + r(0, 3000))
          .with(F::Vlut_lut_addr, kLut + (perColumn ? 0 : 256 * r(0, 7)))
          .with(F::Vlut_o_addr, o)
          .with(F::Vlut_n0, n0)
          .with(F::Vlut_n1, n1)
          .with(F::Vlut_a_s1, inPlace ? oS1 : r(0, 50))
          .with(F::Vlut_o_s1, oS1);
    } else if (kind == 8) { // VSOFTMAX
      // Rows: one column, one lane group or several, ending part way.
      uint64_t n0 = coin(15) ? 1 : r(1, 40), n1 = r(1, 20);
      uint64_t o = oBase(b) + r(0, 2000), oS1 = n0 + r(0, 9);
      bool inPlace = coin(30);
      I = Instruction(Opcode::Vsoftmax);
      I.with(F::Vsoftmax_u8, coin(40))
          .with(F::Vsoftmax_zp, int64_t(r(0, 255)) - 128)
          .with(F::Vsoftmax_a_addr, inPlace ? o : aBase(b) + r(0, 3000))
          .with(F::Vsoftmax_table_addr,
                kSoftmaxAcc + 256 * r(0, kSoftmaxTables - 1))
          .with(F::Vsoftmax_o_addr, o)
          .with(F::Vsoftmax_n0, n0)
          .with(F::Vsoftmax_n1, n1)
          .with(F::Vsoftmax_a_s1, inPlace ? oS1 : r(0, 50))
          .with(F::Vsoftmax_o_s1, oS1);
      I.setF32(F::Vsoftmax_c, softmaxC());
    } else if (kind == 9) { // VLAYERNORM
      // Rows: one column (var 0: with eps 0, d = 0 and 0/0), one lane group
      // or several, ending part way; gamma and beta from any of the vectors.
      uint64_t n0 = coin(15) ? 1 : r(1, 64), n1 = r(1, 20);
      uint64_t o = oBase(b) + r(0, 2000), oS1 = n0 + r(0, 9);
      bool inPlace = coin(30);
      auto vec = [&] {
        return kNormAcc + 64 * r(0, kNormVectors - 1) + r(0, 64 - n0);
      };
      I = Instruction(Opcode::Vlayernorm);
      I.with(F::Vlayernorm_bias, coin(60))
          .with(F::Vlayernorm_x_zp, int64_t(r(0, 255)) - 128)
          .with(F::Vlayernorm_y_zp, int64_t(r(0, 255)) - 128)
          .with(F::Vlayernorm_a_addr, inPlace ? o : aBase(b) + r(0, 3000))
          .with(F::Vlayernorm_gamma_addr, vec())
          .with(F::Vlayernorm_beta_addr, vec())
          .with(F::Vlayernorm_o_addr, o)
          .with(F::Vlayernorm_n0, n0)
          .with(F::Vlayernorm_n1, n1)
          .with(F::Vlayernorm_a_s1, inPlace ? oS1 : r(0, 50))
          .with(F::Vlayernorm_o_s1, oS1);
      I.setF32(F::Vlayernorm_eps, coin(20) ? 0.0f : 1e-5f);
      I.setF32(F::Vlayernorm_x_scale, float(r(1, 1000)) * 1e-4f);
      I.setF32(F::Vlayernorm_y_scale, float(r(1, 1000)) * 1e-4f);
    } else if (kind == 10) { // VBINARY
      // VADD's addressing: B elementwise, per row (b_bcast, b_s1 = 1: a
      // mean or deviation) or per channel (b_s1 = 0); inputs apart from O
      // or O itself (in place). Zero points and scales make B zero (x / 0)
      // and results past the clamp now and then.
      uint64_t n0 = r(1, 40), n1 = r(1, 5);
      uint64_t o = oBase(b) + r(0, 2000), oS1 = n0 + r(0, 9);
      bool aInPlace = coin(30);
      unsigned bKind = unsigned(r(0, 2));
      uint64_t bS1 = bKind == 1 ? 1 : bKind == 2 ? 0 : r(0, 50);
      auto vscale = [&] { return coin(10) ? 0.0f : float(r(1, 1000)) * 1e-3f; };
      // An fp32 B (b_f32, an attention bias or mask) is ACC words, b_zp and
      // b_scale 0: the VLAYERNORM vectors (gamma- and beta-like, wide, any
      // bits), the VSOFTMAX tables (exps, near FLT_MAX, any bits) or the
      // tile's accumulators (int32 sums as bit patterns).
      bool bF32 = coin(40);
      uint64_t bAddr = aBase(b) + r(0, 3000);
      if (bF32) {
        uint64_t span = (n1 - 1) * bS1 + (bKind == 1 ? 1 : n0);
        uint64_t region = r(0, 2);
        uint64_t base = region == 0   ? kNormAcc
                        : region == 1 ? kSoftmaxAcc
                                      : cBase(b);
        uint64_t size = region == 0   ? 64 * kNormVectors
                        : region == 1 ? 256 * kSoftmaxTables
                                      : 1024;
        bAddr = base + r(0, size - span);
      }
      I = Instruction(Opcode::Vbinary);
      I.with(F::Vbinary_op, r(0, 3))
          .with(F::Vbinary_a_bcast, !aInPlace && coin(10))
          .with(F::Vbinary_b_bcast, bKind == 1)
          .with(F::Vbinary_b_f32, bF32)
          .with(F::Vbinary_a_zp, int64_t(r(0, 255)) - 128)
          .with(F::Vbinary_b_zp,
                bF32 || coin(30) ? 0 : int64_t(r(0, 255)) - 128)
          .with(F::Vbinary_o_zp, int64_t(r(0, 255)) - 128)
          .with(F::Vbinary_a_addr, aInPlace ? o : aBase(b) + r(0, 3000))
          .with(F::Vbinary_b_addr, bAddr)
          .with(F::Vbinary_o_addr, o)
          .with(F::Vbinary_n0, n0)
          .with(F::Vbinary_n1, n1)
          .with(F::Vbinary_a_s1, aInPlace ? oS1 : r(0, 50))
          .with(F::Vbinary_b_s1, bS1)
          .with(F::Vbinary_o_s1, oS1);
      I.setF32(F::Vbinary_a_scale, vscale());
      I.setF32(F::Vbinary_b_scale, bF32 ? 0.0f : vscale());
      I.setF32(F::Vbinary_o_scale, float(r(1, 1000)) * 1e-3f);
    } else if (kind == 11) { // VREDUCE
      // Rows of every phase and packet count (n0 up to 40: head, 0 .. 10
      // packets, tail), one lane group or several; one result byte per
      // row, apart from the rows.
      uint64_t n0 = r(1, 40), n1 = r(1, 20);
      I = Instruction(Opcode::Vreduce);
      I.with(F::Vreduce_phase, r(0, 3))
          .with(F::Vreduce_mean, coin())
          .with(F::Vreduce_x_zp, int64_t(r(0, 255)) - 128)
          .with(F::Vreduce_y_zp, int64_t(r(0, 255)) - 128)
          .with(F::Vreduce_a_addr, aBase(b) + r(0, 3000))
          .with(F::Vreduce_o_addr, oBase(b) + r(0, 2000))
          .with(F::Vreduce_n0, n0)
          .with(F::Vreduce_n1, n1)
          .with(F::Vreduce_a_s1, r(0, 50))
          .with(F::Vreduce_o_s1, r(1, 4));
      I.setF32(F::Vreduce_x_scale, float(r(1, 1000)) * 1e-3f);
      I.setF32(F::Vreduce_y_scale, float(r(1, 1000)) * 1e-3f);
    } else if (kind == 4) { // POOL
      uint64_t kh = r(1, 3), kw = r(1, 3), oh = r(1, 4), ow = r(1, 4),
               ch = r(1, 12);
      uint64_t sh = r(1, 2), sw = r(1, 2);
      uint64_t rows = (oh - 1) * sh + kh, cols = (ow - 1) * sw + kw;
      int64_t lo = int64_t(r(0, 200)) - 128, hi = lo + r(0, 127 - lo);
      uint64_t y0 = r(0, rows), x0 = r(0, cols);
      I = Instruction(Opcode::Pool);
      I.with(F::Pool_mode, r(0, 2))
          .with(F::Pool_count_include_pad, coin())
          .with(F::Pool_u8, coin(20))
          .with(F::Pool_in_zp, int64_t(r(0, 255)) - 128)
          .with(F::Pool_out_zp, int64_t(r(0, 255)) - 128)
          .with(F::Pool_lo, lo)
          .with(F::Pool_hi, hi)
          .with(F::Pool_kh, kh)
          .with(F::Pool_kw, kw)
          .with(F::Pool_in_addr, aBase(b) + r(0, 100))
          .with(F::Pool_out_addr, oBase(b) + r(0, 1000))
          .with(F::Pool_oh, oh)
          .with(F::Pool_ow, ow)
          .with(F::Pool_ch, ch)
          .with(F::Pool_sh, sh)
          .with(F::Pool_sw, sw)
          .with(F::Pool_in_pix_stride, ch + r(0, 3))
          .with(F::Pool_in_row_stride, cols * (ch + 3) + r(0, 5))
          .with(F::Pool_out_pix_stride, ch + r(0, 2))
          .with(F::Pool_out_row_stride, ow * (ch + 2))
          .with(F::Pool_bias, int64_t(r(0, 2000)) - 1000)
          .with(F::Pool_valid_y0, y0)
          .with(F::Pool_valid_y1, r(y0, rows))
          .with(F::Pool_valid_x0, x0)
          .with(F::Pool_valid_x1, r(x0, cols));
      I.setF32(F::Pool_scale, scale() * 256);
      I.setF32(F::Pool_out_scale, scale() * 256);
      orderBounds(I, F::Pool_u8, F::Pool_lo, F::Pool_hi);
    } else if (kind == 5) { // DWCONV
      uint64_t kh = r(1, 3), kw = r(1, 3), oh = r(1, 4), ow = r(1, 4),
               ch = r(1, 12);
      // Outputs own their ACC words: pixels and rows do not overlap.
      uint64_t cps = ch + r(0, 1);
      I = Instruction(Opcode::Dwconv);
      I.with(F::Dwconv_accumulate, coin())
          .with(F::Dwconv_in_zp, int64_t(r(0, 255)) - 128)
          .with(F::Dwconv_w_zp, int64_t(r(0, 255)) - 128)
          .with(F::Dwconv_kh, kh)
          .with(F::Dwconv_kw, kw)
          .with(F::Dwconv_sh, r(1, 2))
          .with(F::Dwconv_sw, r(1, 2))
          .with(F::Dwconv_dh, r(1, 2))
          .with(F::Dwconv_dw, r(1, 2))
          .with(F::Dwconv_in_addr, aBase(b) + r(0, 100))
          .with(F::Dwconv_w_addr, kWeights + r(0, 500))
          .with(F::Dwconv_c_addr, cBase(b) + r(0, 100))
          .with(F::Dwconv_oh, oh)
          .with(F::Dwconv_ow, ow)
          .with(F::Dwconv_ch, ch)
          .with(F::Dwconv_in_row_stride, r(40, 120))
          .with(F::Dwconv_in_pix_stride, ch + r(0, 3))
          .with(F::Dwconv_c_row_stride, (ow - 1) * cps + ch + r(0, 4))
          .with(F::Dwconv_c_pix_stride, cps);
    } else {
      I = fence(isa::Queue::Compute);
    }
    isa::setBankConflictFlag(I, cfg);
    if (fits(I, reads, writes))
      return I;
  }
}

std::vector<Instruction> Generator::program(unsigned T) {
  std::vector<Instruction> load, compute, store;
  std::vector<Instruction> out;
  // Constants: weights, scales (ACC), LUT, then the first tile.
  out.push_back(dma(Opcode::Load, 16384, kWeights, 4096));
  Instruction S(Opcode::Load);
  S.with(F::Load_sram, isa::Memory_acc)
      .with(F::Load_elem_bytes, 4)
      .with(F::Load_dram_addr, kScalesDram)
      .with(F::Load_sram_addr, kScalesAcc)
      .with(F::Load_n0, 64)
      .with(F::Load_n1, 1)
      .with(F::Load_n2, 1)
      .with(F::Load_n3, 1);
  out.push_back(S);
  out.push_back(dma(Opcode::Load, 24000, kLut, kLutBytes));
  Instruction tables(Opcode::Load);
  tables.with(F::Load_sram, isa::Memory_acc)
      .with(F::Load_elem_bytes, 4)
      .with(F::Load_dram_addr, kSoftmaxDram)
      .with(F::Load_sram_addr, kSoftmaxAcc)
      .with(F::Load_n0, 256 * kSoftmaxTables)
      .with(F::Load_n1, 1)
      .with(F::Load_n2, 1)
      .with(F::Load_n3, 1);
  out.push_back(tables);
  Instruction norms(Opcode::Load);
  norms.with(F::Load_sram, isa::Memory_acc)
      .with(F::Load_elem_bytes, 4)
      .with(F::Load_dram_addr, kNormDram)
      .with(F::Load_sram_addr, kNormAcc)
      .with(F::Load_n0, 64 * kNormVectors)
      .with(F::Load_n1, 1)
      .with(F::Load_n2, 1)
      .with(F::Load_n3, 1);
  out.push_back(norms);
  // Interleave the queues' instructions in a plausible program order: tile
  // t's loads, then its compute, then its stores.
  for (unsigned t = 0; t < T; ++t) {
    unsigned b = t % 2;
    if (coin(20))
      out.push_back(fence(isa::Queue::Load));
    out.push_back(withDeps(loadTile(b), false, t >= 2, false, true));
    unsigned n = r(1, 6);
    for (unsigned i = 0; i < n; ++i) {
      Instruction I = computeOp(b);
      bool first = i == 0, last = i + 1 == n;
      out.push_back(
          withDeps(I, first, first && t >= 2, last && t + 2 < T, last));
    }
    Instruction st =
        dma(Opcode::Store, kOut + t * 1024, oBase(b) + r(0, 100), r(1, 64));
    st.with(F::Store_n1, r(1, 4))
        .with(F::Store_s1, 80 + r(0, 100))
        .with(F::Store_t1, r(0, 200))
        .with(F::Store_i8_to_u8, coin(30));
    bool accToo = coin(40);
    out.push_back(withDeps(st, true, false, !accToo && t + 2 < T, false));
    if (accToo) {
      Instruction sa(Opcode::Store);
      sa.with(F::Store_sram, isa::Memory_acc)
          .with(F::Store_elem_bytes, 4)
          .with(F::Store_sram_addr, cBase(b) + r(0, 200))
          .with(F::Store_dram_addr, kAccOut + t * 512)
          .with(F::Store_n0, r(1, 32))
          .with(F::Store_n1, r(1, 3))
          .with(F::Store_s1, 128)
          .with(F::Store_t1, r(0, 64))
          .with(F::Store_n2, 1)
          .with(F::Store_n3, 1);
      out.push_back(withDeps(sa, false, false, t + 2 < T, false));
    }
  }
  out.push_back(end());
  return out;
}

isa::HwConfig randomConfig() {
  isa::HwConfig cfg = preset("tiny-4x4");
  cfg.array.rows = 8;
  cfg.array.cols = 8;
  cfg.sram.scratchpadBytes = 65536;
  cfg.sram.scratchpadBanks = 8;
  cfg.sram.accumulatorBytes = 16384;
  cfg.queues.cmdDepth = 4;
  cfg.queues.tokenDepth = 4;
  return cfg;
}
} // namespace

TEST(RandomPrograms, FunctionalAndCycleLeaveIdenticalMemories) {
  isa::HwConfig cfg = randomConfig();
  uint64_t totalCycles = 0, instructions = 0, inPlace = 0, luts = 0;
  uint64_t softmaxes = 0, layerNorms = 0, binaries = 0, reduces = 0;
  // VBINARY with an fp32 B from ACC (b_f32): all, per row (b_bcast).
  uint64_t binariesF32 = 0, binariesF32PerRow = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    Generator g(seed, cfg);
    std::vector<Instruction> prog = g.program(2 + seed % 7);
    // The generator emits only valid instructions (fields, footprints and the
    // streaming overlap rule), and keeps exercising in-place VADD.
    for (size_t i = 0; i < prog.size(); ++i) {
      if (auto e = isa::validateInstruction(prog[i], cfg))
        FAIL() << "seed " << seed << " instruction #" << i << ": "
               << llvm::toString(std::move(e));
      const Instruction &I = prog[i];
      luts += I.opcode() == Opcode::Vlut;
      softmaxes += I.opcode() == Opcode::Vsoftmax;
      layerNorms += I.opcode() == Opcode::Vlayernorm;
      binaries += I.opcode() == Opcode::Vbinary;
      if (I.opcode() == Opcode::Vbinary && I.getFlag(F::Vbinary_b_f32)) {
        ++binariesF32;
        binariesF32PerRow += I.getFlag(F::Vbinary_b_bcast);
      }
      reduces += I.opcode() == Opcode::Vreduce;
      if (I.opcode() == Opcode::Vadd)
        inPlace += !I.getFlag(F::Vadd_a_bcast) &&
                   I.raw(F::Vadd_a_addr) == I.raw(F::Vadd_o_addr);
    }
    MachineState init = MachineState::create(cfg, Generator::kDram);
    init.dram = g.dram();
    MachineState fs = init, cs = init;
    RunResult f = runFunctional(prog, cfg, fs);
    RunResult c = runCycleAccurate(prog, cfg, cs);
    ASSERT_FALSE(f.fault) << "seed " << seed << ": " << f.fault->message();
    ASSERT_FALSE(c.fault) << "seed " << seed << ": " << c.fault->message();
    ASSERT_EQ(f.stats.instructionsRetired, prog.size() - 1) << "seed " << seed;
    ASSERT_EQ(c.stats.instructionsRetired, prog.size() - 1) << "seed " << seed;
    EXPECT_TRUE(fs.dram == cs.dram) << "seed " << seed;
    EXPECT_TRUE(fs.scratchpad == cs.scratchpad) << "seed " << seed;
    EXPECT_TRUE(fs.accumulator == cs.accumulator) << "seed " << seed;
    // The program did something: DRAM output regions changed.
    EXPECT_FALSE(fs.dram == init.dram) << "seed " << seed;
    // Same action counts on both backends.
    EXPECT_EQ(f.stats.actions.macs, c.stats.actions.macs);
    EXPECT_EQ(f.stats.actions.spWriteBytes, c.stats.actions.spWriteBytes);
    totalCycles += c.stats.totalCycles;
    instructions += prog.size();
  }
  EXPECT_GT(totalCycles, instructions); // sanity: timing happened
  EXPECT_GT(inPlace, 0u);
  EXPECT_GT(luts, 0u);
  EXPECT_GT(softmaxes, 20u);
  EXPECT_GT(layerNorms, 20u);
  EXPECT_GT(binaries, 20u);
  EXPECT_GT(binariesF32, 10u);
  EXPECT_GT(binariesF32PerRow, 3u);
  EXPECT_GT(reduces, 20u);
}
