//===- PlanTiles.cpp - Per-layer tiling chosen by a cost model ------------===//
//
// Candidates come from each generator (largest tiles first); every candidate
// that fits the SRAMs is lowered for real and priced with the ISA timing
// model under the double-buffered pipeline, and the cheapest wins. Pricing
// the generated code, rather than a separate formula, keeps the model honest.
//
//===----------------------------------------------------------------------===//
#include "LayerLowering.h"

#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

namespace systole::npu {
#define GEN_PASS_DEF_PLANTILES
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole::npu;

namespace {

struct PlanTilesPass : systole::npu::impl::PlanTilesBase<PlanTilesPass> {
  using PlanTilesBase::PlanTilesBase;

  void runOnOperation() override {
    auto hw = resolveHwConfig(hwConfig);
    if (!hw) {
      getOperation().emitError() << llvm::toString(hw.takeError());
      return signalPassFailure();
    }
    bool failed = false;
    getOperation().walk([&](Operation *op) {
      if (getPlacement(op) != Placement::Npu)
        return;
      std::vector<TilePlan> plans = candidatePlans(op, *hw);
      if (plans.empty())
        return; // no code (e.g. reshape)
      std::optional<TilePlan> best;
      uint64_t bestCycles = UINT64_MAX;
      std::string lastError;
      for (const TilePlan &plan : plans) {
        ProgramBuilder scratch(*hw);
        LayerIO io;
        io.inputs.assign(numActivationOperands(op), 0);
        io.materializeConstants = false;
        auto items = lowerLayer(op, plan, io, scratch);
        if (!items) {
          lastError = llvm::toString(items.takeError());
          continue;
        }
        uint64_t cycles = scratch.estimateLayerCycles(*items);
        if (cycles < bestCycles) {
          bestCycles = cycles;
          best = plan;
        }
      }
      if (!best) {
        op->emitError() << "no tiling fits the hardware config '" << hw->name
                        << "': " << lastError;
        failed = true;
        return;
      }
      Builder b(op->getContext());
      SmallVector<NamedAttribute> entries;
      for (auto &[k, v] : *best)
        entries.push_back(b.getNamedAttr(k, b.getI64IntegerAttr(v)));
      entries.push_back(b.getNamedAttr(
          "predicted_cycles",
          b.getI64IntegerAttr(static_cast<int64_t>(bestCycles))));
      op->setAttr(kTileAttr, b.getDictionaryAttr(entries));
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
