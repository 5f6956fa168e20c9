//===- MatmulPipeline.cpp - When the next MATMUL may enter the array ------===//
//
// The rule (docs/isa.md section 6), for a WS MATMUL issued at s with
// p = R if it preloads weights (else 0), following WS MATMULs:
//  - rows: its first row of A enters row 0 of the array after the previous
//    MATMUL's last one, s + p >= s' + p' + M' (the previous issued at s');
//  - weights: its preload feeds column j during s + j .. s + j + R - 1 and
//    latches that column's shadow registers at s + R - 1 + j, which must
//    not come before PE(i, j) switched to the weights of the previous
//    preloading MATMUL (issued at sL, switching at sL + R + i + j), for
//    every row i: s >= sL + R;
//  - at most matmul_inflight MATMULs in the array, and one whose
//    accumulator writes could overtake an earlier one's waits for it.
// Everything else (OS, a WS MATMUL after an OS one, matmul_inflight = 1)
// waits until the array has drained.
//
//===----------------------------------------------------------------------===//
#include "systole/ISA/MatmulPipeline.h"

#include "systole/ISA/Timing.h"

#include <algorithm>

using namespace systole::isa;
using F = Field;

namespace {

struct AccBox {
  uint64_t addr, stride, m, n;
  uint64_t begin() const { return addr; }
  uint64_t end() const {
    // Saturating: an out-of-range box never wraps into a small one.
    unsigned __int128 e = (unsigned __int128)addr +
                          (unsigned __int128)(m ? m - 1 : 0) * stride + n;
    return e > UINT64_MAX ? UINT64_MAX : uint64_t(e);
  }
};

AccBox accBox(const Instruction &I) {
  return {I.raw(F::Matmul_c_addr), I.raw(F::Matmul_c_stride),
          I.raw(F::Matmul_m), I.raw(F::Matmul_n)};
}

bool isWs(const Instruction &I) {
  return I.raw(F::Matmul_dataflow) == Dataflow_ws;
}

} // namespace

bool MatmulPipeline::mayFollow(const Instruction &earlier,
                               const Instruction &later) {
  if (!isWs(earlier) || !isWs(later))
    return false;
  AccBox a = accBox(earlier), b = accBox(later);
  if (a.end() <= b.begin() || b.end() <= a.begin())
    return true;
  // The same tile (the K split accumulating into it): word addr + m*stride +
  // n is written in column n by both, and distinct (m, n) give distinct
  // words when a row does not overlap the next.
  if (a.addr == b.addr && a.stride == b.stride && a.n == b.n &&
      (a.stride >= a.n || (a.m <= 1 && b.m <= 1)))
    return true;
  // Column slices of one tile (an item wider than the array writes its
  // column tiles side by side): with one row pitch, every row of the
  // higher box lies between two rows of the lower one.
  const AccBox &lo = a.addr <= b.addr ? a : b, &hi = a.addr <= b.addr ? b : a;
  uint64_t d = hi.addr - lo.addr;
  return a.stride == b.stride && d >= lo.n && d + hi.n <= a.stride;
}

uint64_t MatmulPipeline::earliestIssue(const Instruction &I) const {
  if (history.empty())
    return 0;
  const Issued &prev = history.back();
  if (cfg.array.matmulInflight <= 1 || !mayFollow(prev.inst, I))
    return prev.end;
  const uint64_t R = cfg.array.rows;
  uint64_t pPrev = prev.inst.raw(F::Matmul_preload) ? R : 0;
  uint64_t p = I.raw(F::Matmul_preload) ? R : 0;
  uint64_t rowsFree = prev.start + pPrev + prev.inst.raw(F::Matmul_m);
  uint64_t t = rowsFree > p ? rowsFree - p : 0;
  if (p && lastPreload)
    t = std::max(t, *lastPreload + R);
  if (history.size() >= cfg.array.matmulInflight)
    t = std::max(t, history[history.size() - cfg.array.matmulInflight].end);
  for (const Issued &x : history)
    if (!mayFollow(x.inst, I))
      t = std::max(t, x.end);
  return t;
}

uint64_t MatmulPipeline::issue(const Instruction &I, uint64_t start) {
  uint64_t d = computeCycles(I, cfg);
  uint64_t end = start > UINT64_MAX - d ? UINT64_MAX : start + d;
  history.push_back({I, start, end});
  while (history.size() > std::max<uint64_t>(cfg.array.matmulInflight, 1))
    history.pop_front();
  if (isWs(I) && I.raw(F::Matmul_preload))
    lastPreload = start;
  return end;
}
