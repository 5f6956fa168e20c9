//===- CycleBreakdown.cpp - Where the cycles of a span went ---------------===//
//
// Layers of the pipelined schedule overlap, so per-queue busy sums do not
// add up to a layer's span. Instead every cycle of the span gets one class
// (compute before DMA before stall), computed as unions of intervals.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/Analysis.h"

#include <algorithm>

using namespace systole;
using namespace systole::rt;

namespace {
using Interval = std::pair<uint64_t, uint64_t>;

/// Sorted, disjoint union of `v`, clipped to [begin, end).
std::vector<Interval> unionOf(std::vector<Interval> v, uint64_t begin,
                              uint64_t end) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (auto [s, e] : v) {
    s = std::max(s, begin);
    e = std::min(e, end);
    if (s >= e)
      continue;
    if (!out.empty() && s <= out.back().second)
      out.back().second = std::max(out.back().second, e);
    else
      out.emplace_back(s, e);
  }
  return out;
}

uint64_t lengthOf(const std::vector<Interval> &v) {
  uint64_t n = 0;
  for (auto [s, e] : v)
    n += e - s;
  return n;
}

/// Length of the intersection of two sorted disjoint unions.
uint64_t overlapOf(const std::vector<Interval> &a,
                   const std::vector<Interval> &b) {
  uint64_t n = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    uint64_t s = std::max(a[i].first, b[j].first);
    uint64_t e = std::min(a[i].second, b[j].second);
    if (s < e)
      n += e - s;
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return n;
}
} // namespace

CycleBreakdown rt::cycleBreakdown(llvm::ArrayRef<isa::Instruction> stream,
                                  llvm::ArrayRef<sim::InstructionRecord> recs,
                                  size_t first, size_t count, uint64_t begin,
                                  uint64_t end) {
  CycleBreakdown b;
  std::vector<Interval> compute, dma;
  size_t last = std::min(first + count, std::min(stream.size(), recs.size()));
  for (size_t i = first; i < last; ++i) {
    const sim::InstructionRecord &r = recs[i];
    if (!r.executed)
      continue;
    const isa::Instruction &I = stream[i];
    b.tokenWait += r.tokenWait;
    b.dramContention += r.dramContention;
    if (I.opcode() == isa::Opcode::Load || I.opcode() == isa::Opcode::Store)
      dma.emplace_back(r.channelStart, r.channelEnd);
    else if (I.queue() == isa::Queue::Compute)
      compute.emplace_back(r.start, r.end);
  }
  auto c = unionOf(std::move(compute), begin, end);
  auto d = unionOf(std::move(dma), begin, end);
  b.compute = lengthOf(c);
  b.dma = lengthOf(d) - overlapOf(c, d);
  uint64_t span = end > begin ? end - begin : 0;
  b.stall = span - std::min(span, b.compute + b.dma);
  return b;
}
