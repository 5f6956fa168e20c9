//===- Pipeline.cpp - The double-buffered tile protocol ------------------===//
//
// The token protocol, for items 0..T-1 of a layer, slot = item % 2 and the
// lookahead d = 2 (double buffering; d = 1 when queues.token_depth is 1):
//   L_i: first load pops cmp->ld if i >= d (C_{i-d} is done with what L_i
//        overwrites) or, for i = 0 after another layer, the barrier's token;
//        last load pushes ld->cmp.
//   C_i: first compute pops ld->cmp, and st->cmp if i >= d (output slot of
//        i-d stored); last compute pushes cmp->st, and cmp->ld if i+d < T
//        (and item i+d loads: an item reading a kept input may load
//        nothing, and then has no load tokens at all).
//   S_i: first store pops cmp->st; last store pushes st->cmp if i+d < T,
//        or, for the last item, when a next layer's barrier will pop it.
// Every FIFO then holds at most d tokens (per item; load stages below): a
// token of item i+d is pushed only after the consumer of item i's token
// started, whatever the timing. d = 2 needs token_depth >= 2; with depth 1
// items run one at a time (loads of i+1 wait for compute i).
// An item with load stages (Item::loadNeed) pushes ld->cmp after each
// stage's last load and pops it at the stage's first compute instead.
// Items without stores (K split: the first items of an output tile only
// accumulate) take no part in the output protocol: it runs over the storing
// items s_0, s_1, ... instead, and the st->cmp token of s_q is popped by the
// first compute of output group q+d (with d = 2 the item after s_{q+1}),
// which is the first to overwrite the accumulator tile and output slot s_q
// used.
// Between layers a compute FENCE pops the previous layer's last st->cmp and
// pushes cmp->ld, so a layer's loads read what the previous layer stored.
// After a layer that kept its output in the scratchpad (Item::keep) the
// FENCE pops nothing: it waits for the post-processor, so the kept tile's
// last REQUANT has written it before this layer's first MATMUL reads it.
// Stream order for d = 2 is L0 L1 C0 S0 L2 C1 S1 ...: loads run one item
// ahead; for d = 1 it is L0 C0 S0 L1 C1 S1 ... Every token's producer
// precedes its consumer, so in-order fetch cannot deadlock.
// Deferred tails (defersTails: a fused residual add's VADD, T_i, runs among
// item i+1's MATMULs): L0 L1 C0 | L2 C1[.. T0 ..] S0 | L3 C2[.. T1 ..] S1
// ... T_{T-1} S_{T-1}. C_i's REQUANT pops st->cmp (store i-2) and pushes
// cmp->ld for item i+2's loads but the residual operand's, which is the
// item's last load and pops the cmp->ld T_i pushes; T_i pushes cmp->st.
// That load precedes its producer in the stream, but it is the last load
// fetched before C_{i+1}, which holds T_i and waits on nothing after it, so
// fetch still reaches T_i (the verifier's abstract execution checks it).
#include "systole/Dialect/NPU/Pipeline.h"

#include "systole/ISA/Footprint.h"
#include "systole/ISA/Timing.h"

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cassert>
#include <numeric>

namespace systole::npu {

using isa::Field;
using isa::Instruction;
using isa::Opcode;

std::vector<LoadStage> orderLoadStages(Item &item, size_t maxStages) {
  size_t n = item.loads.size();
  if (item.loadNeed.size() != n || maxStages <= 1 || n == 0)
    return {{n, 0}};
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return item.loadNeed[a] < item.loadNeed[b];
  });
  std::vector<Instruction> loads;
  std::vector<size_t> need;
  size_t last = item.computes.empty() ? 0 : item.computes.size() - 1;
  for (size_t i : order) {
    loads.push_back(item.loads[i]);
    need.push_back(std::min(item.loadNeed[i], last));
  }
  item.loads = std::move(loads);
  item.loadNeed = std::move(need);
  // The first stage gates the item's first compute whatever its need.
  std::vector<LoadStage> stages;
  size_t stageNeed = item.loadNeed[0], firstCompute = 0;
  for (size_t i = 1; i < n; ++i)
    if (item.loadNeed[i] != stageNeed && stages.size() + 1 < maxStages) {
      stages.push_back({i, firstCompute});
      stageNeed = firstCompute = item.loadNeed[i];
    }
  stages.push_back({n, firstCompute});
  return stages;
}

size_t pipelineLookahead(const isa::HwConfig &hw) {
  return hw.queues.tokenDepth >= 2 ? 2 : 1;
}

size_t maxLoadStages(const isa::HwConfig &hw) {
  // d = 2: a staged first item's S tokens and the next item's one share the
  // load->compute FIFO (S + 1 <= depth for S <= depth / 2); d = 1: only
  // one item's, so S <= depth = 1.
  return std::clamp<size_t>(hw.queues.tokenDepth / 2, 1, 4);
}

OutputGroups outputGroups(const std::vector<Item> &items) {
  OutputGroups g;
  g.group.resize(items.size());
  g.starts.resize(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    auto ends = [&](size_t k) {
      return !items[k].stores.empty() || items[k].keep;
    };
    g.starts[i] = i == 0 || ends(i - 1);
    g.group[i] = static_cast<int64_t>(g.storing.size());
    if (ends(i))
      g.storing.push_back(i);
  }
  assert((items.empty() || !items.back().stores.empty() || items.back().keep) &&
         "a layer's last item stores or keeps its output");
  return g;
}

static void addDeps(Instruction &inst, bool popPrev, bool popNext,
                    bool pushPrev, bool pushNext) {
  isa::Deps d = inst.deps();
  d.popPrev |= popPrev;
  d.popNext |= popNext;
  d.pushPrev |= pushPrev;
  d.pushNext |= pushNext;
  inst.setDeps(d);
}

/// Adds the scratchpad intervals [begin, end) `insts` touch (each operand's
/// bounding interval, as the hazard and race checks see them) to `spans`,
/// then sorts and merges them. Not one hull: a layer that keeps its output
/// for the next one writes at the far end of the scratchpad too, and a hull
/// would cover the next layer's weight slots in between.
static void
addScratchpadSpans(llvm::ArrayRef<Instruction> insts,
                   std::vector<std::pair<uint64_t, uint64_t>> &spans) {
  for (const Instruction &inst : insts)
    for (const isa::Access &a : isa::accessRanges(inst))
      if (a.space == isa::MemSpace::Scratchpad && a.end > a.begin)
        spans.push_back({a.begin, a.end});
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (auto [b, e] : spans)
    if (!merged.empty() && b <= merged.back().second)
      merged.back().second = std::max(merged.back().second, e);
    else
      merged.push_back({b, e});
  spans = std::move(merged);
}

/// Whether [begin, end) meets one of the sorted, disjoint `spans`.
static bool touches(const std::vector<std::pair<uint64_t, uint64_t>> &spans,
                    uint64_t begin, uint64_t end) {
  auto it =
      std::upper_bound(spans.begin(), spans.end(), begin,
                       [](uint64_t v, const std::pair<uint64_t, uint64_t> &s) {
                         return v < s.second;
                       });
  return it != spans.end() && it->first < end;
}

/// Moves each item's tail operand load (Item::tailLoad) to the end of its
/// loads, so it is the last of its item in the load queue: it then pops its
/// own compute->load token after the item's other loads popped theirs.
void tailLoadsLast(std::vector<Item> &items) {
  for (Item &it : items) {
    if (!it.tailLoad)
      continue;
    size_t k = *it.tailLoad;
    std::rotate(it.loads.begin() + k, it.loads.begin() + k + 1, it.loads.end());
    if (it.loadNeed.size() == it.loads.size())
      std::rotate(it.loadNeed.begin() + k, it.loadNeed.begin() + k + 1,
                  it.loadNeed.end());
    it.tailLoad = it.loads.size() - 1;
  }
}

/// Takes each item's tail compute out of its computes (deferred tails) and
/// gives its operand load a stage of its own that the REQUANT before the
/// tail pops: the item's MATMULs then start without it, and it may arrive
/// while they run. Returns the tails, one per item.
std::vector<Instruction> takeTails(std::vector<Item> &items) {
  std::vector<Instruction> tails;
  for (Item &it : items) {
    tails.push_back(it.computes.back());
    it.computes.pop_back();
    size_t last = it.computes.size() - 1;
    if (it.loadNeed.size() != it.loads.size())
      it.loadNeed.assign(it.loads.size(), 0);
    it.loadNeed.back() = last;
  }
  return tails;
}

static size_t countMatmuls(const Item &it) {
  return std::count_if(
      it.computes.begin(), it.computes.end(),
      [](const Instruction &c) { return c.opcode() == Opcode::Matmul; });
}

bool defersTails(const std::vector<Item> &items, const isa::HwConfig &hw) {
  // Two items' worth of compute->load tokens (a REQUANT's and a tail's per
  // item) must fit the FIFO, and the tail needs the post-processor to run
  // beside the array; a next item without two MATMULs would only move the
  // wait.
  if (pipelineLookahead(hw) != 2 || hw.queues.tokenDepth < 4 ||
      !hw.vector.requantOverlap || items.size() < 2)
    return false;
  for (size_t i = 0; i < items.size(); ++i) {
    const Item &it = items[i];
    if (!it.tailLoad || it.stores.empty() || it.keep ||
        it.computes.size() < 2 ||
        !isa::onPostProcessor(it.computes.back(), hw) ||
        (i > 0 && countMatmuls(it) < 2))
      return false;
  }
  return true;
}

/// Where item i's computes take item i-1's deferred tail: before the MATMUL
/// halfway through them (with two channel tiles per item, where the array
/// drains anyway for the second tile's accumulator box).
size_t tailSlot(const Item &it) {
  size_t half = countMatmuls(it) / 2, seen = 0;
  for (size_t k = 0; k < it.computes.size(); ++k)
    if (it.computes[k].opcode() == Opcode::Matmul && seen++ == half)
      return k;
  return it.computes.size();
}

ScheduledLayer PipelineScheduler::scheduleLayer(std::vector<Item> items) {
  tailLoadsLast(items);
  size_t count = items.size();
  const bool defer = defersTails(items, hw);
  std::vector<Instruction> tails;
  if (defer)
    tails = takeTails(items);
  bool barrier = lastStore.has_value() || prevKept;
  // A kept layer has no stores: its items take no part in the output
  // protocol (no out slot to guard; the accumulator tiles are guarded by
  // the compute queue's order, docs/compiler.md "Layers kept on chip").
  bool kept = !items.empty() && items.back().keep;
  ScheduledLayer result;
  std::vector<Instruction> hoisted;
  if (barrier && hoistPoint && !items.empty()) {
    // Constants only (the pool), into scratchpad the previous layer leaves
    // alone; at least one load stays in the item for its tokens.
    Item &it = items[0];
    std::vector<Instruction> keep;
    std::vector<size_t> keepNeed;
    for (size_t i = 0; i < it.loads.size(); ++i) {
      const Instruction &ld = it.loads[i];
      bool movable =
          ld.raw(Field::Load_sram) == 0 && it.loads.size() - hoisted.size() > 1;
      for (const isa::Access &a : isa::accessRanges(ld)) {
        if (a.space == isa::MemSpace::Dram)
          movable &= a.begin >= constants.first && a.end <= constants.second;
        if (a.space == isa::MemSpace::Scratchpad)
          movable &= !touches(prevSp, a.begin, a.end);
      }
      if (movable) {
        hoisted.push_back(ld);
        result.hoistedBytes += isa::dmaTiming(ld, hw).bytes;
        continue;
      }
      keep.push_back(ld);
      if (!it.loadNeed.empty())
        keepNeed.push_back(it.loadNeed[i]);
    }
    it.loads = std::move(keep);
    it.loadNeed = std::move(keepNeed);
    // Into a layer that loads nothing (it reads a kept input), the hoisted
    // loads are the first of the load queue after its barrier: the first
    // pops the token the barrier then pushes, so they wait for the layer
    // before it as that layer's own loads would.
    if (!hoisted.empty() && loadlessFence) {
      addDeps(stream[*loadlessFence], false, false, /*pushPrev=*/true, false);
      addDeps(hoisted.front(), false, /*popNext=*/true, false, false);
    }
    stream.insert(stream.begin() + *hoistPoint, hoisted.begin(), hoisted.end());
    result.hoisted = hoisted.size();
    if (lastStore)
      *lastStore += hoisted.size();
  }
  size_t first = stream.size();
  std::optional<size_t> fenceAt;
  // Items without loads (reading a kept input, nothing else to fetch) take
  // no part in the load half of the protocol: nothing pops the load->compute
  // token for them and no compute pushes compute->load for them. The
  // barrier's token goes to item 0's first load, so only items after a
  // loading item 0 may load.
  auto loads = [&](size_t i) { return i < count && !items[i].loads.empty(); };
  for (size_t i = 1; i < count; ++i)
    assert((!loads(i) || loads(0)) && "a loading item after a load-less first");
  if (barrier) {
    // The previous layer's last store now owes a token to this barrier.
    // After a kept layer the FENCE alone orders its last REQUANTs (which
    // wrote this layer's input) before this layer's computes and loads.
    if (lastStore)
      addDeps(stream[*lastStore], false, false, /*pushPrev=*/true, false);
    Instruction fence(Opcode::Fence);
    fence.set(Field::Fence_queue, isa::QueueSel_compute);
    addDeps(fence, false, /*popNext=*/lastStore.has_value(),
            /*pushPrev=*/loads(0), false);
    fenceAt = stream.size();
    stream.push_back(fence);
  }
  OutputGroups groups = outputGroups(items);
  const size_t d = pipelineLookahead(hw);
  const int64_t dq = static_cast<int64_t>(d);
  // Loads of item i other than its deferred tail's operand.
  auto mainLoads = [&](size_t i) {
    return i < count && items[i].loads.size() > (defer ? 1u : 0u);
  };
  for (size_t i = 0; i < count; ++i) {
    Item &it = items[i];
    assert(!it.computes.empty() && "every item computes");
    if (loads(i)) {
      std::vector<LoadStage> stages = orderLoadStages(it, maxLoadStages(hw));
      if (!defer || mainLoads(i) || i == 0)
        addDeps(it.loads.front(), false,
                /*popNext=*/(i >= d && (!defer || mainLoads(i))) ||
                    (i == 0 && barrier),
                false, false);
      for (const LoadStage &st : stages) {
        addDeps(it.loads[st.loadEnd - 1], false, false, false,
                /*pushNext=*/true);
        addDeps(it.computes[st.firstCompute], /*popPrev=*/true, false, false,
                false);
      }
    }
    if (defer) {
      // The tail's operand slot is free once item i-2's tail has run; the
      // output slot once store i-2 has read it, which the REQUANT (its
      // first writer) waits for; the tail, the output's last writer, hands
      // the tile to the store.
      addDeps(it.loads.back(), false, /*popNext=*/i >= d, false, false);
      addDeps(it.computes.back(), false, /*popNext=*/i >= d,
              /*pushPrev=*/mainLoads(i + d), false);
      addDeps(tails[i], false, false, /*pushPrev=*/i + d < count,
              /*pushNext=*/true);
      addDeps(it.stores.front(), /*popPrev=*/true, false, false, false);
      addDeps(it.stores.back(), false, false, /*pushPrev=*/i + d < count,
              false);
      continue;
    }
    bool storing = !it.stores.empty();
    int64_t q = groups.group[i];
    addDeps(it.computes.front(), false,
            /*popNext=*/!kept && groups.starts[i] && q >= dq, false, false);
    addDeps(it.computes.back(), false, false, /*pushPrev=*/loads(i + d),
            /*pushNext=*/storing);
    if (!storing)
      continue;
    addDeps(it.stores.front(), /*popPrev=*/true, false, false, false);
    addDeps(it.stores.back(), false, false,
            /*pushPrev=*/q + dq < static_cast<int64_t>(groups.storing.size()),
            false);
  }
  auto append = [&](std::vector<Instruction> &v) {
    stream.insert(stream.end(), v.begin(), v.end());
  };
  // d = 2: L0 L1 C0 S0 L2 C1 S1 ... C_{T-1} S_{T-1};
  // d = 1: L0 C0 S0 L1 C1 S1 ... (L_{i+1} pops what C_i pushes).
  // Hoisted loads go right after the last item's loads.
  if (defer) {
    // L0 L1 C0 | L2 C1[.. T0 ..] S0 | ... | C_{T-1}[.. T_{T-2} ..] S_{T-2}
    // T_{T-1} S_{T-1}: tail i runs among item i+1's MATMULs, store i after.
    append(items[0].loads);
    for (size_t i = 0; i < count; ++i) {
      if (i + 1 < count) {
        append(items[i + 1].loads);
        if (i + 2 == count)
          hoistPoint = stream.size();
      }
      std::vector<Instruction> &c = items[i].computes;
      if (i > 0)
        c.insert(c.begin() + tailSlot(items[i]), tails[i - 1]);
      append(c);
      if (i > 0)
        append(items[i - 1].stores);
    }
    stream.push_back(tails[count - 1]);
    append(items[count - 1].stores);
  } else if (d == 1) {
    for (size_t i = 0; i < count; ++i) {
      append(items[i].loads);
      if (i + 1 == count)
        hoistPoint = stream.size();
      append(items[i].computes);
      append(items[i].stores);
    }
  } else {
    append(items[0].loads);
    if (count == 1)
      hoistPoint = stream.size();
    for (size_t i = 0; i < count; ++i) {
      if (i + 1 < count) {
        append(items[i + 1].loads);
        if (i + 2 == count)
          hoistPoint = stream.size();
      }
      append(items[i].computes);
      append(items[i].stores);
    }
  }
  // Loads hoisted into a layer follow its first load, which waits for the
  // barrier; into a layer whose first item loads nothing, they take the
  // barrier's token themselves (above).
  loadlessFence = loads(0) ? std::nullopt : fenceAt;
  if (kept)
    lastStore.reset();
  else
    lastStore = stream.size() - 1;
  prevKept = kept;
  prevSp.clear();
  addScratchpadSpans(llvm::ArrayRef<Instruction>(stream).drop_front(first),
                     prevSp);
  addScratchpadSpans(hoisted, prevSp);
  result.first = first;
  return result;
}

std::vector<Instruction> PipelineScheduler::finishSegment() {
  stream.push_back(Instruction(Opcode::End));
  lastStore.reset();
  loadlessFence.reset();
  prevKept = false;
  hoistPoint.reset();
  std::vector<Instruction> out = std::move(stream);
  stream.clear();
  return out;
}

} // namespace systole::npu
