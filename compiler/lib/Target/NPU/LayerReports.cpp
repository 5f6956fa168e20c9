//===- LayerReports.cpp - The compile report's per-layer counts -----------===//
//
// A layer's instruction count and DMA bytes in the compile report are those
// the code generators wrote for it: its scheduled range, plus the loads the
// scheduler hoisted out of it into the layer before, less the next layer's
// loads hoisted into it. Each unit's busy cycles are counted over the
// layer's items as the generator wrote them.
//
//===----------------------------------------------------------------------===//
#include "systole/Dialect/NPU/NPUOps.h"
#include "systole/Dialect/NPU/Pipeline.h"
#include "systole/ISA/Timing.h"
#include "systole/Target/NPU/Emit.h"

using namespace mlir;
using systole::isa::Opcode;

namespace systole::npu {

const char *LayerReport::limitingUnit() const {
  if (onHost)
    return "";
  if (dmaCycles >= arrayCycles && dmaCycles >= vectorCycles)
    return "dma";
  return arrayCycles >= vectorCycles ? "array" : "vector";
}

void addUnitCycles(const std::vector<Item> &items, const isa::HwConfig &hw,
                   LayerReport &r) {
  for (const Item &item : items) {
    for (const auto *queue : {&item.loads, &item.stores})
      for (const isa::Instruction &inst : *queue)
        r.dmaCycles += isa::dmaTiming(inst, hw).channelCycles;
    for (const isa::Instruction &inst : item.computes) {
      Opcode oc = inst.opcode();
      // WS MATMULs in flight together overlap their fill and drain
      // (isa::MatmulPipeline): the array is busy for their rows streaming
      // in, or a weight preload's R cycles when that is longer.
      bool ws = inst.raw(isa::Field::Matmul_dataflow) == isa::Dataflow_ws;
      if (oc == Opcode::Matmul && ws && hw.array.matmulInflight > 1)
        r.arrayCycles += std::max<uint64_t>(
            inst.raw(isa::Field::Matmul_m),
            inst.raw(isa::Field::Matmul_preload) ? hw.array.rows : 0);
      else if (oc == Opcode::Matmul)
        r.arrayCycles += isa::computeCycles(inst, hw);
      else if (oc != Opcode::Fence && oc != Opcode::End)
        r.vectorCycles += isa::computeCycles(inst, hw);
    }
  }
}

void completeLayerReports(ModuleOp npu, const isa::HwConfig &hw,
                          std::vector<LayerReport> &report) {
  struct Range {
    uint64_t instructions = 0, bytes = 0, hoisted = 0, hoistedBytes = 0;
    bool sameSegmentAsNext = false;
  };
  std::vector<Range> ranges;
  for (ProgramOp program : npu.getOps<ProgramOp>())
    for (SegmentOp segment : program.getBody().front().getOps<SegmentOp>()) {
      size_t first = ranges.size();
      for (Operation &op : segment.getBody().front()) {
        if (auto start = llvm::dyn_cast<LayerStartOp>(op)) {
          Range r;
          r.hoisted = start.getHoisted().value_or(0);
          r.hoistedBytes = start.getHoistedBytes().value_or(0);
          ranges.push_back(r);
          continue;
        }
        auto inst = llvm::dyn_cast<InstructionOpInterface>(op);
        if (!inst || ranges.size() == first || llvm::isa<EndOp>(op))
          continue;
        ranges.back().instructions++;
        Opcode oc = inst.getIsaOpcode();
        if (oc == Opcode::Load || oc == Opcode::Store)
          ranges.back().bytes +=
              isa::dmaTiming(encodeInstruction(inst), hw).bytes;
      }
      for (size_t k = first; k + 1 < ranges.size(); ++k)
        ranges[k].sameSegmentAsNext = true;
    }
  size_t k = 0;
  for (LayerReport &r : report) {
    if (r.onHost || k >= ranges.size())
      continue;
    const Range &own = ranges[k];
    // The next layer's hoisted loads sit in this range but are its own.
    uint64_t lent = 0, lentBytes = 0;
    if (own.sameSegmentAsNext)
      lent = ranges[k + 1].hoisted, lentBytes = ranges[k + 1].hoistedBytes;
    r.instructions = own.instructions + own.hoisted - lent;
    r.dramBytes = own.bytes + own.hoistedBytes - lentBytes;
    ++k;
  }
}

} // namespace systole::npu
