//===- LayerReports.cpp - The compile report's per-layer counts -----------===//
//
// A layer's instruction count and DMA bytes in the compile report are those
// the code generators wrote for it: its scheduled range, plus the loads the
// scheduler hoisted out of it into the layer before, less the next layer's
// loads hoisted into it.
//
//===----------------------------------------------------------------------===//
#include "systole/Dialect/NPU/NPUOps.h"
#include "systole/ISA/Timing.h"
#include "systole/Target/NPU/Emit.h"

using namespace mlir;
using systole::isa::Opcode;

namespace systole::npu {

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
