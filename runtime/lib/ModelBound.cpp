//===- ModelBound.cpp - The physical lower bound on a model's cycles ------===//
//
// The bound counts what no schedule can avoid: every MAC on some PE, and
// every input, constant and output crossing the DRAM interface once.
// Intermediate activations are left out on purpose (a large enough SRAM
// keeps them on chip), so the bound is a lower bound for every config.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/ModelBound.h"
#include "systole/Simulator/Semantics.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace systole;
using namespace systole::rt;

ModelBound rt::modelBound(const isa::Program &p) {
  const isa::HwConfig &cfg = p.config;
  ModelBound b;
  if (!p.placement.empty()) {
    for (const isa::OpPlacement &op : p.placement)
      if (!op.onHost)
        b.macs += op.macs;
  } else {
    for (const isa::Segment &s : p.segments)
      if (s.isNpu())
        for (const isa::Instruction &inst : s.npu().instructions) {
          sim::ActionCounts a = sim::countActions(inst, cfg);
          b.macs += a.macs + a.vectorMacs;
        }
  }
  for (const isa::TensorDesc &t : p.tensors) {
    if (t.kind == isa::TensorKind::Input)
      b.inputBytes += t.sizeBytes;
    else if (t.kind == isa::TensorKind::Output)
      b.outputBytes += t.sizeBytes;
  }
  // The model's constants, not the tables and gather matrices the compiler
  // derives (they cost DRAM time, but no schedule of the model needs them).
  for (const isa::ConstantSegment &c : p.constants)
    if (c.name != isa::kDerivedConstantsName)
      b.constantBytes += c.data.size();
  b.pes = cfg.array.rows * cfg.array.cols;
  b.bytesPerCycle = cfg.dram.bytesPerCycle;
  b.computeCycles = b.pes ? double(b.macs) / double(b.pes) : 0;
  b.memoryCycles = b.bytesPerCycle
                       ? double(b.compulsoryBytes()) / double(b.bytesPerCycle)
                       : 0;
  b.cycles = std::max(b.computeCycles, b.memoryCycles);
  b.computeBound = b.computeCycles >= b.memoryCycles;
  return b;
}

llvm::json::Object rt::modelBoundToJson(const ModelBound &b,
                                        std::optional<uint64_t> runCycles) {
  llvm::json::Object o{{"cycles", b.cycles},
                       {"compute_cycles", b.computeCycles},
                       {"memory_cycles", b.memoryCycles},
                       {"limited_by", b.computeBound ? "compute" : "memory"},
                       {"macs", int64_t(b.macs)},
                       {"pes", int64_t(b.pes)},
                       {"compulsory_bytes", int64_t(b.compulsoryBytes())},
                       {"input_bytes", int64_t(b.inputBytes)},
                       {"constant_bytes", int64_t(b.constantBytes)},
                       {"output_bytes", int64_t(b.outputBytes)},
                       {"dram_bytes_per_cycle", int64_t(b.bytesPerCycle)}};
  if (runCycles) {
    o["run_cycles"] = int64_t(*runCycles);
    o["cycles_over_bound"] = b.ratio(*runCycles);
  }
  return o;
}

void rt::printModelBound(const ModelBound &b, uint64_t runCycles,
                         llvm::raw_ostream &os) {
  os << llvm::formatv("bound: {0:f0} cycles = max({1} MACs / {2} PEs, {3} "
                      "compulsory bytes / {4} B/cycle), {5}-bound; {6} cycles "
                      "/ bound = {7:f2}\n",
                      b.cycles, b.macs, b.pes, b.compulsoryBytes(),
                      b.bytesPerCycle, b.computeBound ? "compute" : "memory",
                      runCycles, b.ratio(runCycles));
}
