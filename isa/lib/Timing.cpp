//===- Timing.cpp - Cycle formulas, DMA bursts, footprints, bank sets -----===//
#include "systole/ISA/Timing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

using namespace systole::isa;

namespace {
constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
using u128 = unsigned __int128;
using i128 = __int128;

uint64_t sat(u128 v) { return v > kMax ? kMax : static_cast<uint64_t>(v); }
uint64_t satAdd(uint64_t a, uint64_t b) { return sat(u128(a) + b); }
uint64_t satMul(uint64_t a, uint64_t b) { return sat(u128(a) * b); }
uint64_t ceilDiv(uint64_t a, uint64_t b) {
  return b ? a / b + (a % b != 0) : 0;
}

using F = Field;

// Hull of {base + sum_i idx_i * stride_i + e : idx_i < n_i, e < span}.
// All strides are unsigned, so the extremes are at the box corners.
Access box(MemSpace s, bool w, uint64_t base,
           std::initializer_list<std::pair<uint64_t, uint64_t>> dims,
           uint64_t span, const char *name) {
  u128 hi = base;
  for (auto [n, stride] : dims) {
    if (n == 0)
      return {s, w, base, base, name};
    hi += u128(n - 1) * stride;
  }
  if (span == 0)
    return {s, w, base, base, name};
  hi += span;
  Access a{s, w, base, sat(hi), name};
  // One dimension of more than one row, its rows apart: the exact rows.
  std::pair<uint64_t, uint64_t> rowsDim{0, 0};
  unsigned multi = 0;
  for (auto [n, stride] : dims)
    if (n > 1)
      ++multi, rowsDim = {n, stride};
  if (multi == 1 && span <= rowsDim.second && hi <= UINT64_MAX)
    a.rows = rowsDim.first, a.pitch = rowsDim.second, a.run = span;
  return a;
}

// The rows of `a` (or its single run) as (first address, count, pitch,
// run).
struct Rows {
  i128 base, n, pitch, run;
};
Rows rowsOf(const Access &a) {
  if (a.rows > 1)
    return {i128(a.begin), i128(a.rows), i128(a.pitch), i128(a.run)};
  return {i128(a.begin), 1, 1, i128(a.end - a.begin)};
}
i128 floorDiv(i128 x, i128 y) { return x / y - ((x % y != 0) && (x < 0)); }

// max and min over x in [off, off+count) of (x / inner) * outer + x % inner,
// i.e. an address split into groups of `inner` contiguous elements.
std::pair<u128, u128> groupedExtremes(uint64_t off, uint64_t count,
                                      uint64_t inner, uint64_t outer) {
  auto g = [&](u128 x) { return (x / inner) * outer + x % inner; };
  u128 first = off, last = u128(off) + count - 1;
  u128 lo = g(first), hi = g(last);
  u128 lastGroupStart = (last / inner) * inner;
  if (lastGroupStart > first)
    hi = std::max(hi, g(lastGroupStart - 1));
  u128 nextGroupStart = (first / inner + 1) * inner;
  if (nextGroupStart <= last)
    lo = std::min(lo, g(nextGroupStart));
  return {lo, hi};
}

// Two-level index m -> (m / inner) * outer + (m % inner) * innerStride.
std::pair<u128, u128> rowExtremes(uint64_t count, uint64_t inner,
                                  uint64_t innerStride, uint64_t outer) {
  auto f = [&](u128 m) {
    return (m / inner) * outer + (m % inner) * innerStride;
  };
  u128 last = count - 1;
  u128 hi = f(last);
  u128 lastGroupStart = (last / inner) * inner;
  if (lastGroupStart > 0)
    hi = std::max(hi, f(lastGroupStart - 1));
  return {0, hi}; // f(0) = 0 is the minimum (all terms non-negative)
}

class BankSet {
public:
  BankSet(const HwConfig &cfg)
      : cfg(cfg),
        bits(cfg.sram.scratchpadBanks ? cfg.sram.scratchpadBanks : 1) {}
  bool full() const { return count == bits.size(); }
  void markRange(uint64_t a, uint64_t len) {
    if (!len)
      return;
    uint64_t b0 = cfg.scratchpadBank(a);
    uint64_t b1 = cfg.scratchpadBank(satAdd(a, len - 1));
    for (uint64_t b = b0; b <= b1 && b < bits.size(); ++b)
      if (!bits[b]) {
        bits[b] = true;
        ++count;
      }
  }
  // {base + i*stride + j : i < n, j < run}
  void markProgression(uint64_t base, uint64_t run, uint64_t n,
                       uint64_t stride) {
    if (!n || !run || full())
      return;
    uint64_t bank = cfg.scratchpadBankBytes();
    if (stride <= run || stride - run < bank) {
      // Gaps are narrower than a bank, so every bank in the hull is touched.
      markRange(base, sat(u128(n - 1) * stride + run));
      return;
    }
    for (uint64_t i = 0; i < n && !full(); ++i) {
      u128 a = u128(base) + u128(i) * stride;
      if (a >= cfg.sram.scratchpadBytes) {
        markRange(sat(a), run); // clamps to the last bank
        break;
      }
      markRange(static_cast<uint64_t>(a), run);
    }
  }
  bool intersects(const BankSet &o) const {
    for (size_t i = 0; i < bits.size(); ++i)
      if (bits[i] && o.bits[i])
        return true;
    return false;
  }

private:
  const HwConfig &cfg;
  std::vector<bool> bits;
  size_t count = 0;
};

// DMA runs: sum over (i1,i2,i3) of bursts(address mod burst). The burst count
// of a run depends only on its start modulo burst_bytes, and i*s mod B is
// periodic, so each level folds its loop to at most one period (memoized).
class BurstCounter {
public:
  BurstCounter(uint64_t B, uint64_t len, const uint64_t n[3],
               const uint64_t s[3])
      : B(B), len(len) {
    for (int i = 0; i < 3; ++i) {
      this->n[i] = n[i];
      this->s[i] = s[i] % B;
    }
  }
  uint64_t total(uint64_t base) { return level(2, base % B); }

private:
  uint64_t runBursts(uint64_t r) const { return (r + len - 1) / B + 1; }
  uint64_t level(int l, uint64_t r) {
    if (l < 0)
      return runBursts(r);
    auto &m = memo[l];
    auto it = m.find(r);
    if (it != m.end())
      return it->second;
    uint64_t period = B / std::gcd(s[l] ? s[l] : B, B);
    auto partial = [&](uint64_t count) {
      uint64_t acc = 0, rr = r;
      for (uint64_t j = 0; j < count; ++j) {
        acc = satAdd(acc, level(l - 1, rr));
        rr = (rr + s[l]) % B;
      }
      return acc;
    };
    uint64_t result;
    if (n[l] <= period)
      result = partial(n[l]);
    else
      result = satAdd(satMul(n[l] / period, partial(period)),
                      partial(n[l] % period));
    m.emplace(r, result);
    return result;
  }
  uint64_t B, len, n[3], s[3];
  std::unordered_map<uint64_t, uint64_t> memo[3];
};
} // namespace

bool systole::isa::accessesOverlap(const Access &a, const Access &b) {
  if (a.space != b.space || a.begin >= b.end || b.begin >= a.end)
    return false;
  Rows x = rowsOf(a), y = rowsOf(b);
  if (x.n > 1 && y.n > 1) {
    if (x.pitch != y.pitch)
      return true; // hulls only
    // Row i of a and row j of b meet iff -y.run < d + (j - i) * pitch <
    // x.run, d = y.base - x.base; k = j - i runs over [-(x.n-1), y.n-1].
    i128 d = y.base - x.base, p = x.pitch;
    i128 kLo = std::max(floorDiv(-y.run - d, p) + 1, -(x.n - 1));
    i128 kHi = std::min(floorDiv(x.run - d - 1, p), y.n - 1);
    return kLo <= kHi;
  }
  // One single run [r0, r1) against rows: row i meets it iff base + i *
  // pitch < r1 and base + i * pitch + run > r0.
  const Rows &c = x.n > 1 ? x : y, &r = x.n > 1 ? y : x;
  if (c.n <= 1)
    return true; // two runs whose hulls meet
  i128 r0 = r.base, r1 = r.base + r.run;
  i128 iLo = std::max<i128>(floorDiv(r0 - c.base - c.run, c.pitch) + 1, 0);
  i128 iHi = std::min(floorDiv(r1 - c.base - 1, c.pitch), c.n - 1);
  return iLo <= iHi;
}

llvm::StringRef systole::isa::memSpaceName(MemSpace s) {
  switch (s) {
  case MemSpace::Dram:
    return "DRAM";
  case MemSpace::Scratchpad:
    return "SP";
  case MemSpace::Accumulator:
    return "ACC";
  }
  return "";
}

std::vector<Access> systole::isa::accessRanges(const Instruction &I) {
  std::vector<Access> out;
  auto U = [&](Field f) { return I.raw(f); };
  switch (I.opcode()) {
  case Opcode::Load:
  case Opcode::Store: {
    bool load = I.opcode() == Opcode::Load;
    auto f = [&](Field l, Field s) { return U(load ? l : s); };
    bool acc = f(F::Load_sram, F::Store_sram) == Memory_acc;
    uint64_t elem = f(F::Load_elem_bytes, F::Store_elem_bytes);
    uint64_t n0 = f(F::Load_n0, F::Store_n0), n1 = f(F::Load_n1, F::Store_n1),
             n2 = f(F::Load_n2, F::Store_n2), n3 = f(F::Load_n3, F::Store_n3);
    uint64_t padT = load ? U(F::Load_pad_top) : 0,
             padB = load ? U(F::Load_pad_bottom) : 0,
             padL = load ? U(F::Load_pad_left) : 0,
             padR = load ? U(F::Load_pad_right) : 0;
    MemSpace sm = acc ? MemSpace::Accumulator : MemSpace::Scratchpad;
    // ACC is word addressed: one 4-byte element per word.
    uint64_t span = acc ? n0 : n0 * elem;
    Access sram =
        box(sm, load, f(F::Load_sram_addr, F::Store_sram_addr),
            {{n3, f(F::Load_t3, F::Store_t3)},
             {(n2 ? padT + n2 + padB : 0), f(F::Load_t2, F::Store_t2)},
             {(n1 ? padL + n1 + padR : 0), f(F::Load_t1, F::Store_t1)}},
            span, load ? "dst" : "src");
    Access dram =
        box(MemSpace::Dram, !load, f(F::Load_dram_addr, F::Store_dram_addr),
            {{n3, f(F::Load_s3, F::Store_s3)},
             {n2, f(F::Load_s2, F::Store_s2)},
             {n1, f(F::Load_s1, F::Store_s1)}},
            n0 * elem, load ? "src" : "dst");
    if (load)
      out = {dram, sram};
    else
      out = {sram, dram};
    break;
  }
  case Opcode::Matmul: {
    uint64_t M = U(F::Matmul_m), K = U(F::Matmul_k), N = U(F::Matmul_n);
    uint64_t mi = U(F::Matmul_a_m_inner), ki = U(F::Matmul_a_k_inner);
    uint64_t aBase = U(F::Matmul_a_addr);
    if (M && K && mi && ki) {
      auto [mLo, mHi] = rowExtremes(M, mi, U(F::Matmul_a_m_inner_stride),
                                    U(F::Matmul_a_m_outer_stride));
      auto [kLo, kHi] = groupedExtremes(U(F::Matmul_a_k_offset), K, ki,
                                        U(F::Matmul_a_k_outer_stride));
      out.push_back({MemSpace::Scratchpad, false, sat(u128(aBase) + mLo + kLo),
                     sat(u128(aBase) + mHi + kHi + 1), "A"});
    } else {
      out.push_back({MemSpace::Scratchpad, false, aBase, aBase, "A"});
    }
    out.push_back(box(MemSpace::Scratchpad, false, U(F::Matmul_b_addr),
                      {{K, U(F::Matmul_b_stride)}}, N, "B"));
    out.push_back(box(MemSpace::Accumulator, true, U(F::Matmul_c_addr),
                      {{M, U(F::Matmul_c_stride)}}, N, "C"));
    break;
  }
  case Opcode::Requant: {
    uint64_t M = U(F::Requant_m), N = U(F::Requant_n);
    out.push_back(box(MemSpace::Accumulator, false, U(F::Requant_c_addr),
                      {{M, U(F::Requant_c_stride)}}, N, "C"));
    out.push_back(box(
        MemSpace::Accumulator, false, U(F::Requant_scale_addr), {},
        (I.getFlag(F::Requant_per_tensor) || !N) ? (N ? 1 : 0) : N, "scale"));
    out.push_back(box(MemSpace::Scratchpad, true, U(F::Requant_o_addr),
                      {{M, U(F::Requant_o_stride)}}, N, "O"));
    if (I.getFlag(F::Requant_bias))
      out.push_back(box(MemSpace::Accumulator, false, U(F::Requant_bias_addr),
                        {}, N, "bias"));
    if (I.getFlag(F::Requant_lut))
      out.push_back(box(MemSpace::Scratchpad, false, U(F::Requant_lut_addr), {},
                        256, "lut"));
    break;
  }
  case Opcode::Vadd:
  case Opcode::Vmul: {
    bool add = I.opcode() == Opcode::Vadd;
    auto f = [&](Field a, Field m) { return U(add ? a : m); };
    uint64_t n0 = f(F::Vadd_n0, F::Vmul_n0), n1 = f(F::Vadd_n1, F::Vmul_n1);
    bool ab = f(F::Vadd_a_bcast, F::Vmul_a_bcast);
    bool bb = f(F::Vadd_b_bcast, F::Vmul_b_bcast);
    out.push_back(box(
        MemSpace::Scratchpad, false, f(F::Vadd_a_addr, F::Vmul_a_addr),
        {{n1, f(F::Vadd_a_s1, F::Vmul_a_s1)}}, n0 ? (ab ? 1 : n0) : 0, "A"));
    out.push_back(box(
        MemSpace::Scratchpad, false, f(F::Vadd_b_addr, F::Vmul_b_addr),
        {{n1, f(F::Vadd_b_s1, F::Vmul_b_s1)}}, n0 ? (bb ? 1 : n0) : 0, "B"));
    out.push_back(box(MemSpace::Scratchpad, true,
                      f(F::Vadd_o_addr, F::Vmul_o_addr),
                      {{n1, f(F::Vadd_o_s1, F::Vmul_o_s1)}}, n0, "O"));
    break;
  }
  case Opcode::Vlut: {
    uint64_t n0 = U(F::Vlut_n0), n1 = U(F::Vlut_n1);
    out.push_back(box(MemSpace::Scratchpad, false, U(F::Vlut_a_addr),
                      {{n1, U(F::Vlut_a_s1)}}, n0, "A"));
    out.push_back(box(MemSpace::Scratchpad, false, U(F::Vlut_lut_addr), {},
                      I.getFlag(F::Vlut_per_column) ? satMul(n0, 256) : 256,
                      "lut"));
    out.push_back(box(MemSpace::Scratchpad, true, U(F::Vlut_o_addr),
                      {{n1, U(F::Vlut_o_s1)}}, n0, "O"));
    break;
  }
  case Opcode::Pool: {
    uint64_t oh = U(F::Pool_oh), ow = U(F::Pool_ow), ch = U(F::Pool_ch);
    uint64_t rows = oh ? (oh - 1) * U(F::Pool_sh) + U(F::Pool_kh) : 0;
    uint64_t cols = ow ? (ow - 1) * U(F::Pool_sw) + U(F::Pool_kw) : 0;
    out.push_back(box(
        MemSpace::Scratchpad, false, U(F::Pool_in_addr),
        {{rows, U(F::Pool_in_row_stride)}, {cols, U(F::Pool_in_pix_stride)}},
        ch, "in"));
    out.push_back(
        box(MemSpace::Scratchpad, true, U(F::Pool_out_addr),
            {{oh, U(F::Pool_out_row_stride)}, {ow, U(F::Pool_out_pix_stride)}},
            ch, "out"));
    break;
  }
  case Opcode::Dwconv: {
    uint64_t oh = U(F::Dwconv_oh), ow = U(F::Dwconv_ow), ch = U(F::Dwconv_ch);
    uint64_t kh = U(F::Dwconv_kh), kw = U(F::Dwconv_kw);
    uint64_t rows =
        (oh && kh) ? (oh - 1) * U(F::Dwconv_sh) + (kh - 1) * U(F::Dwconv_dh) + 1
                   : 0;
    uint64_t cols =
        (ow && kw) ? (ow - 1) * U(F::Dwconv_sw) + (kw - 1) * U(F::Dwconv_dw) + 1
                   : 0;
    out.push_back(box(MemSpace::Scratchpad, false, U(F::Dwconv_in_addr),
                      {{rows, U(F::Dwconv_in_row_stride)},
                       {cols, U(F::Dwconv_in_pix_stride)}},
                      ch, "in"));
    out.push_back(box(MemSpace::Scratchpad, false, U(F::Dwconv_w_addr), {},
                      kh * kw * ch, "w"));
    out.push_back(
        box(MemSpace::Accumulator, true, U(F::Dwconv_c_addr),
            {{oh, U(F::Dwconv_c_row_stride)}, {ow, U(F::Dwconv_c_pix_stride)}},
            ch, "C"));
    break;
  }
  case Opcode::Fence:
  case Opcode::End:
    break;
  }
  return out;
}

DmaTiming systole::isa::dmaTiming(const Instruction &I, const HwConfig &cfg) {
  DmaTiming t;
  bool load = I.opcode() == Opcode::Load;
  if (!load && I.opcode() != Opcode::Store)
    return t;
  auto f = [&](Field l, Field s) { return I.raw(load ? l : s); };
  uint64_t n[3] = {f(F::Load_n1, F::Store_n1), f(F::Load_n2, F::Store_n2),
                   f(F::Load_n3, F::Store_n3)};
  uint64_t s[3] = {f(F::Load_s1, F::Store_s1), f(F::Load_s2, F::Store_s2),
                   f(F::Load_s3, F::Store_s3)};
  uint64_t len =
      f(F::Load_n0, F::Store_n0) * f(F::Load_elem_bytes, F::Store_elem_bytes);
  t.runs = satMul(satMul(n[0], n[1]), n[2]);
  t.bytes = satMul(t.runs, len);
  t.latencyCycles = cfg.dram.latencyCycles;
  if (!t.runs || !len || !cfg.dram.burstBytes || !cfg.dram.bytesPerCycle)
    return t;
  BurstCounter counter(cfg.dram.burstBytes, len, n, s);
  t.bursts = counter.total(f(F::Load_dram_addr, F::Store_dram_addr));
  t.burstCycles =
      satMul(t.bursts, cfg.dram.burstBytes / cfg.dram.bytesPerCycle);
  if (load) {
    // Box positions that are not real data: n3 x (rows x cols - n2 x n1).
    uint64_t rows =
        satAdd(satAdd(I.raw(F::Load_pad_top), n[1]), I.raw(F::Load_pad_bottom));
    uint64_t cols =
        satAdd(satAdd(I.raw(F::Load_pad_left), n[0]), I.raw(F::Load_pad_right));
    t.padRuns = satMul(n[2], satMul(rows, cols) - satMul(n[1], n[0]));
    t.padCycles = satMul(t.padRuns, ceilDiv(len, cfg.dram.bytesPerCycle));
  }
  t.channelCycles = std::max(t.burstCycles, t.padCycles);
  return t;
}

bool systole::isa::matmulBankConflict(const Instruction &I,
                                      const HwConfig &cfg) {
  if (I.opcode() != Opcode::Matmul)
    return false;
  uint64_t M = I.raw(F::Matmul_m), K = I.raw(F::Matmul_k),
           N = I.raw(F::Matmul_n);
  uint64_t mi = I.raw(F::Matmul_a_m_inner), ki = I.raw(F::Matmul_a_k_inner);
  if (!M || !K || !N || !mi || !ki)
    return false;
  BankSet a(cfg), b(cfg);
  uint64_t kos = I.raw(F::Matmul_a_k_outer_stride);
  uint64_t off = I.raw(F::Matmul_a_k_offset);
  uint64_t q0 = off / ki, r0 = off % ki;
  uint64_t firstLen = std::min(ki - r0, K);
  uint64_t rest = K - firstLen;
  // OS tiles have M <= R <= 1024; anything larger is rejected by the verifier.
  uint64_t rows = std::min<uint64_t>(M, 1u << 16);
  for (uint64_t m = 0; m < rows && !a.full(); ++m) {
    u128 row = u128(I.raw(F::Matmul_a_addr)) +
               u128(m / mi) * I.raw(F::Matmul_a_m_outer_stride) +
               u128(m % mi) * I.raw(F::Matmul_a_m_inner_stride);
    a.markRange(sat(row + u128(q0) * kos + r0), firstLen);
    a.markProgression(sat(row + u128(q0 + 1) * kos), ki, rest / ki, kos);
    a.markRange(sat(row + u128(q0 + 1 + rest / ki) * kos), rest % ki);
  }
  b.markProgression(I.raw(F::Matmul_b_addr), N, K, I.raw(F::Matmul_b_stride));
  return a.intersects(b);
}

bool systole::isa::vectorBankConflict(const Instruction &I,
                                      const HwConfig &cfg) {
  bool add = I.opcode() == Opcode::Vadd;
  if (!add && I.opcode() != Opcode::Vmul)
    return false;
  auto f = [&](Field a, Field m) { return I.raw(add ? a : m); };
  uint64_t n0 = f(F::Vadd_n0, F::Vmul_n0), n1 = f(F::Vadd_n1, F::Vmul_n1);
  BankSet a(cfg), b(cfg);
  a.markProgression(f(F::Vadd_a_addr, F::Vmul_a_addr),
                    f(F::Vadd_a_bcast, F::Vmul_a_bcast) ? 1 : n0, n1,
                    f(F::Vadd_a_s1, F::Vmul_a_s1));
  b.markProgression(f(F::Vadd_b_addr, F::Vmul_b_addr),
                    f(F::Vadd_b_bcast, F::Vmul_b_bcast) ? 1 : n0, n1,
                    f(F::Vadd_b_s1, F::Vmul_b_s1));
  return a.intersects(b);
}

void systole::isa::setBankConflictFlag(Instruction &I, const HwConfig &cfg) {
  switch (I.opcode()) {
  case Opcode::Matmul:
    I.setRaw(F::Matmul_bank_conflict,
             matmulBankConflict(I, cfg) &&
                 I.raw(F::Matmul_dataflow) == Dataflow_os);
    break;
  case Opcode::Vadd:
    I.setRaw(F::Vadd_bank_conflict, vectorBankConflict(I, cfg));
    break;
  case Opcode::Vmul:
    I.setRaw(F::Vmul_bank_conflict, vectorBankConflict(I, cfg));
    break;
  default:
    break;
  }
}

uint64_t systole::isa::computeCycles(const Instruction &I,
                                     const HwConfig &cfg) {
  const uint64_t R = cfg.array.rows, C = cfg.array.cols;
  const uint64_t lanes = cfg.vector.lanes, P = cfg.vector.pipelineDepth;
  auto U = [&](Field f) { return I.raw(f); };
  switch (I.opcode()) {
  case Opcode::Matmul: {
    if (U(F::Matmul_dataflow) == Dataflow_ws) {
      // Optional weight shift (R), M rows streamed, R + C - 1 fill/drain.
      uint64_t c = satAdd(U(F::Matmul_m), R + C - 1);
      return U(F::Matmul_preload) ? satAdd(c, R) : c;
    }
    uint64_t K = U(F::Matmul_k);
    uint64_t c = satAdd(K, 2 * R + C - 2);
    return matmulBankConflict(I, cfg) ? satAdd(c, K) : c;
  }
  case Opcode::Requant:
    return satAdd(satMul(U(F::Requant_m), ceilDiv(U(F::Requant_n), lanes)), P);
  case Opcode::Vadd:
  case Opcode::Vmul: {
    bool add = I.opcode() == Opcode::Vadd;
    uint64_t L = satMul(U(add ? F::Vadd_n0 : F::Vmul_n0),
                        U(add ? F::Vadd_n1 : F::Vmul_n1));
    uint64_t beats = ceilDiv(L, lanes);
    return satAdd(vectorBankConflict(I, cfg) ? satMul(beats, 2) : beats, P);
  }
  case Opcode::Vlut:
    // Two dependent SP reads per beat: A, then the table entry it indexes.
    return satAdd(
        satMul(ceilDiv(satMul(U(F::Vlut_n0), U(F::Vlut_n1)), lanes), 2), P);
  case Opcode::Pool:
    return satAdd(satMul(satMul(satMul(U(F::Pool_oh), U(F::Pool_ow)),
                                satMul(U(F::Pool_kh), U(F::Pool_kw))),
                         ceilDiv(U(F::Pool_ch), lanes)),
                  P);
  case Opcode::Dwconv:
    return satAdd(satMul(satMul(satMul(U(F::Dwconv_oh), U(F::Dwconv_ow)),
                                satMul(U(F::Dwconv_kh), U(F::Dwconv_kw))),
                         ceilDiv(U(F::Dwconv_ch), lanes)),
                  P);
  case Opcode::Fence:
    return 1;
  case Opcode::Load:
  case Opcode::Store:
  case Opcode::End:
    return 0;
  }
  return 0;
}

uint64_t systole::isa::predictedCycles(const Instruction &I,
                                       const HwConfig &cfg) {
  if (I.opcode() == Opcode::Load || I.opcode() == Opcode::Store) {
    DmaTiming t = dmaTiming(I, cfg);
    return satAdd(t.channelCycles, t.latencyCycles);
  }
  return computeCycles(I, cfg);
}

HostTiming systole::isa::hostTiming(uint64_t bytes, uint64_t tensors,
                                    uint64_t ops, const HwConfig &cfg) {
  HostTiming t;
  uint64_t bpc = std::max<uint64_t>(cfg.dram.bytesPerCycle, 1);
  t.transferCycles = (bytes + bpc - 1) / bpc + tensors * cfg.dram.latencyCycles;
  if (ops)
    t.computeCycles =
        static_cast<uint64_t>(std::ceil(double(ops) / cfg.host.opsPerCycle));
  return t;
}

bool systole::isa::onPostProcessor(const Instruction &inst,
                                   const HwConfig &cfg) {
  if (!cfg.vector.requantOverlap)
    return false;
  switch (inst.opcode()) {
  case Opcode::Requant:
  case Opcode::Vadd:
  case Opcode::Vmul:
  case Opcode::Vlut:
    return true;
  default:
    return false;
  }
}
