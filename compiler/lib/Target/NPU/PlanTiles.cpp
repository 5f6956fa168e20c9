//===- PlanTiles.cpp - Per-layer tiling chosen by a cost model ------------===//
//
// Candidates come from each generator (largest tiles first); every candidate
// that fits the SRAMs is lowered for real and priced with the ISA timing
// model under the double-buffered pipeline, and the cheapest wins. Pricing
// the generated code, rather than a separate formula, keeps the model honest.
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"
#include "Tuner.h"

#include <chrono>

#include "systole/ISA/Presets.h"
#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

namespace systole::npu {
#define GEN_PASS_DEF_PLANTILES
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole::npu;

/// The op's name, operand/result types and inherent attributes, printed.
std::string systole::npu::layerSignature(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName();
  // Shapes and storage widths decide the timing; scales do not (and differ
  // per layer), so types are reduced to their shapes.
  auto shape = [&](Type t) {
    if (auto st = dyn_cast<ShapedType>(t))
      for (int64_t d : st.getShape())
        os << "x" << d;
    os << ":" << (llvm::isa<ShapedType>(t) ? storedElementBytes(t) : 0);
  };
  for (Type t : op->getOperandTypes())
    shape(t), os << " ";
  for (Type t : op->getResultTypes())
    os << "-> ", shape(t);
  // A table's or constant's entries do not change the timing, only its
  // shape (and printing a [C, 256] table per layer would cost more than
  // the search it saves).
  for (NamedAttribute a : op->getAttrs())
    if (!a.getName().getValue().starts_with("npu.")) {
      os << " " << a.getName().getValue() << "=";
      if (auto e = dyn_cast<ElementsAttr>(a.getValue()))
        os << e.getType();
      else
        os << a.getValue();
    }
  // A fused activation table takes scratchpad and REQUANT time.
  if (fusedTable(op))
    os << " +table";
  // So does a fused residual add (a tile load, a VADD).
  if (fusedResidual(op))
    os << " +residual";
  // And a store into a concat's slice (pixels further apart).
  if (auto s = concatSlice(op))
    os << " +slice" << s->channels;
  return os.str();
}

namespace {

struct PlanTilesPass : systole::npu::impl::PlanTilesBase<PlanTilesPass> {
  using PlanTilesBase::PlanTilesBase;

  void runOnOperation() override {
    auto hw = systole::isa::resolveHwConfig(hwConfig);
    if (!hw) {
      getOperation().emitError() << llvm::toString(hw.takeError());
      return signalPassFailure();
    }
    bool failed = false;
    std::map<std::string, std::pair<TilePlan, uint64_t>> memo;
    // --tune: a wider search per distinct layer, cached across runs.
    auto tuneStart = std::chrono::steady_clock::now();
    std::optional<TuneCache> cache;
    if (tune > 0 && !tuneCache.empty()) {
      auto c = TuneCache::open(tuneCache);
      if (!c) {
        getOperation().emitError() << llvm::toString(c.takeError());
        return signalPassFailure();
      }
      cache = std::move(*c);
    }
    std::string configKey = TuneCache::configKey(*hw);
    std::map<std::string, std::pair<TilePlan, uint64_t>> tuned;
    int64_t tunedLayers = 0, plansPriced = 0, cacheHits = 0;
    uint64_t defaultTotal = 0, tunedTotal = 0;
    getOperation().walk([&](Operation *op) {
      if (getPlacement(op) != Placement::Npu)
        return;
      std::vector<TilePlan> plans = candidatePlans(op, *hw);
      if (plans.empty())
        return; // no code (e.g. reshape)
      // Networks repeat layer shapes (ResNet blocks): the timing of a plan
      // depends only on the op, its types and attributes, so identical
      // layers share one search.
      std::string key = layerSignature(op);
      std::optional<TilePlan> best;
      uint64_t bestCycles = UINT64_MAX;
      std::string lastError;
      bool unsplitFits = false; // some plan without a K split lowered
      if (auto it = memo.find(key); it != memo.end()) {
        best = it->second.first;
        bestCycles = it->second.second;
        plans.clear();
      }
      auto price = [&](const std::vector<TilePlan> &candidates) {
        for (const TilePlan &plan : candidates) {
          ProgramBuilder scratch(*hw);
          LayerIO io;
          io.inputs.assign(numActivationOperands(op), 0);
          io.materializeConstants = false;
          if (auto s = concatSlice(op))
            io.outPixelStride = s->channels;
          auto items = lowerLayer(op, plan, io, scratch);
          if (!items) {
            lastError = llvm::toString(items.takeError());
            continue;
          }
          unsplitFits |= !plan.k.has_value();
          uint64_t cycles = scratch.estimateLayerCycles(*items);
          if (cycles < bestCycles) {
            bestCycles = cycles;
            best = plan;
          }
        }
      };
      price(plans);
      // Splitting K re-reads the lhs/input per chunk and adds items; it is
      // the fallback for layers whose unsplit tiles do not fit the SRAMs
      // (the default candidates' own splits, a matmul's resident lhs bands,
      // do not make it unnecessary).
      if (!unsplitFits && !plans.empty())
        price(candidatePlans(op, *hw, /*kSplit=*/true));
      // An elementwise layer that cannot hold the table reading its result
      // beside its own tiles leaves the table to a layer of its own.
      // (Only fusedTable's elementwise producers: a conv's, matmul's or
      // concat copy's table is priced as part of its own plans.)
      if (!best && !plans.empty() && fusedTable(op) &&
          llvm::isa<systole::graph::AddOp, systole::graph::MulOp,
                    systole::graph::SubOp, systole::graph::DivOp>(op)) {
        op->setAttr(kTableApartAttr, UnitAttr::get(op->getContext()));
        key = layerSignature(op);
        if (auto it = memo.find(key); it != memo.end())
          best = it->second.first, bestCycles = it->second.second;
        else
          price(candidatePlans(op, *hw));
      }
      if (best)
        memo[key] = {*best, bestCycles};
      if (!best) {
        op->emitError() << "no tiling fits the hardware config '" << hw->name
                        << "': " << lastError;
        failed = true;
        return;
      }
      if (!forcePlan.empty()) {
        // The first candidate with the requested entries, priced alone.
        uint64_t before = bestCycles;
        std::optional<TilePlan> keep = best;
        std::vector<TilePlan> all = candidatePlans(op, *hw);
        for (TilePlan &t : tuningCandidates(op, *hw))
          all.push_back(std::move(t));
        for (const TilePlan &plan : all) {
          bool match = true;
          for (llvm::StringRef kv : llvm::split(forcePlan, ',')) {
            auto [k, v] = kv.split('=');
            int64_t value = 0;
            TilePlan::Field f = TilePlan::field(k.trim());
            match &= !v.trim().getAsInteger(10, value) && f && plan.*f == value;
          }
          if (!match)
            continue;
          best.reset();
          bestCycles = UINT64_MAX;
          price({plan});
          if (best)
            break;
        }
        if (!best)
          best = keep, bestCycles = before;
      }
      defaultTotal += bestCycles;
      if (tune > 0) {
        // The default's choice stays unless a plan is strictly cheaper, so
        // tuning never predicts a slower layer.
        std::string tkey = configKey + "|" + key;
        if (auto it = tuned.find(tkey); it != tuned.end()) {
          std::tie(best, bestCycles) = it->second;
        } else {
          std::optional<TuneCache::Entry> hit =
              cache ? cache->lookup(tkey) : std::nullopt;
          if (hit && hit->cycles <= bestCycles && hit->budget >= tune) {
            // Priced again: the cache file is input, not trusted.
            uint64_t before = bestCycles;
            bestCycles = UINT64_MAX;
            std::optional<TilePlan> keep = best;
            price({hit->plan});
            if (!best || bestCycles > before)
              best = keep, bestCycles = before;
            ++cacheHits;
          } else {
            std::vector<TilePlan> more = tuningCandidates(op, *hw);
            if (static_cast<int64_t>(more.size()) > tune)
              more.resize(tune);
            plansPriced += more.size();
            price(more);
            if (cache)
              cache->store(tkey, {*best, bestCycles, tune});
          }
          ++tunedLayers;
          tuned[tkey] = {*best, bestCycles};
        }
      }
      tunedTotal += bestCycles;
      setTilePlan(op, *best, bestCycles);
    });
    if (failed)
      return signalPassFailure();
    if (tune > 0) {
      if (cache)
        if (llvm::Error e = cache->save()) {
          getOperation().emitError() << llvm::toString(std::move(e));
          return signalPassFailure();
        }
      double secs = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - tuneStart)
                        .count();
      Builder b(&getContext());
      getOperation()->setAttr(
          "npu.tune",
          b.getDictionaryAttr(
              {b.getNamedAttr("layers", b.getI64IntegerAttr(tunedLayers)),
               b.getNamedAttr("plans", b.getI64IntegerAttr(plansPriced)),
               b.getNamedAttr("cache_hits", b.getI64IntegerAttr(cacheHits)),
               b.getNamedAttr("default_cycles",
                              b.getI64IntegerAttr(int64_t(defaultTotal))),
               b.getNamedAttr("tuned_cycles",
                              b.getI64IntegerAttr(int64_t(tunedTotal))),
               b.getNamedAttr("seconds", b.getF64FloatAttr(secs))}));
    }
  }
};

} // namespace
