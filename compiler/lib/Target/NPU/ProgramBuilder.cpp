//===- ProgramBuilder.cpp - Constant pool, layer ops, cost model ---------===//
//
// The constant pool, DMA boxes, the npu.layer ops the code generators'
// items become, and the cost model's price of a layer under the scheduler's
// protocol (Dialect/NPU/Transforms/Pipeline.cpp describes it).
//
//===----------------------------------------------------------------------===//
#include "ProgramBuilder.h"

#include "systole/Dialect/NPU/NPUOps.h"

#include "systole/ISA/MatmulPipeline.h"
#include "systole/ISA/Timing.h"

#include "mlir/IR/Builders.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace systole::npu {

/// Folds the outer dimensions of a box into its runs while they are
/// contiguous on both sides and carry no padding: the same bytes move, but
/// a DMA pays per run for every burst it touches, so a store of a
/// 16-channel tile as 64 runs of 16 bytes held the channel for 64 bursts
/// where one run of 1,024 bytes holds it for 16.
static DmaBox mergeContiguousRuns(DmaBox b) {
  // SP strides are bytes, ACC strides words (one per element).
  int64_t sramUnit = b.acc ? 1 : b.elemBytes;
  auto fold = [&](int d) {
    if (b.n[d] == 1)
      return true;
    if (b.s[d] != b.n[0] * b.elemBytes || b.t[d] != b.n[0] * sramUnit ||
        b.n[0] * b.n[d] > 0xffff)
      return false;
    b.n[0] *= b.n[d];
    b.n[d] = 1;
    b.s[d] = b.t[d] = 0;
    return true;
  };
  if (b.padLeft || b.padRight || !fold(1))
    return b;
  if (b.padTop || b.padBottom || !fold(2))
    return b;
  fold(3);
  return b;
}

static Instruction makeDma(Opcode op, const DmaBox &box) {
  DmaBox b = mergeContiguousRuns(box);
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

uint64_t ProgramBuilder::addConstant(const void *data, size_t bytes,
                                     bool isDerived) {
  size_t offset = (pool.size() + 63) / 64 * 64;
  pool.resize(offset + bytes);
  if (bytes)
    std::memcpy(pool.data() + offset, data, bytes);
  if (isDerived && bytes) {
    if (!derived.empty() && derived.back().second == offset)
      derived.back().second = offset + bytes;
    else
      derived.push_back({offset, offset + bytes});
  }
  return offset;
}

ProgramBuilder::ProgramBuilder(const isa::HwConfig &hw,
                               mlir::MLIRContext *context)
    : hw(hw) {
  if (!context)
    return;
  context->getOrLoadDialect<NPUDialect>();
  mlir::OpBuilder b(context);
  module = mlir::ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module->getBody());
  auto op =
      b.create<ProgramOp>(b.getUnknownLoc(), b.getStringAttr(hwConfigText(hw)),
                          mlir::DenseI64ArrayAttr());
  op.getBody().push_back(new mlir::Block());
  program = op;
}

/// Builds `insts` (no dependency flags: the scheduler adds them) into `r`.
static void buildRegion(mlir::OpBuilder &b, mlir::Location loc, mlir::Region &r,
                        llvm::ArrayRef<Instruction> insts) {
  mlir::Block *block = new mlir::Block();
  r.push_back(block);
  b.setInsertionPointToEnd(block);
  for (const Instruction &inst : insts) {
    if (!(inst.deps() == isa::Deps{}))
      llvm::report_fatal_error("internal error: a code generator set "
                               "dependency flags (the scheduler's job)");
    buildInstruction(b, loc, inst, mlir::Value(), mlir::Value());
  }
}

void ProgramBuilder::emitLayer(const std::vector<Item> &items,
                               size_t segmentIndex, llvm::StringRef name,
                               mlir::Location loc) {
  assert(program && "a scratch builder emits no layers");
  mlir::OpBuilder b(program->getContext());
  if (!segment) {
    b.setInsertionPointToEnd(&program->getRegion(0).front());
    auto op = b.create<SegmentOp>(
        loc, b.getI64IntegerAttr(static_cast<int64_t>(segmentIndex)),
        b.getStringAttr("npu" + std::to_string(segmentIndex)));
    op.getBody().push_back(new mlir::Block());
    segment = op;
    layersInSegment = 0;
  }
  assert(mlir::cast<SegmentOp>(segment).getIndex() == segmentIndex &&
         "one segment at a time");
  b.setInsertionPointToEnd(&segment->getRegion(0).front());
  auto layer = b.create<LayerOp>(loc, b.getStringAttr(name));
  layer.getBody().push_back(new mlir::Block());
  for (const Item &it : items) {
    b.setInsertionPointToEnd(&layer.getBody().front());
    mlir::DenseI64ArrayAttr need;
    if (!it.loadNeed.empty())
      need = b.getDenseI64ArrayAttr(
          llvm::SmallVector<int64_t>(it.loadNeed.begin(), it.loadNeed.end()));
    auto item = b.create<ItemOp>(
        loc, need, it.keep,
        it.tailLoad ? b.getI64IntegerAttr(static_cast<int64_t>(*it.tailLoad))
                    : mlir::IntegerAttr());
    buildRegion(b, loc, item.getLoads(), it.loads);
    // The hardware reads the bank-conflict flag (a valid instruction has
    // it right); the lowerings leave it to us.
    std::vector<Instruction> computes = it.computes;
    for (Instruction &c : computes)
      isa::setBankConflictFlag(c, hw);
    buildRegion(b, loc, item.getComputes(), computes);
    buildRegion(b, loc, item.getStores(), it.stores);
  }
  ++layersInSegment;
}

void ProgramBuilder::finishSegment() {
  segment = nullptr;
  layersInSegment = 0;
}

mlir::OwningOpRef<mlir::ModuleOp> ProgramBuilder::takeModule() {
  mlir::OpBuilder b(program->getContext());
  mlir::cast<ProgramOp>(program).setConstantsAttr(b.getDenseI64ArrayAttr(
      {static_cast<int64_t>(constantBase),
       static_cast<int64_t>(constantBase + pool.size())}));
  return std::move(module);
}

uint64_t
ProgramBuilder::estimateLayerCycles(const std::vector<Item> &items) const {
  // The protocol's pipeline over items with the one DRAM channel shared by
  // loads and stores: loads of item i wait for the compute of item i-2 (slot
  // reuse), compute waits for its loads and for the store of item i-2,
  // stores follow their compute; every DMA occupies the channel for its
  // bursts and completes `latency` later. With deferred tails (emitLayer)
  // item i's tail runs among item i+1's computes; store i and the tail
  // operand load of item i+2 follow it.
  uint64_t latency = hw.dram.latencyCycles;
  // computeDone: the array and vector unit are free; postFree: the
  // post-processor is (with vector.requant_overlap, MATMULs of the next item
  // run while the last REQUANT, or a fused residual's VADD, of this one
  // finishes).
  uint64_t channelFree = 0, computeDone = 0, postFree = 0, end = 0;
  bool overlap = hw.vector.requantOverlap;
  const bool defer = defersTails(items);
  std::vector<uint64_t> computeEnd(items.size()), storeEnd(items.size());
  OutputGroups groups = outputGroups(items);
  auto transfer = [&](llvm::ArrayRef<Instruction> dmas, uint64_t ready) {
    uint64_t t = ready, done = ready;
    for (const Instruction &i : dmas) {
      t = std::max(t, channelFree);
      channelFree = t + isa::dmaTiming(i, hw).channelCycles;
      t = channelFree;
      done = channelFree + latency;
    }
    return done;
  };
  // With d = 2, loads of item i+1 reach the channel before the store of
  // item i: they only wait for compute i-1, the store waits for compute i.
  // With d = 1 they wait for compute i and follow its store. A stage's
  // computes wait for the stage's loads.
  const size_t d = lookahead();
  isa::MatmulPipeline array(hw);
  // Items are priced on a copy ordered as emitLayer orders them (tail
  // operand last, load stages by need, tail compute apart).
  std::vector<Item> view(items);
  tailLoadsLast(view);
  std::vector<Instruction> tails;
  if (defer)
    tails = takeTails(view);
  std::vector<std::vector<LoadStage>> stages(items.size());
  std::vector<std::vector<uint64_t>> stageDone(items.size());
  // Deferred: the tail operand (the last load) waits for the tail of item
  // i-2 and is transferred apart (loadTail).
  auto loadItem = [&](size_t i, uint64_t ready) {
    if (!view[i].loadNeed.empty())
      stages[i] = orderLoadStages(view[i], maxStages());
    else
      stages[i] = {{view[i].loads.size(), 0}};
    llvm::ArrayRef<Instruction> loads = view[i].loads;
    if (defer)
      loads = loads.drop_back();
    size_t begin = 0;
    for (const LoadStage &st : stages[i]) {
      size_t e = std::min(st.loadEnd, loads.size());
      stageDone[i].push_back(transfer(loads.slice(begin, e - begin), ready));
      begin = e;
    }
  };
  auto loadTail = [&](size_t i, uint64_t ready) {
    uint64_t done = transfer(view[i].loads.back(), ready);
    stageDone[i].back() = std::max(stageDone[i].back(), done);
  };
  // Issues one compute instruction at or after `t`; returns when it is done.
  auto run = [&](const Instruction &inst, uint64_t &t) {
    uint64_t d = isa::computeCycles(inst, hw);
    if (inst.opcode() == Opcode::Matmul) {
      // The array's own rule (several WS MATMULs may be in flight).
      uint64_t issue = std::max(t, array.earliestIssue(inst));
      t = issue + 1;
      return array.issue(inst, issue);
    }
    t = std::max(t, array.drained());
    if (!overlap)
      return t += d;
    if (isa::onPostProcessor(inst, hw)) {
      // It issues once the post-processor is free too; the next
      // instruction issues after it (in order).
      uint64_t issue = std::max(t, postFree);
      t = issue + 1;
      return postFree = issue + d;
    }
    return t = std::max(t, postFree) + d;
  };
  std::vector<uint64_t> tailEnd(items.size());
  if (!items.empty())
    loadItem(0, 0);
  for (size_t i = 0; i < items.size(); ++i) {
    uint64_t t = std::max(stageDone[i][0], computeDone);
    if (!defer && groups.starts[i] &&
        groups.group[i] >= static_cast<int64_t>(d))
      t = std::max(t, storeEnd[groups.storing[groups.group[i] - d]]);
    if (d == 2 && i + 1 < items.size())
      loadItem(i + 1, i >= 1 ? computeEnd[i - 1] : 0);
    if (defer && i == 0 && items.size() > 1)
      loadTail(1, 0);
    size_t s = 1;
    uint64_t last = t;
    const std::vector<Instruction> &computes = view[i].computes;
    size_t slot = defer && i > 0 ? tailSlot(view[i]) : computes.size();
    for (size_t k = 0; k < computes.size(); ++k) {
      if (k == slot) {
        // Inserted before compute k: it pops nothing.
        tailEnd[i - 1] = run(tails[i - 1], t);
        storeEnd[i - 1] = transfer(view[i - 1].stores, tailEnd[i - 1]);
        end = std::max(end, storeEnd[i - 1]);
        if (i + 1 < items.size())
          loadTail(i + 1, tailEnd[i - 1]);
      }
      if (s < stages[i].size() && stages[i][s].firstCompute == k)
        t = std::max(t, stageDone[i][s++]);
      if (defer && k + 1 == computes.size() && i >= d)
        t = std::max(t, storeEnd[i - d]);
      last = std::max(last, run(computes[k], t));
    }
    t = std::max(t, array.drained());
    computeDone = t;
    computeEnd[i] = std::max(t, last);
    if (defer) {
      if (i + 1 == items.size()) {
        tailEnd[i] = run(tails[i], t);
        storeEnd[i] = transfer(view[i].stores, tailEnd[i]);
        end = std::max(end, storeEnd[i]);
      }
      continue;
    }
    storeEnd[i] = transfer(view[i].stores, computeDone);
    end = std::max(end, storeEnd[i]);
    if (d == 1 && i + 1 < items.size())
      loadItem(i + 1, computeEnd[i]);
  }
  return end;
}

} // namespace systole::npu
