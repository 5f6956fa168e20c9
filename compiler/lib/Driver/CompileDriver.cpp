//===- CompileDriver.cpp - ONNX file -> .npu program, in one call ---------===//
#include "systole/Driver/CompileDriver.h"
#include "systole/ISA/Verifier.h"

#include "systole/Dialect/NPU/Passes.h"
#include "systole/Frontend/OnnxImporter.h"
#include "systole/ISA/PlacementReport.h"
#include "systole/ISA/Presets.h"
#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPUBinary/NPUBinary.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>

using namespace systole;
using namespace systole::driver;

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Error driver::parseInputShape(llvm::StringRef spec, std::string &name,
                                    std::vector<int64_t> &shape) {
  auto [n, dims] = spec.split('=');
  shape.clear();
  llvm::SmallVector<llvm::StringRef> parts;
  dims.split(parts, 'x');
  for (llvm::StringRef p : parts) {
    int64_t d;
    if (p.getAsInteger(10, d) || d <= 0)
      return makeError("--input-shape " + spec +
                       ": expected name=DxDx... with positive dimensions");
    shape.push_back(d);
  }
  if (n.empty() || shape.empty())
    return makeError("--input-shape " + spec + ": expected name=DxDx...");
  name = n.str();
  return llvm::Error::success();
}

llvm::Expected<isa::Program>
driver::finishProgram(npu::EmittedProgram emitted, const isa::HwConfig &hw,
                      std::vector<npu::LayerReport> *report, bool verifyIR) {
  auto internal = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   ("internal error: " + msg).str());
  };
  // The code generators wrote each layer's items as npu IR; the pipeline
  // scheduler orders them into instruction streams with their tokens, and
  // the binary's streams and layer table are a translation of that IR
  // (lib/Target/NPUBinary). The IR's verifiers repeat the ISA's checks
  // isa::verifyProgram runs on the same instructions below (the
  // translation is exact), so they run on request (--verify-npu-ir).
  mlir::ModuleOp npuModule = *emitted.npu;
  for (npu::ProgramOp prog : npuModule.getOps<npu::ProgramOp>())
    if (mlir::failed(npu::schedulePipeline(prog)))
      return internal("the NPU program does not schedule");
  if (verifyIR && mlir::failed(mlir::verify(npuModule)))
    return internal("the NPU program does not verify as npu IR");
  isa::Program program = std::move(emitted.program);
  if (llvm::Error e = npu::exportProgram(npuModule, program))
    return internal(llvm::toString(std::move(e)));
  if (report)
    npu::completeLayerReports(npuModule, hw, *report);
  // What the compiler writes must load: a program the verifier rejects is
  // a compiler bug, reported here rather than by the first run.
  if (llvm::Error e = isa::verifyProgram(program))
    return internal("the generated program is invalid: " +
                    llvm::toString(std::move(e)));
  return program;
}

llvm::Expected<CompileResult>
driver::compileOnnxFile(llvm::StringRef path, const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  auto progress = [&](const llvm::Twine &stage) {
    if (options.progress)
      options.progress(stage.str());
  };
  CompileResult result;
  auto config = isa::resolveHwConfig(options.hw);
  if (!config)
    return config.takeError();
  result.config = *config;

  mlir::MLIRContext context;
  context.disableMultithreading();
  // Error diagnostics are kept for the returned error; returning failure()
  // hands them on to the default handler, which prints them.
  std::vector<std::string> errors;
  mlir::ScopedDiagnosticHandler diagnostics(
      &context, [&](mlir::Diagnostic &d) -> mlir::LogicalResult {
        if (d.getSeverity() == mlir::DiagnosticSeverity::Error) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << d.getLocation() << ": error: " << d;
          // The pass manager's "see current operation" note dumps the
          // whole op; the message and its location name the layer already.
          for (const mlir::Diagnostic &note : d.getNotes())
            if (!llvm::StringRef(note.str()).starts_with("see current"))
              os << "\n" << note.getLocation() << ": note: " << note;
          errors.push_back(std::move(text));
        }
        return mlir::failure(options.printDiagnostics);
      });
  auto withDiagnostics = [&](const llvm::Twine &msg,
                             llvm::StringRef printedSuffix = "") {
    if (options.printDiagnostics || errors.empty())
      return makeError(msg + (options.printDiagnostics ? printedSuffix : ""));
    std::string all;
    for (const std::string &e : errors)
      all += "\n" + e;
    return makeError(msg + ":" + all);
  };

  progress("importing " + path);
  frontend::ImportOptions importOptions;
  importOptions.inputShapes = options.inputShapes;
  importOptions.defaultedDims = &result.notes;
  importOptions.hostConvTranspose = options.hostConvTranspose;
  importOptions.ortFusions = options.ortFusions;
  auto module = frontend::importOnnxFile(path, context, importOptions);
  if (!module)
    return withDiagnostics(llvm::toString(module.takeError()));

  progress("running the pass pipeline for " + config->name);
  mlir::PassManager pm(&context);
  npu::PipelineOptions pipeline;
  pipeline.hw = options.hw;
  pipeline.reuseDram = options.reuseDram;
  // Without DRAM reuse every intermediate is kept to be read back (`systole
  // compare`): a fused add would leave its conv's result unstored.
  pipeline.fuseResidual = options.fuseResidual && options.reuseDram;
  pipeline.keepOnChipAlways = options.keepOnChipAlways;
  pipeline.forcePlan = options.forcePlan;
  pipeline.tune = options.tune;
  pipeline.tuneCache = options.tuneCache;
  npu::populateSystolePipeline(pm, pipeline);
  if (options.configurePassManager)
    options.configurePassManager(pm);
  if (mlir::failed(pm.run(**module)))
    return withDiagnostics("compilation of " + path + " failed",
                           " (see diagnostics above)");

  progress("generating NPU code");
  auto func = (*module)->lookupSymbol<mlir::func::FuncOp>("main");
  if (!func)
    return makeError(path + ": the imported module has no @main");
  if (auto t = func->getAttrOfType<mlir::DictionaryAttr>("npu.tune")) {
    auto i = [&](llvm::StringRef k) {
      auto a = t.getAs<mlir::IntegerAttr>(k);
      return a ? a.getInt() : 0;
    };
    CompileResult::TuneSummary s;
    s.layers = i("layers"), s.plans = i("plans"), s.cacheHits = i("cache_hits");
    s.defaultCycles = i("default_cycles"), s.tunedCycles = i("tuned_cycles");
    if (auto f = t.getAs<mlir::FloatAttr>("seconds"))
      s.seconds = f.getValueAsDouble();
    result.tune = s;
  }
  npu::EmitOptions emit = options.emit;
  emit.fuseInputTranspose = options.reuseDram;
  auto emitted = npu::emitProgram(func, *config, &result.layers, emit);
  if (!emitted)
    return withDiagnostics(llvm::toString(emitted.takeError()));
  auto program = finishProgram(std::move(*emitted), *config, &result.layers,
                               options.verifyNpuIR);
  if (!program)
    return withDiagnostics(llvm::toString(program.takeError()),
                           " (see diagnostics above)");
  result.program = std::move(*program);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return result;
}

void driver::printCompileReport(
    const std::vector<npu::LayerReport> &layers, const isa::HwConfig &hw,
    llvm::raw_ostream &os, const std::vector<isa::OpPlacement> *placement) {
  os << llvm::formatv("{0,-28} {1,-38} {2,8} {3,12} {4,12} {5,12}  {6}\n",
                      "layer", "mapping", "instrs", "dram bytes", "predicted",
                      "roofline", "busiest unit");
  uint64_t total = 0, bound = 0;
  for (const npu::LayerReport &l : layers) {
    uint64_t roof = std::max(l.computeBoundCycles, l.memoryBoundCycles);
    // The unit busy longest, with its busy cycles' share of the predicted
    // ones: near 100% the layer runs at that unit's limit.
    std::string busiest;
    if (!l.onHost && l.predictedCycles) {
      uint64_t busy = std::max({l.arrayCycles, l.vectorCycles, l.dmaCycles});
      busiest = llvm::formatv("{0} {1}%", l.limitingUnit(),
                              busy * 100 / l.predictedCycles);
    }
    os << llvm::formatv("{0,-28} {1,-38} {2,8} {3,12} {4,12} {5,12}  {6}\n",
                        l.name.substr(0, 28), l.mapping.substr(0, 38),
                        l.instructions, l.dramBytes, l.predictedCycles, roof,
                        busiest);
    total += l.predictedCycles;
    bound += roof;
  }
  // The per-layer column is each layer's own roofline; the model's one bound
  // (rt::modelBound) is printed by the caller (docs/energy.md).
  os << llvm::formatv("total predicted cycles {0} (per-layer rooflines sum "
                      "to {1}) on {2}\n",
                      total, bound, hw.name);
  if (placement)
    isa::printPlacement(*placement, os);
}

llvm::json::Value
driver::compileReportToJson(const std::vector<npu::LayerReport> &ls,
                            const isa::HwConfig &hw,
                            const std::vector<isa::OpPlacement> *placement) {
  llvm::json::Array layers;
  uint64_t total = 0;
  for (const npu::LayerReport &l : ls) {
    total += l.predictedCycles;
    layers.push_back(llvm::json::Object{
        {"name", l.name},
        {"op", l.op},
        {"mapping", l.mapping},
        {"instructions", static_cast<int64_t>(l.instructions)},
        {"macs", static_cast<int64_t>(l.macs)},
        {"dram_bytes", static_cast<int64_t>(l.dramBytes)},
        {"compulsory_bytes", static_cast<int64_t>(l.compulsoryBytes)},
        {"predicted_cycles", static_cast<int64_t>(l.predictedCycles)},
        {"compute_bound_cycles", static_cast<int64_t>(l.computeBoundCycles)},
        {"memory_bound_cycles", static_cast<int64_t>(l.memoryBoundCycles)},
        {"unit_cycles",
         llvm::json::Object{{"array", static_cast<int64_t>(l.arrayCycles)},
                            {"vector", static_cast<int64_t>(l.vectorCycles)},
                            {"dma", static_cast<int64_t>(l.dmaCycles)}}},
        {"limited_by", l.limitingUnit()},
        {"placement", l.onHost ? "host" : "npu"},
        {"host_bytes_in", static_cast<int64_t>(l.hostBytesIn)},
        {"host_bytes_out", static_cast<int64_t>(l.hostBytesOut)},
        {"transfer_cycles", static_cast<int64_t>(l.transferCycles)}});
  }
  llvm::json::Object report{
      {"hw", hw.name},
      {"dram_bytes_per_cycle", static_cast<int64_t>(hw.dram.bytesPerCycle)},
      {"predicted_cycles", static_cast<int64_t>(total)},
      {"layers", std::move(layers)}};
  if (placement)
    report["placement"] = isa::placementToJson(*placement);
  return report;
}
