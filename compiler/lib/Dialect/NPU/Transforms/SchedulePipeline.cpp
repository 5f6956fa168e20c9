//===- SchedulePipeline.cpp - npu.layer items -> instruction streams ------===//
//
// Each segment's layers go through one PipelineScheduler in program order
// (the barrier and hoisting carry from a layer to the next); the stream it
// returns replaces the layers, with an `npu.layer_start` where each layer's
// range begins. The instructions of a layer's range keep its location.
//
//===----------------------------------------------------------------------===//
#include "systole/Dialect/NPU/Passes.h"
#include "systole/Dialect/NPU/Pipeline.h"

#include "systole/ISA/Presets.h"

#include "mlir/IR/Builders.h"

namespace systole::npu {
#define GEN_PASS_DEF_SCHEDULEPIPELINE
#include "systole/Dialect/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole;
using namespace systole::npu;

static std::vector<isa::Instruction> encodeRegion(Region &r) {
  std::vector<isa::Instruction> out;
  for (Operation &op : r.getOps())
    out.push_back(encodeInstruction(cast<InstructionOpInterface>(op)));
  return out;
}

static std::vector<Item> itemsOf(LayerOp layer) {
  std::vector<Item> items;
  for (ItemOp op : layer.getBody().front().getOps<ItemOp>()) {
    Item it;
    it.loads = encodeRegion(op.getLoads());
    it.computes = encodeRegion(op.getComputes());
    it.stores = encodeRegion(op.getStores());
    if (auto need = op.getLoadNeed())
      it.loadNeed.assign(need->begin(), need->end());
    it.keep = op.getKeep();
    if (auto tail = op.getTailLoad())
      it.tailLoad = static_cast<size_t>(*tail);
    items.push_back(std::move(it));
  }
  return items;
}

static LogicalResult scheduleSegment(SegmentOp segment, const isa::HwConfig &hw,
                                     std::pair<uint64_t, uint64_t> constants) {
  Block &body = segment.getBody().front();
  if (body.empty() || !mlir::isa<LayerOp>(body.front()))
    return success(); // already a stream
  PipelineScheduler scheduler(hw, constants);
  struct Placed {
    std::string name;
    Location loc;
    ScheduledLayer at;
  };
  std::vector<Placed> placed;
  for (LayerOp layer : body.getOps<LayerOp>())
    placed.push_back({layer.getName().str(), layer.getLoc(),
                      scheduler.scheduleLayer(itemsOf(layer))});
  std::vector<isa::Instruction> stream = scheduler.finishSegment();
  body.clear();

  OpBuilder b(segment.getContext());
  b.setInsertionPointToEnd(&body);
  auto ops = buildInstructionStream(b, segment.getLoc(), stream);
  if (!ops)
    return segment.emitOpError("the scheduled stream's tokens do not pair: ")
           << llvm::toString(ops.takeError());
  for (size_t k = 0; k < placed.size(); ++k) {
    const Placed &p = placed[k];
    size_t end =
        k + 1 < placed.size() ? placed[k + 1].at.first : ops->size() - 1;
    for (size_t i = p.at.first; i < end; ++i)
      (*ops)[i]->setLoc(p.loc);
    b.setInsertionPoint((*ops)[p.at.first]);
    b.create<LayerStartOp>(
        p.loc, b.getStringAttr(p.name),
        p.at.hoisted ? b.getI64IntegerAttr(p.at.hoisted) : IntegerAttr(),
        p.at.hoisted ? b.getI64IntegerAttr(p.at.hoistedBytes) : IntegerAttr());
  }
  return success();
}

LogicalResult npu::schedulePipeline(ProgramOp program) {
  llvm::Expected<isa::HwConfig> hw = isa::resolveHwConfig(program.getHw());
  if (!hw)
    return program.emitOpError("hw: ") << llvm::toString(hw.takeError());
  // Without a constant pool range nothing counts as a constant: no load is
  // hoisted.
  std::pair<uint64_t, uint64_t> constants{0, 0};
  if (auto c = program.getConstants()) {
    if (c->size() != 2 || (*c)[0] < 0 || (*c)[1] < (*c)[0])
      return program.emitOpError("constants must be [begin, end) with "
                                 "0 <= begin <= end");
    constants = {static_cast<uint64_t>((*c)[0]),
                 static_cast<uint64_t>((*c)[1])};
  }
  for (SegmentOp segment : program.getBody().front().getOps<SegmentOp>())
    if (failed(scheduleSegment(segment, *hw, constants)))
      return failure();
  return success();
}

namespace {
struct SchedulePipelinePass
    : public npu::impl::SchedulePipelineBase<SchedulePipelinePass> {
  void runOnOperation() override {
    if (failed(schedulePipeline(getOperation())))
      signalPassFailure();
  }
};
} // namespace
