//===- Analysis.cpp - Per-layer and per-model analysis; JSON and CSV ------===//
#include "systole/Runtime/Analysis.h"

#include "llvm/Support/FormatVariadic.h"

using namespace systole;
using namespace systole::rt;
namespace json = llvm::json;

ModelAnalysis rt::analyzeRun(const RunReport &r, const Model &model,
                             llvm::StringRef modelName,
                             llvm::StringRef backend) {
  const isa::Program &p = model.program();
  ModelAnalysis a;
  a.model = modelName.str();
  a.backend = backend.str();
  a.config = p.config;
  a.totalCycles = r.total.totalCycles;
  a.actions = r.total.actions;
  a.roof = roofline(a.actions, a.totalCycles, a.config);
  // One bound for every report: the model's point keeps its intensity (bytes
  // moved) for the chart, but its bound is the model bound (docs/energy.md).
  a.bound = modelBound(p);
  a.roof.boundCycles = a.bound.cycles;
  a.roof.computeBound = a.bound.computeBound;
  a.energy = energyOf(a.actions, a.totalCycles, a.config);
  if (auto area = estimateArea(a.config, defaultAreaTable()))
    a.area = *area;
  else
    a.area.source = "unavailable: " + llvm::toString(area.takeError());
  for (const SegmentReport &sr : r.segments) {
    if (!sr.npu || sr.stats.instructions.empty())
      continue;
    const auto &stream = p.segments[&sr - r.segments.data()].npu().instructions;
    CycleBreakdown b = cycleBreakdown(stream, sr.stats.instructions, 0,
                                      stream.size(), 0, sr.stats.totalCycles);
    a.breakdown.compute += b.compute;
    a.breakdown.dma += b.dma;
    a.breakdown.stall += b.stall;
    a.breakdown.tokenWait += b.tokenWait;
    a.breakdown.dramContention += b.dramContention;
  }
  for (const sim::LayerStats &l : r.total.layers) {
    LayerAnalysis la;
    la.name = l.name;
    la.startCycle = l.startCycle;
    la.endCycle = l.endCycle;
    la.actions = l.actions;
    la.roof = roofline(l.actions, l.cycles(), a.config);
    la.energy = energyOf(l.actions, 0, a.config);
    if (l.segment < r.segments.size() && p.segments[l.segment].isNpu()) {
      const SegmentReport &sr = r.segments[l.segment];
      uint64_t base = sr.startCycle;
      la.breakdown = cycleBreakdown(p.segments[l.segment].npu().instructions,
                                    sr.stats.instructions, l.firstInstruction,
                                    l.instructionCount, l.startCycle - base,
                                    l.endCycle - base);
    }
    a.layers.push_back(std::move(la));
  }
  return a;
}

static json::Object rooflineJson(const RooflinePoint &p) {
  return json::Object{
      {"unit", p.vector ? "vector" : "array"},
      {"ops", p.ops},
      {"dram_bytes", p.dramBytes},
      {"intensity_ops_per_byte", p.intensity},
      {"peak_ops_per_cycle", p.peakOpsPerCycle},
      {"dram_bytes_per_cycle", p.bytesPerCycle},
      {"ridge_ops_per_byte", p.ridge()},
      {"attainable_ops_per_cycle", p.attainable},
      {"achieved_ops_per_cycle", p.achieved},
      {"bound_cycles", p.boundCycles},
      {"cycles", int64_t(p.cycles)},
      {"efficiency", p.cycles ? p.boundCycles / double(p.cycles) : 0.0},
      {"bound", p.computeBound ? "compute" : "memory"}};
}

static json::Object energyJson(const EnergyBreakdown &e) {
  return json::Object{{"array", e.array},
                      {"vector", e.vector},
                      {"scratchpad", e.scratchpad},
                      {"accumulator", e.accumulator},
                      {"dram", e.dram},
                      {"host", e.host},
                      {"leakage", e.leakage},
                      {"total", e.total()}};
}

static json::Object breakdownJson(const CycleBreakdown &b) {
  return json::Object{{"compute", int64_t(b.compute)},
                      {"dma", int64_t(b.dma)},
                      {"stall", int64_t(b.stall)},
                      {"token_wait", int64_t(b.tokenWait)},
                      {"dram_contention", int64_t(b.dramContention)}};
}

json::Value rt::analysisToJson(const ModelAnalysis &a) {
  json::Array layers;
  for (const LayerAnalysis &l : a.layers)
    layers.push_back(
        json::Object{{"name", l.name},
                     {"start_cycle", int64_t(l.startCycle)},
                     {"end_cycle", int64_t(l.endCycle)},
                     {"cycles", int64_t(l.endCycle - l.startCycle)},
                     {"macs", int64_t(l.actions.macs)},
                     {"roofline", rooflineJson(l.roof)},
                     {"cycle_breakdown", breakdownJson(l.breakdown)},
                     {"energy_pj", energyJson(l.energy)}});
  const isa::HwConfig &c = a.config;
  return json::Object{
      {"model", a.model},
      {"backend", a.backend},
      {"config", isa::hwConfigToJson(c)},
      {"total_cycles", int64_t(a.totalCycles)},
      {"time_us", a.timeUs()},
      {"macs", int64_t(a.actions.macs)},
      {"mac_utilization",
       a.totalCycles ? double(a.actions.macs) /
                           double(a.totalCycles * c.array.rows * c.array.cols)
                     : 0.0},
      {"roofline", rooflineJson(a.roof)},
      {"cycle_breakdown", breakdownJson(a.breakdown)},
      {"energy_pj", energyJson(a.energy)},
      {"model_bound", modelBoundToJson(a.bound, a.totalCycles)},
      {"area_mm2", json::Object{{"array", a.area.arrayMm2},
                                {"sram", a.area.sramMm2},
                                {"vector", a.area.vectorMm2},
                                {"other", a.area.otherMm2},
                                {"total", a.area.totalMm2},
                                {"source", a.area.source}}},
      {"layers", std::move(layers)}};
}

void rt::writeAnalysisCsv(const ModelAnalysis &a, llvm::raw_ostream &os) {
  os << "layer,start_cycle,end_cycle,cycles,macs,dram_bytes,intensity,"
        "attainable_ops_per_cycle,achieved_ops_per_cycle,bound_cycles,bound,"
        "compute_cycles,dma_cycles,stall_cycles,energy_array_pj,"
        "energy_vector_pj,energy_scratchpad_pj,energy_accumulator_pj,"
        "energy_dram_pj,energy_host_pj,energy_leakage_pj,energy_total_pj\n";
  auto row = [&](llvm::StringRef name, uint64_t s, uint64_t e,
                 const sim::ActionCounts &act, const RooflinePoint &p,
                 const CycleBreakdown &b, const EnergyBreakdown &en) {
    std::string quoted = name.contains(',') || name.contains('"')
                             ? "\"" + name.str() + "\""
                             : name.str();
    os << llvm::formatv("{0},{1},{2},{3},{4},{5},{6:g},{7:g},{8:g},{9:f1},{10}"
                        ",{11},{12},{13}",
                        quoted, s, e, e - s, act.macs, uint64_t(p.dramBytes),
                        p.intensity, p.attainable, p.achieved, p.boundCycles,
                        p.computeBound ? "compute" : "memory", b.compute, b.dma,
                        b.stall)
       << llvm::formatv(
              ",{0:f1},{1:f1},{2:f1},{3:f1},{4:f1},{5:f1},{6:f1},{7:f1}\n",
              en.array, en.vector, en.scratchpad, en.accumulator, en.dram,
              en.host, en.leakage, en.total());
  };
  for (const LayerAnalysis &l : a.layers)
    row(l.name, l.startCycle, l.endCycle, l.actions, l.roof, l.breakdown,
        l.energy);
  row("total", 0, a.totalCycles, a.actions, a.roof, a.breakdown, a.energy);
}
