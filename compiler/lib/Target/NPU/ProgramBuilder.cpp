//===- ProgramBuilder.cpp - Instruction stream and DMA pipeline -----------===//
//
// The token protocol, for items 0..T-1 of a layer, slot = item % 2:
//   L_i: first load pops cmp->ld if i >= 2 (slot i-2 consumed) or, for i = 0
//        after another layer, the barrier's token; last load pushes ld->cmp.
//   C_i: first compute pops ld->cmp, and st->cmp if i >= 2 (output slot of
//        i-2 stored); last compute pushes cmp->st, and cmp->ld if i+2 < T.
//   S_i: first store pops cmp->st; last store pushes st->cmp if i+2 < T,
//        or, for the last item, when a next layer's barrier will pop it.
// Between layers a compute FENCE pops the previous layer's last st->cmp and
// pushes cmp->ld, so a layer's loads read what the previous layer stored.
// Stream order is L0 L1 C0 S0 L2 C1 S1 ...: loads run one item ahead, and
// every token's producer precedes its consumer, so in-order fetch cannot
// deadlock.
//
//===----------------------------------------------------------------------===//
#include "ProgramBuilder.h"

#include "systole/ISA/Timing.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace systole::npu {

static Instruction makeDma(Opcode op, const DmaBox &b) {
  bool load = op == Opcode::Load;
  Instruction inst(op);
  auto F = [&](Field lf, Field sf) { return load ? lf : sf; };
  inst.set(F(Field::Load_sram, Field::Store_sram), b.acc ? 1 : 0);
  inst.set(F(Field::Load_elem_bytes, Field::Store_elem_bytes), b.elemBytes);
  inst.set(F(Field::Load_sram_addr, Field::Store_sram_addr),
           static_cast<int64_t>(b.sram));
  inst.setRaw(F(Field::Load_dram_addr, Field::Store_dram_addr), b.dram);
  inst.set(F(Field::Load_n0, Field::Store_n0), b.n[0]);
  inst.set(F(Field::Load_n1, Field::Store_n1), b.n[1]);
  inst.set(F(Field::Load_n2, Field::Store_n2), b.n[2]);
  inst.set(F(Field::Load_n3, Field::Store_n3), b.n[3]);
  inst.set(F(Field::Load_s1, Field::Store_s1), b.s[1]);
  inst.set(F(Field::Load_s2, Field::Store_s2), b.s[2]);
  inst.set(F(Field::Load_s3, Field::Store_s3), b.s[3]);
  inst.set(F(Field::Load_t1, Field::Store_t1), b.t[1]);
  inst.set(F(Field::Load_t2, Field::Store_t2), b.t[2]);
  inst.set(F(Field::Load_t3, Field::Store_t3), b.t[3]);
  inst.set(F(Field::Load_u8_to_i8, Field::Store_i8_to_u8), b.flipSign);
  if (load) {
    inst.set(Field::Load_pad_top, b.padTop);
    inst.set(Field::Load_pad_bottom, b.padBottom);
    inst.set(Field::Load_pad_left, b.padLeft);
    inst.set(Field::Load_pad_right, b.padRight);
    inst.set(Field::Load_pad_value, b.padValue);
  }
  return inst;
}

std::vector<DmaBox> contiguousBoxes(uint64_t dram, uint64_t sram,
                                    int64_t bytes) {
  constexpr int64_t kRun = 32768; // a multiple of every burst size in use
  std::vector<DmaBox> boxes;
  auto add = [&](int64_t offset, int64_t run, int64_t count) {
    DmaBox b;
    b.dram = dram + offset, b.sram = sram + offset;
    b.n[0] = run, b.n[1] = count, b.s[1] = run, b.t[1] = run;
    boxes.push_back(b);
  };
  if (bytes <= 0xffff) {
    add(0, bytes, 1);
    return boxes;
  }
  int64_t full = bytes / kRun;
  for (int64_t done = 0; done < full; done += 0xffff)
    add(done * kRun, kRun, std::min<int64_t>(0xffff, full - done));
  if (bytes % kRun)
    add(full * kRun, bytes % kRun, 1);
  return boxes;
}

Instruction makeLoad(const DmaBox &box) { return makeDma(Opcode::Load, box); }
Instruction makeStore(const DmaBox &box) { return makeDma(Opcode::Store, box); }

uint64_t ProgramBuilder::addConstant(const void *data, size_t bytes) {
  size_t offset = (pool.size() + 63) / 64 * 64;
  pool.resize(offset + bytes);
  if (bytes)
    std::memcpy(pool.data() + offset, data, bytes);
  return offset;
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

size_t ProgramBuilder::emitLayer(std::vector<Item> items) {
  size_t first = stream.size();
  size_t count = items.size();
  bool barrier = lastStore.has_value();
  if (barrier) {
    // The previous layer's last store now owes a token to this barrier.
    addDeps(stream[*lastStore], false, false, /*pushPrev=*/true, false);
    Instruction fence(Opcode::Fence);
    fence.set(Field::Fence_queue, isa::QueueSel_compute);
    addDeps(fence, false, /*popNext=*/true, /*pushPrev=*/true, false);
    stream.push_back(fence);
  }
  for (size_t i = 0; i < count; ++i) {
    Item &it = items[i];
    assert(!it.loads.empty() && !it.computes.empty() && !it.stores.empty() &&
           "every item loads, computes and stores");
    addDeps(it.loads.front(), false, /*popNext=*/i >= 2 || (i == 0 && barrier),
            false, false);
    addDeps(it.loads.back(), false, false, false, /*pushNext=*/true);
    addDeps(it.computes.front(), /*popPrev=*/true, /*popNext=*/i >= 2, false,
            false);
    addDeps(it.computes.back(), false, false, /*pushPrev=*/i + 2 < count,
            /*pushNext=*/true);
    addDeps(it.stores.front(), /*popPrev=*/true, false, false, false);
    addDeps(it.stores.back(), false, false, /*pushPrev=*/i + 2 < count, false);
  }
  auto append = [&](std::vector<Instruction> &v) {
    stream.insert(stream.end(), v.begin(), v.end());
  };
  // L0 L1 C0 S0 L2 C1 S1 ... C_{T-1} S_{T-1}
  append(items[0].loads);
  for (size_t i = 0; i < count; ++i) {
    if (i + 1 < count)
      append(items[i + 1].loads);
    append(items[i].computes);
    append(items[i].stores);
  }
  lastStore = stream.size() - 1;
  return first;
}

std::vector<Instruction> ProgramBuilder::finishSegment() {
  stream.push_back(Instruction(Opcode::End));
  lastStore.reset();
  return std::move(stream);
}

uint64_t
ProgramBuilder::estimateLayerCycles(const std::vector<Item> &items) const {
  // The protocol's pipeline over items with the one DRAM channel shared by
  // loads and stores: loads of item i wait for the compute of item i-2 (slot
  // reuse), compute waits for its loads and for the store of item i-2,
  // stores follow their compute; every DMA occupies the channel for its
  // bursts and completes `latency` later.
  uint64_t latency = hw.dram.latencyCycles;
  uint64_t channelFree = 0, computeDone = 0, end = 0;
  std::vector<uint64_t> computeEnd(items.size()), storeEnd(items.size());
  auto transfer = [&](const std::vector<Instruction> &dmas, uint64_t ready) {
    uint64_t t = ready, done = ready;
    for (const Instruction &i : dmas) {
      t = std::max(t, channelFree);
      channelFree = t + isa::dmaTiming(i, hw).channelCycles;
      t = channelFree;
      done = channelFree + latency;
    }
    return done;
  };
  // Loads of item i+1 reach the channel before the store of item i: they
  // only wait for compute i-1, the store waits for compute i.
  std::vector<uint64_t> loadDone(items.size());
  if (!items.empty())
    loadDone[0] = transfer(items[0].loads, 0);
  for (size_t i = 0; i < items.size(); ++i) {
    uint64_t start = std::max(loadDone[i], computeDone);
    if (i >= 2)
      start = std::max(start, storeEnd[i - 2]);
    if (i + 1 < items.size())
      loadDone[i + 1] =
          transfer(items[i + 1].loads, i >= 1 ? computeEnd[i - 1] : 0);
    uint64_t c = 0;
    for (const Instruction &inst : items[i].computes)
      c += isa::computeCycles(inst, hw);
    computeDone = computeEnd[i] = start + c;
    storeEnd[i] = transfer(items[i].stores, computeDone);
    end = std::max(end, storeEnd[i]);
  }
  return end;
}

} // namespace systole::npu
