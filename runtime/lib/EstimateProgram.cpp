//===- EstimateProgram.cpp - The estimate of a program, for reports ------===//
//
// What a report that has a Program but no run prints: the timing-only
// estimate's cycles (estimateRun on the program as a Model) next to the
// model bound (ModelBound.cpp).
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/Analysis.h"
#include "systole/Runtime/ModelBound.h"

#include "llvm/Support/FormatVariadic.h"

using namespace systole;
using namespace systole::rt;

llvm::Expected<uint64_t> rt::estimateProgramCycles(const isa::Program &p) {
  auto model = Model::fromProgram(p);
  if (!model)
    return model.takeError();
  RunReport r = estimateRun(**model);
  if (r.fault)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(), "estimate of segment '%s': %s",
        r.faultSegment.c_str(), r.fault->message().c_str());
  return r.total.totalCycles;
}

void rt::printCompileBound(const isa::Program &p, llvm::raw_ostream &os) {
  ModelBound b = modelBound(p);
  auto cycles = estimateProgramCycles(p);
  if (!cycles) {
    // The binary is written; a report line is no reason to fail the compile.
    os << "estimate: unavailable (" << llvm::toString(cycles.takeError())
       << ")\n";
    printModelBound(b, 0, os);
    return;
  }
  os << llvm::formatv("estimate: {0} cycles on {1}\n", *cycles, p.config.name);
  printModelBound(b, *cycles, os);
}

void rt::addCompileBound(const isa::Program &p, llvm::json::Object &report) {
  auto cycles = estimateProgramCycles(p);
  if (!cycles) {
    report["model_bound"] = modelBoundToJson(modelBound(p));
    report["estimate_error"] = llvm::toString(cycles.takeError());
    return;
  }
  report["model_bound"] = modelBoundToJson(modelBound(p), *cycles);
}
