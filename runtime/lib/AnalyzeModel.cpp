//===- AnalyzeModel.cpp - Run a model in a mode and analyze the run -------===//
#include "systole/Runtime/Analysis.h"

#include "llvm/Support/FormatVariadic.h"

using namespace systole;
using namespace systole::rt;

std::optional<AnalysisMode> rt::analysisModeByName(llvm::StringRef name) {
  if (name == "estimate")
    return AnalysisMode::Estimate;
  if (name == "functional")
    return AnalysisMode::Functional;
  if (name == "cycle")
    return AnalysisMode::Cycle;
  return std::nullopt;
}

const char *rt::analysisModeName(AnalysisMode mode) {
  switch (mode) {
  case AnalysisMode::Estimate:
    return "estimate";
  case AnalysisMode::Functional:
    return "functional";
  case AnalysisMode::Cycle:
    return "cycle";
  }
  return "?";
}

llvm::Expected<ModelAnalysis>
rt::runAndAnalyze(const Model &model, AnalysisMode mode,
                  const std::map<std::string, HostTensor> &inputs,
                  llvm::StringRef modelName) {
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  if (mode == AnalysisMode::Estimate) {
    RunReport r = estimateRun(model);
    if (r.fault)
      return fail(llvm::formatv("segment '{0}': {1}", r.faultSegment,
                                r.fault->message()));
    return analyzeRun(r, model, modelName, analysisModeName(mode));
  }
  SessionOptions opts;
  opts.backend = mode == AnalysisMode::Cycle ? sim::BackendKind::Cycle
                                             : sim::BackendKind::Functional;
  Session session(model, opts);
  for (const TensorInfo &t : model.inputs()) {
    auto it = inputs.find(t.name);
    HostTensor zeros(elementTypeOf(t.dtype), t.shape);
    if (auto e =
            session.setInput(t.name, it != inputs.end() ? it->second : zeros))
      return std::move(e);
  }
  for (const auto &kv : inputs) {
    bool known = false;
    for (const TensorInfo &t : model.inputs())
      known |= t.name == kv.first;
    if (!known)
      return fail("no input named '" + kv.first + "'");
  }
  if (auto e = session.run())
    return std::move(e);
  return analyzeRun(session.report(), model, modelName, analysisModeName(mode));
}
