//===- Analysis.h - Roofline, energy and cycle breakdown of a run -*- C++
//-*-===//
//
// What `systole report` and `systole sweep` compute from a RunReport (either
// backend or the estimate): the energy per component from the action counts
// and the config's per-action table (docs/energy.md), the roofline position of
// every layer and of the model for the config's peak MAC rate and DRAM
// bandwidth, and where each layer's cycles went (compute / DMA / stall).
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_RUNTIME_ANALYSIS_H
#define SYSTOLE_RUNTIME_ANALYSIS_H

#include "systole/Runtime/ModelBound.h"
#include "systole/Runtime/Runtime.h"
#include "systole/Runtime/Sweep.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace systole::rt {

/// Energy in picojoules by hardware component.
struct EnergyBreakdown {
  double array = 0;       ///< int8 MACs on the systolic array
  double vector = 0;      ///< vector-unit element ops and DWCONV MACs
  double scratchpad = 0;  ///< SP reads and writes
  double accumulator = 0; ///< ACC reads and writes
  double dram = 0;        ///< DRAM reads and writes (the host's too)
  double host = 0;        ///< the host's elementary operations
  double leakage = 0;     ///< leakage_pj_per_cycle x cycles
  double total() const {
    return array + vector + scratchpad + accumulator + dram + host + leakage;
  }
};
/// Same total as sim::RunStats::energyPj for the same counts and cycles.
EnergyBreakdown energyOf(const sim::ActionCounts &actions,
                         uint64_t leakageCycles, const isa::HwConfig &cfg);
/// Energy per byte of an SRAM of `capacityBytes` (pJ/byte): Horowitz's 45 nm
/// 64-bit reads (8 KB 10 pJ, 32 KB 20 pJ, 1 MB 100 pJ) interpolated
/// log-log, extrapolated with the end slopes.
double sramPjPerByte(uint64_t capacityBytes);
/// `base`'s prices with the SRAM ones moved along sramPjPerByte's curve from
/// the base capacities to `sram`'s (x f(new) / f(base)); equal capacities
/// give `base` unchanged. Sweeps derive each point's prices with it.
isa::HwConfig::Energy scaleSramPrices(const isa::HwConfig::Energy &base,
                                      uint64_t baseScratchpadBytes,
                                      uint64_t baseAccumulatorBytes,
                                      const isa::HwConfig::Sram &sram);

/// Roofline of some work: ops over DRAM bytes against a compute ceiling
/// (peak ops/cycle) and a bandwidth slope (bytes/cycle). Array work counts
/// MACs at rows x cols per cycle; work without array MACs (pooling, adds,
/// depthwise) counts vector MACs + element ops at `vector.lanes` per cycle.
struct RooflinePoint {
  bool vector = false;
  double ops = 0;
  double dramBytes = 0;
  double intensity = 0;       ///< ops per DRAM byte (0 when no bytes)
  double peakOpsPerCycle = 0; ///< compute ceiling
  double bytesPerCycle = 0;   ///< bandwidth slope
  double attainable = 0;      ///< min(peak, intensity x bandwidth), ops/cycle
  double achieved = 0;        ///< ops / cycles
  uint64_t cycles = 0;
  double boundCycles = 0; ///< max(ops / peak, bytes / bandwidth)
  bool computeBound = false;
  /// Ridge point of the roofline (ops/byte where the two ceilings meet).
  double ridge() const {
    return bytesPerCycle > 0 ? peakOpsPerCycle / bytesPerCycle : 0;
  }
};
RooflinePoint roofline(const sim::ActionCounts &actions, uint64_t cycles,
                       const isa::HwConfig &cfg);

/// Every cycle of a span is attributed to one class: the compute queue is
/// busy (compute), else the DRAM channel moves data for it (dma), else the
/// span waits (stall: DRAM latency, tokens, fetch). The three add up to the
/// span; token-wait and contention cycles are the raw per-instruction sums.
struct CycleBreakdown {
  uint64_t compute = 0;
  uint64_t dma = 0;
  uint64_t stall = 0;
  uint64_t tokenWait = 0;
  uint64_t dramContention = 0;
};
/// Breakdown of instructions [first, first + count) of one segment's stream
/// over the span [begin, end) (segment-relative cycles).
CycleBreakdown cycleBreakdown(llvm::ArrayRef<isa::Instruction> stream,
                              llvm::ArrayRef<sim::InstructionRecord> records,
                              size_t first, size_t count, uint64_t begin,
                              uint64_t end);

struct LayerAnalysis {
  std::string name;
  uint64_t startCycle = 0, endCycle = 0;
  sim::ActionCounts actions;
  RooflinePoint roof;
  CycleBreakdown breakdown;
  EnergyBreakdown energy; ///< no leakage (spans overlap; see docs/energy.md)
};

struct ModelAnalysis {
  std::string model;   ///< file name, for titles
  std::string backend; ///< functional | cycle | estimate
  isa::HwConfig config;
  uint64_t totalCycles = 0;
  sim::ActionCounts actions;
  /// Whole model: array MACs over all DRAM bytes moved (the chart's point);
  /// its boundCycles and computeBound are the model bound's (`bound`).
  RooflinePoint roof;
  ModelBound bound;  ///< the one bound (ModelBound.h)
  AreaEstimate area; ///< estimateArea(config, defaultAreaTable())
  CycleBreakdown breakdown;
  EnergyBreakdown energy;
  std::vector<LayerAnalysis> layers;
  double timeUs() const {
    return config.clockMhz > 0 ? double(totalCycles) / config.clockMhz : 0;
  }
};

ModelAnalysis analyzeRun(const RunReport &report, const Model &model,
                         llvm::StringRef modelName, llvm::StringRef backend);

/// Runs every NPU segment of `model` through the timing-only estimate
/// (sim::runEstimate); host segments take no NPU cycles. No inputs needed.
RunReport estimateRun(const Model &model, const sim::RunOptions &options = {});

/// Cycles of `program` in the timing-only estimate (equal to the SystemC
/// model's, docs/sweep.md); for reports that have a Program but no run.
llvm::Expected<uint64_t> estimateProgramCycles(const isa::Program &program);

/// What `systole compile` adds to its report: the estimate's cycles and the
/// bound, as printed by `systole report` (text), and a "model_bound" object
/// (JSON). If the estimate fails, the bound alone and the reason.
void printCompileBound(const isa::Program &program, llvm::raw_ostream &os);
void addCompileBound(const isa::Program &program, llvm::json::Object &report);

/// How a model is run for its analysis: the timing-only estimate (no
/// values), or a Session on a simulator backend.
enum class AnalysisMode { Estimate, Functional, Cycle };
std::optional<AnalysisMode> analysisModeByName(llvm::StringRef name);
const char *analysisModeName(AnalysisMode mode);
/// Runs `model` in `mode` and analyzes the run. Inputs missing from `inputs`
/// are bound to zeros: no instruction's timing depends on values. A fault is
/// an error.
llvm::Expected<ModelAnalysis>
runAndAnalyze(const Model &model, AnalysisMode mode,
              const std::map<std::string, HostTensor> &inputs,
              llvm::StringRef modelName);

llvm::json::Value analysisToJson(const ModelAnalysis &a);
/// One row per layer plus a final "total" row; header in the first line.
void writeAnalysisCsv(const ModelAnalysis &a, llvm::raw_ostream &os);
/// A self-contained HTML page: summary, roofline plot (one point per layer),
/// per-layer cycle breakdown and energy breakdown as inline SVG.
void writeAnalysisHtml(const ModelAnalysis &a, llvm::raw_ostream &os);

} // namespace systole::rt

#endif // SYSTOLE_RUNTIME_ANALYSIS_H
