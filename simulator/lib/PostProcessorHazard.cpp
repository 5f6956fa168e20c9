//===- PostProcessorHazard.cpp - MATMUL vs the running post-processor ----===//
#include "PostProcessorHazard.h"

#include "systole/ISA/Footprint.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace systole;
using isa::Field;

namespace {

/// Closed address interval [lo, hi].
struct Span {
  uint64_t lo, hi;
  bool overlaps(const Span &o) const { return lo <= o.hi && o.lo <= hi; }
};

/// `rows` rows of `cols` elements, `stride` apart, from `base`.
Span rows(uint64_t base, uint64_t count, uint64_t stride, uint64_t cols) {
  count = std::max<uint64_t>(count, 1), cols = std::max<uint64_t>(cols, 1);
  return {base, base + (count - 1) * stride + cols - 1};
}

/// A(m, k) of docs/isa.md's MATMUL addressing, m < M, k < K.
Span matmulA(const isa::Instruction &I) {
  uint64_t M = std::max<uint64_t>(I.raw(Field::Matmul_m), 1);
  uint64_t K = std::max<uint64_t>(I.raw(Field::Matmul_k), 1);
  uint64_t mInner = std::max<uint64_t>(I.raw(Field::Matmul_a_m_inner), 1);
  uint64_t kInner = std::max<uint64_t>(I.raw(Field::Matmul_a_k_inner), 1);
  uint64_t kkMax = I.raw(Field::Matmul_a_k_offset) + K - 1;
  uint64_t mPart =
      (M - 1) / mInner * I.raw(Field::Matmul_a_m_outer_stride) +
      (std::min(M, mInner) - 1) * I.raw(Field::Matmul_a_m_inner_stride);
  uint64_t kPart = kkMax / kInner * I.raw(Field::Matmul_a_k_outer_stride) +
                   std::min(kInner - 1, kkMax);
  uint64_t base = I.raw(Field::Matmul_a_addr);
  return {base, base + mPart + kPart};
}

std::string show(const char *what, const Span &s) {
  return llvm::formatv("{0} [{1}, {2}]", what, s.lo, s.hi).str();
}

} // namespace

std::optional<std::string>
sim::postProcessorHazard(const isa::Instruction &mm,
                         const isa::Instruction &rq) {
  if (rq.opcode() != isa::Opcode::Requant) {
    // VADD, VMUL, VLUT: scratchpad in and out. A MATMUL writes only the
    // accumulator, so the one conflict is reading what they write.
    std::string name =
        llvm::StringRef(isa::opcodeInfo(rq.opcode()).mnemonic).upper();
    Span b = rows(mm.raw(Field::Matmul_b_addr), mm.raw(Field::Matmul_k),
                  mm.raw(Field::Matmul_b_stride), mm.raw(Field::Matmul_n));
    for (const isa::Access &w : isa::accessRanges(rq)) {
      if (!w.write || w.space != isa::MemSpace::Scratchpad || w.end <= w.begin)
        continue;
      Span out{w.begin, w.end - 1};
      for (const auto &[op, span] :
           {std::pair<const char *, Span>{"A", matmulA(mm)}, {"B", b}})
        if (span.overlaps(out))
          return show((std::string("MATMUL reads ") + op + " at SP").c_str(),
                      span) +
                 ", " + name + " writes " + show("SP", out);
    }
    return std::nullopt;
  }
  uint64_t n = rq.raw(Field::Requant_n);
  Span accWrite = rows(mm.raw(Field::Matmul_c_addr), mm.raw(Field::Matmul_m),
                       mm.raw(Field::Matmul_c_stride), mm.raw(Field::Matmul_n));
  Span accReads[3] = {rows(rq.raw(Field::Requant_c_addr),
                           rq.raw(Field::Requant_m),
                           rq.raw(Field::Requant_c_stride), n),
                      rows(rq.raw(Field::Requant_scale_addr), 1, 0,
                           rq.raw(Field::Requant_per_tensor) ? 1 : n),
                      rows(rq.raw(Field::Requant_bias_addr), 1, 0, n)};
  const char *accNames[3] = {"input tile", "scales", "bias"};
  for (int i = 0; i < 3; ++i) {
    if (i == 2 && !rq.raw(Field::Requant_bias))
      continue;
    if (accWrite.overlaps(accReads[i]))
      return show("MATMUL writes ACC", accWrite) + ", REQUANT reads its " +
             accNames[i] + " at " + show("ACC", accReads[i]);
  }
  Span spWrite = rows(rq.raw(Field::Requant_o_addr), rq.raw(Field::Requant_m),
                      rq.raw(Field::Requant_o_stride), n);
  Span b = rows(mm.raw(Field::Matmul_b_addr), mm.raw(Field::Matmul_k),
                mm.raw(Field::Matmul_b_stride), mm.raw(Field::Matmul_n));
  for (const auto &[name, span] :
       {std::pair<const char *, Span>{"A", matmulA(mm)}, {"B", b}})
    if (span.overlaps(spWrite))
      return show((std::string("MATMUL reads ") + name + " at SP").c_str(),
                  span) +
             ", REQUANT writes " + show("SP", spWrite);
  return std::nullopt;
}
