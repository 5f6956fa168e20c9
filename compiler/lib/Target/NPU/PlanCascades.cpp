//===- PlanCascades.cpp - Layers kept on chip, chosen by the cost model ---===//
//
// Layer by layer, every activation makes a DRAM round trip: the producer
// stores its output, the consumer loads it back, and the consumer's first
// item waits for that load (its whole input when one tile holds it). When
// the consumer's padded input fits the scratchpad beside the producer's
// working set, the producer's REQUANT can write straight into the
// consumer's input tile (Vela's cascading, TPU-MLIR's layer groups, at
// whole-tensor granularity). Whether that pays depends on the plans it
// forces (one input tile for the consumer, less scratchpad for the
// producer), so each pair is priced with the same generators and timing
// model npu-plan-tiles uses, and kept only when it predicts fewer cycles.
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"

#include "systole/ISA/Presets.h"
#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

namespace systole::npu {
#define GEN_PASS_DEF_PLANCASCADES
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole::npu;

namespace {

TilePlan planOf(Operation *op) { return getTilePlan(op).value_or(TilePlan()); }

struct Choice {
  TilePlan producer, consumer;
  uint64_t producerCycles = 0, consumerCycles = 0;
};

struct PlanCascadesPass
    : systole::npu::impl::PlanCascadesBase<PlanCascadesPass> {
  using PlanCascadesBase::PlanCascadesBase;

  const systole::isa::HwConfig *hw = nullptr;

  /// Predicted cycles of `op` with `plan` and `io`, or nullopt when the plan
  /// does not fit.
  std::optional<uint64_t> price(Operation *op, const TilePlan &plan,
                                LayerIO io) {
    ProgramBuilder scratch(*hw);
    io.inputs.assign(numActivationOperands(op), 0);
    io.materializeConstants = false;
    auto items = lowerLayer(op, plan, io, scratch);
    if (!items) {
      llvm::consumeError(items.takeError());
      return std::nullopt;
    }
    return scratch.estimateLayerCycles(*items);
  }

  /// The cheapest plans for `p` keeping its output for `q` (`pMirrored`:
  /// p's slots from the top, q's from the bottom, as the emitter
  /// alternates), `pOnChip`: p itself reads a kept input. Each side keeps
  /// its planned tiling when that still fits (the common case, and cheap
  /// to price); only a side that no longer fits searches its candidates,
  /// unless `search` (--tune) searches both sides always.
  std::optional<Choice> cascade(Operation *p, Operation *q, bool pMirrored,
                                bool pOnChip, bool store) {
    auto cheapest =
        [&](Operation *op, const LayerIO &io, const TilePlan &planned,
            const auto &usable,
            bool search) -> std::optional<std::pair<TilePlan, uint64_t>> {
      if (!search && usable(planned))
        if (std::optional<uint64_t> c = price(op, planned, io))
          return std::make_pair(planned, *c);
      std::optional<std::pair<TilePlan, uint64_t>> best;
      for (const TilePlan &plan : candidatePlans(op, *hw)) {
        if (!usable(plan))
          continue;
        std::optional<uint64_t> c = price(op, plan, io);
        if (c && (!best || *c < best->second))
          best = std::make_pair(plan, *c);
      }
      return best;
    };
    std::optional<OnChipTile> tile = onChipInput(q, planOf(q), *hw, !pMirrored);
    // A residual add's VADD or a store reads and writes the kept tile with
    // one pixel stride.
    if (!tile ||
        ((store || fusedResidual(p)) &&
         !keptTileIsDense(
             *tile, cast<ShapedType>(layerResult(p).getType()).getDimSize(2))))
      return std::nullopt;
    LayerIO qio;
    qio.spMirrored = !pMirrored;
    qio.inputOnChip = true;
    auto qBest = cheapest(
        q, qio, planOf(q), [](const TilePlan &) { return true; }, search);
    if (!qBest)
      return std::nullopt;
    LayerIO pio;
    pio.spMirrored = pMirrored;
    pio.inputOnChip = pOnChip;
    pio.keepOutput = tile;
    pio.storeKept = store;
    auto pBest = cheapest(
        p, pio, planOf(p),
        [&](const TilePlan &plan) {
          return !pOnChip || onChipInput(p, plan, *hw, pMirrored).has_value();
        },
        search);
    if (!pBest)
      return std::nullopt;
    return Choice{pBest->first, qBest->first, pBest->second, qBest->second};
  }

  void runOnOperation() override {
    auto config = systole::isa::resolveHwConfig(hwConfig);
    if (!config) {
      getOperation().emitError() << llvm::toString(config.takeError());
      return signalPassFailure();
    }
    hw = &*config;
    // Identical pairs (ResNet's repeated blocks) share one decision.
    std::map<std::string, std::optional<Choice>> memo;
    Operation *prev = nullptr;
    // The emitter alternates scratchpad ends per layer from each NPU
    // segment's start (ProgramBuilder::spMirrored): a layer's end is the
    // parity of its index in the segment.
    bool prevMirrored = false;
    for (Operation &op : getOperation().getBody().front()) {
      std::optional<Placement> placement = getPlacement(&op);
      if (placement == Placement::Host) {
        prev = nullptr; // a new segment starts after host code
        continue;
      }
      if (!placement || !getTilePlan(&op))
        continue;
      bool mirrored = prev ? !prevMirrored : false;
      Operation *p = prev;
      prev = &op, prevMirrored = mirrored;
      if (!p)
        continue;
      // A value with other readers (a ResNet block's output: the next
      // block's first convolution and its residual add) is kept for the
      // next layer and stored for the others.
      Value v = layerResult(p);
      bool store = !v.hasOneUse();
      if (!canKeepOutput(p) || op.getOperand(0) != v)
        continue;
      bool pOnChip = p->hasAttr(kInputOnChipAttr);
      std::string key = layerSignature(p) + (pOnChip ? "|onchip" : "") +
                        (mirrored ? "|top" : "|bottom") +
                        (store ? "|store" : "") + "|" + layerSignature(&op);
      auto it = memo.find(key);
      if (it == memo.end())
        it =
            memo.emplace(key, cascade(p, &op, !mirrored, pOnChip, store)).first;
      const std::optional<Choice> &c = it->second;
      uint64_t planned = getPredictedCycles(p) + getPredictedCycles(&op);
      if (!c || (!always && c->producerCycles + c->consumerCycles >= planned))
        continue;
      setTilePlan(p, c->producer, c->producerCycles);
      setTilePlan(&op, c->consumer, c->consumerCycles);
      Builder b(&getContext());
      p->setAttr(kKeepOutputAttr, b.getUnitAttr());
      op.setAttr(kInputOnChipAttr, b.getUnitAttr());
    }
  }
};

} // namespace
