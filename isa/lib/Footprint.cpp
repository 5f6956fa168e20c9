//===- Footprint.cpp - accessRanges and the overlap solvers ---------------===//
#include "systole/ISA/Footprint.h"

#include "IntMath.h"

#include <algorithm>

using namespace systole::isa;
using namespace systole::isa::detail;

namespace {
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

// The k < n with k*s in the open interval (lo, hi), as [first, last); when
// s == 0 all k name the same address, so at most k = 0.
std::pair<i128, i128> multiplesIn(i128 lo, i128 hi, uint64_t s, uint64_t n) {
  if (s == 0)
    return lo < 0 && hi > 0 ? std::pair<i128, i128>{0, 1}
                            : std::pair<i128, i128>{0, 0};
  if (hi <= 0)
    return {0, 0};
  i128 first = lo < 0 ? 0 : lo / s + 1;
  i128 last = std::min<i128>(n, (hi + s - 1) / s);
  return {first, std::max(first, last)};
}

bool multipleIn(i128 lo, i128 hi, uint64_t s, uint64_t n) {
  auto [first, last] = multiplesIn(lo, hi, s, n);
  return first < last;
}

// Does [a, a + w) meet Y? Visits only Y's rows whose hull meets the run, one
// unit of `budget` each (none when Y's rows are single runs); nullopt when
// the budget runs out.
std::optional<bool> runMeets(i128 a, uint64_t w, const StridedRuns &Y,
                             uint64_t &budget) {
  i128 d = a - i128(Y.base);
  if (Y.n2 == 1) // rows are single runs: one test, however rows overlap
    return multipleIn(d - i128(Y.w), d + w, Y.s1, Y.n1);
  auto [first, last] = multiplesIn(d - i128(Y.rowSpan()), d + w, Y.s1, Y.n1);
  for (i128 j = first; j < last; ++j) {
    if (!budget--)
      return std::nullopt;
    i128 r = d - j * i128(Y.s1); // the run relative to row j
    if (multipleIn(r - i128(Y.w), r + w, Y.s2, Y.n2))
      return true;
  }
  return false;
}

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

std::optional<ElementwiseFields> systole::isa::elementwiseFields(Opcode op) {
#define SYSTOLE_ELEMENTWISE(Op)                                                \
  ElementwiseFields {                                                          \
    F::Op##_a_addr, F::Op##_b_addr, F::Op##_o_addr, F::Op##_n0, F::Op##_n1,    \
        F::Op##_a_s1, F::Op##_b_s1, F::Op##_o_s1, F::Op##_a_bcast,             \
        F::Op##_b_bcast, F::Op##_bank_conflict                                 \
  }
  switch (op) {
  case Opcode::Vadd:
    return SYSTOLE_ELEMENTWISE(Vadd);
  case Opcode::Vmul:
    return SYSTOLE_ELEMENTWISE(Vmul);
  case Opcode::Vbinary:
    return SYSTOLE_ELEMENTWISE(Vbinary);
  default:
    return std::nullopt;
  }
#undef SYSTOLE_ELEMENTWISE
}

bool systole::isa::elementwiseBInAcc(const Instruction &I) {
  return I.opcode() == Opcode::Vbinary && I.getFlag(F::Vbinary_b_f32);
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
  case Opcode::Vmul:
  case Opcode::Vbinary: {
    ElementwiseFields e = *elementwiseFields(I.opcode());
    uint64_t n0 = U(e.n0), n1 = U(e.n1);
    bool ab = U(e.aBcast), bb = U(e.bBcast);
    out.push_back(box(MemSpace::Scratchpad, false, U(e.aAddr), {{n1, U(e.aS1)}},
                      n0 ? (ab ? 1 : n0) : 0, "A"));
    // An fp32 B (b_f32) is ACC words, one element each.
    out.push_back(
        box(elementwiseBInAcc(I) ? MemSpace::Accumulator : MemSpace::Scratchpad,
            false, U(e.bAddr), {{n1, U(e.bS1)}}, n0 ? (bb ? 1 : n0) : 0, "B"));
    out.push_back(
        box(MemSpace::Scratchpad, true, U(e.oAddr), {{n1, U(e.oS1)}}, n0, "O"));
    break;
  }
  case Opcode::Vreduce: {
    uint64_t n0 = U(F::Vreduce_n0), n1 = U(F::Vreduce_n1);
    out.push_back(box(MemSpace::Scratchpad, false, U(F::Vreduce_a_addr),
                      {{n1, U(F::Vreduce_a_s1)}}, n0, "A"));
    out.push_back(box(MemSpace::Scratchpad, true, U(F::Vreduce_o_addr),
                      {{n1, U(F::Vreduce_o_s1)}}, n0 ? 1 : 0, "O"));
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
  case Opcode::Vsoftmax: {
    uint64_t n0 = U(F::Vsoftmax_n0), n1 = U(F::Vsoftmax_n1);
    out.push_back(box(MemSpace::Scratchpad, false, U(F::Vsoftmax_a_addr),
                      {{n1, U(F::Vsoftmax_a_s1)}}, n0, "A"));
    out.push_back(box(MemSpace::Accumulator, false, U(F::Vsoftmax_table_addr),
                      {}, 256, "table"));
    out.push_back(box(MemSpace::Scratchpad, true, U(F::Vsoftmax_o_addr),
                      {{n1, U(F::Vsoftmax_o_s1)}}, n0, "O"));
    break;
  }
  case Opcode::Vlayernorm: {
    uint64_t n0 = U(F::Vlayernorm_n0), n1 = U(F::Vlayernorm_n1);
    out.push_back(box(MemSpace::Scratchpad, false, U(F::Vlayernorm_a_addr),
                      {{n1, U(F::Vlayernorm_a_s1)}}, n0, "A"));
    out.push_back(box(MemSpace::Accumulator, false, U(F::Vlayernorm_gamma_addr),
                      {}, n0, "gamma"));
    if (I.getFlag(F::Vlayernorm_bias))
      out.push_back(box(MemSpace::Accumulator, false,
                        U(F::Vlayernorm_beta_addr), {}, n0, "beta"));
    out.push_back(box(MemSpace::Scratchpad, true, U(F::Vlayernorm_o_addr),
                      {{n1, U(F::Vlayernorm_o_s1)}}, n0, "O"));
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

// Exact: walks the runs of the operand with fewer of them that lie in Y's
// hull, each tested against Y's rows by arithmetic.
std::optional<bool> systole::isa::stridedRunsOverlap(StridedRuns X,
                                                     StridedRuns Y,
                                                     uint64_t budget) {
  if (X.empty() || Y.empty() || X.end() <= Y.base || Y.end() <= X.base)
    return false;
  if (u128(X.n1) * X.n2 > u128(Y.n1) * Y.n2)
    std::swap(X, Y);
  i128 d = i128(Y.base) - i128(X.base), yEnd = i128(Y.end()) - i128(X.base);
  auto [j0, j1] = multiplesIn(d - i128(X.rowSpan()), yEnd, X.s1, X.n1);
  for (i128 j = j0; j < j1; ++j) {
    if (!budget--)
      return std::nullopt;
    i128 row = j * i128(X.s1);
    auto [k0, k1] = multiplesIn(d - row - X.w, yEnd - row, X.s2, X.n2);
    for (i128 k = k0; k < k1; ++k) {
      if (!budget--)
        return std::nullopt;
      auto m = runMeets(i128(X.base) + row + k * i128(X.s2), X.w, Y, budget);
      if (!m || *m)
        return m;
    }
  }
  return false;
}

// Cells (y0, x0) and (y1, x1) share an address iff
// |dy*rowStride + dx*pixStride| < width for (dy, dx) = (y1-y0, x1-x0) != 0.
std::optional<GridCellPair>
systole::isa::sharedGridCells(uint64_t rows, uint64_t cols, uint64_t width,
                              uint64_t rowStride, uint64_t pixStride) {
  if (cols > 1 && pixStride < width)
    return GridCellPair{0, 0, 0, 1};
  if (rows == 1 || u128(rowStride) >= u128(cols - 1) * pixStride + width)
    return std::nullopt; // rows do not even share their hulls
  // Pairs with dy = 0 are apart (pixStride >= width); by symmetry dy > 0
  // suffices.
  for (uint64_t dy = 1; dy < rows; ++dy) {
    i128 t = -i128(dy) * rowStride;
    // The least dx > -cols with dx*pixStride > t - width, then is
    // dx*pixStride < t + width?
    i128 dx = 0;
    if (pixStride)
      dx = std::max<i128>(floorDiv(t - i128(width), i128(pixStride)) + 1,
                          1 - i128(cols));
    if (dx < i128(cols) && dx * i128(pixStride) > t - i128(width) &&
        dx * i128(pixStride) < t + i128(width)) {
      uint64_t x0 = dx < 0 ? uint64_t(-dx) : 0;
      return GridCellPair{0, x0, dy, uint64_t(i128(x0) + dx)};
    }
  }
  return std::nullopt;
}
