//===- Timing.cpp - Cycle formulas, DMA bursts, bank sets -----------------===//
#include "systole/ISA/Timing.h"
#include "systole/ISA/Footprint.h"

#include "IntMath.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

using namespace systole::isa;
using namespace systole::isa::detail;

namespace {
using F = Field;

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
  std::optional<ElementwiseFields> e = elementwiseFields(I.opcode());
  // An fp32 B is read from ACC: A alone reads the scratchpad.
  if (!e || elementwiseBInAcc(I))
    return false;
  auto U = [&](Field f) { return I.raw(f); };
  uint64_t n0 = U(e->n0), n1 = U(e->n1);
  BankSet a(cfg), b(cfg);
  a.markProgression(U(e->aAddr), U(e->aBcast) ? 1 : n0, n1, U(e->aS1));
  b.markProgression(U(e->bAddr), U(e->bBcast) ? 1 : n0, n1, U(e->bS1));
  return a.intersects(b);
}

void systole::isa::setBankConflictFlag(Instruction &I, const HwConfig &cfg) {
  switch (I.opcode()) {
  case Opcode::Matmul:
    // Only OS MATMULs stall on a conflict; WS ones skip the bank walk.
    I.setRaw(F::Matmul_bank_conflict,
             I.raw(F::Matmul_dataflow) == Dataflow_os &&
                 matmulBankConflict(I, cfg));
    break;
  case Opcode::Vadd:
  case Opcode::Vmul:
  case Opcode::Vbinary:
    I.setRaw(elementwiseFields(I.opcode())->bankConflict,
             vectorBankConflict(I, cfg));
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
  case Opcode::Vmul:
  case Opcode::Vbinary: {
    ElementwiseFields e = *elementwiseFields(I.opcode());
    uint64_t L = satMul(U(e.n0), U(e.n1));
    uint64_t beats = ceilDiv(L, lanes);
    return satAdd(vectorBankConflict(I, cfg) ? satMul(beats, 2) : beats, P);
  }
  case Opcode::Vlut:
    // Two dependent SP reads per beat: A, then the table entry it indexes.
    return satAdd(
        satMul(ceilDiv(satMul(U(F::Vlut_n0), U(F::Vlut_n1)), lanes), 2), P);
  case Opcode::Vsoftmax: {
    // Lanes take rows; per group of `lanes` rows three passes over the
    // columns: the maximum (n0), the sum (n0 + 1: each table entry is read
    // the cycle after its code) and the outputs (n0 + 1).
    uint64_t n0 = U(F::Vsoftmax_n0);
    return satAdd(
        satMul(ceilDiv(U(F::Vsoftmax_n1), lanes), satAdd(satMul(n0, 3), 2)), P);
  }
  case Opcode::Vlayernorm:
    // Lanes take rows; per group of `lanes` rows the sums pass (n0), the
    // row statistics (kLayerNormStatCycles: two divisions, a multiply, a
    // subtraction, an addition and a square root, one cycle each) and the
    // outputs pass (n0: gamma and beta are read with the codes, their
    // addresses do not depend on the data).
    return satAdd(
        satMul(ceilDiv(U(F::Vlayernorm_n1), lanes),
               satAdd(satMul(U(F::Vlayernorm_n0), 2), kLayerNormStatCycles)),
        P);
  case Opcode::Vreduce:
    // Lanes take rows; per group of `lanes` rows one add per element
    // (n0) and the finish (kReduceFinishCycles).
    return satAdd(satMul(ceilDiv(U(F::Vreduce_n1), lanes),
                         satAdd(U(F::Vreduce_n0), kReduceFinishCycles)),
                  P);
  case Opcode::Pool:
    return satAdd(satMul(satMul(satMul(U(F::Pool_oh), U(F::Pool_ow)),
                                satMul(U(F::Pool_kh), U(F::Pool_kw))),
                         ceilDiv(U(F::Pool_ch), lanes)),
                  P);
  case Opcode::Dwconv: {
    // One beat per (pixel, channel group, kernel row, dwconv_taps taps).
    uint64_t T = std::max<uint64_t>(1, cfg.vector.dwconvTaps);
    uint64_t taps = satMul(U(F::Dwconv_kh), ceilDiv(U(F::Dwconv_kw), T));
    return satAdd(satMul(satMul(satMul(U(F::Dwconv_oh), U(F::Dwconv_ow)), taps),
                         ceilDiv(U(F::Dwconv_ch), lanes)),
                  P);
  }
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
