//===- CmdCompile.cpp - `systole compile`: ONNX -> .npu -------------------===//
//
// Thin driver over driver::compileOnnxFile (import, the pass pipeline,
// emission) and the compile report.
//
//===----------------------------------------------------------------------===//
#include "FlagParser.h"
#include "Subcommands.h"

#include "systole/Driver/CompileDriver.h"
#include "systole/ISA/Program.h"
#include "systole/Runtime/Analysis.h"
#include "systole/Target/NPUBinary/NPUBinary.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace systole;

static int fail(const llvm::Twine &msg) {
  llvm::errs() << "error: " << msg << "\n";
  return 1;
}

static int runCompile(int argc, char **argv) {
  std::string input, output, hw = "default-32x32", dumpAfter, reportPath,
                             hostTarget = "cpu", gpuArch = "sm_75", npuMlir;
  std::vector<std::string> inputShapes;
  bool dumpAll = false, noReuse = false, noFusion = false, noOrtFusions = false,
       quiet = false, keepOnChip = false, hostConvTranspose = false,
       verifyNpuIR = false, timing = false;
  uint64_t tune = 0;
  std::string tuneCache, forcePlan;
  cli::FlagParser flags(
      "systole compile",
      "Compiles a quantized ONNX model to an NPU binary for a hardware "
      "config and prints the per-layer report.");
  flags.positional(input, "MODEL.onnx", "more than one model file")
      .required()
      .value({"-o"}, output, "OUT.npu", "the binary to write")
      .required()
      .value({"--hw"}, hw, "CONFIG.json|PRESET",
             "hardware config file or preset (default: default-32x32)")
      .append({"--input-shape"}, inputShapes, "NAME=DxDx...",
              "override an input's shape, e.g. input=8x3x224x224 "
              "(repeatable)")
      .value({"--report"}, reportPath, "FILE",
             "write the compile report as JSON")
      .value({"--dump-ir-after"}, dumpAfter, "PASS",
             "print the IR after the named pass")
      .flag({"--dump-ir-after-all"}, dumpAll, "print the IR after every pass")
      .flag({"--timing"}, timing,
            "print each stage's wall time and the MLIR pass timing report")
      .value({"--emit-npu-mlir"}, npuMlir, "FILE",
             "also write the NPU program as npu dialect IR (- for stdout), "
             "as it is translated into the binary")
      .flag({"--verify-npu-ir"}, verifyNpuIR,
            "also run the npu dialect's verifiers on the program before it "
            "is translated into the binary")
      .flag({"--no-dram-reuse"}, noReuse,
            "give every tensor its own DRAM buffer and store it (debugging: "
            "all intermediates can be read back after a run; implies "
            "--no-fusion)")
      .optionalNumber({"--tune"}, tune, 2000, "BUDGET",
                      "search each distinct layer's tile sizes, dataflow, "
                      "loop order and K split with the estimate model, "
                      "pricing up to BUDGET plans beyond the default ones "
                      "(default 2000); prints the predicted gain")
      .value({"--tune-cache"}, tuneCache, "FILE|none",
             "where --tune keeps its results per layer and config (default: "
             "$XDG_CACHE_HOME/systole/tune.json or ~/.cache/systole/"
             "tune.json; none: no cache)")
      .flag({"--no-ort-fusions"}, noOrtFusions,
            "compute the model's ops as written, not as ONNX Runtime fuses "
            "them (LayerNorm, GELU, MatMul scales; docs/host.md)")
      .flag({"--no-fusion"}, noFusion,
            "run every residual add as a layer of its own instead of in "
            "the epilogue of the convolution that produces it, and keep no "
            "layer's output in the scratchpad for the next layer")
      .value({"--force-plan"}, forcePlan, "KEY=V,...",
             "debugging: every layer with a candidate tile plan of these "
             "entries (as the report's mapping prints them, e.g. "
             "n=2,order=1) uses it, whatever the cost model predicts")
      .flag({"--keep-on-chip"}, keepOnChip,
            "keep every layer output that fits in the scratchpad for the "
            "next layer, even where the cost model predicts it is slower "
            "(fewer DRAM bytes; by default only where it is faster)")
      .flag({"--host-conv-transpose"}, hostConvTranspose,
            "run every ConvTranspose in float on the host, as ONNX Runtime "
            "does, instead of an upsampling one (kernel = stride) as a 1x1 "
            "convolution and a DepthToSpace on the NPU (whose integer sum "
            "can round differently from ORT's float one on exact ties)")
      .value({"--host-target"}, hostTarget, "cpu|gpu|gpu-emulation",
             "compiled host code: cpu (a native shared object) or gpu (PTX "
             "beside the CPU code; the runtime uses a GPU if present); "
             "gpu-emulation (test: the GPU form run on the CPU) (default: "
             "cpu)")
      .value({"--gpu-arch"}, gpuArch, "SM",
             "PTX target for --host-target gpu (default: sm_75)")
      .flag({"--quiet", "-q"}, quiet, "do not print the per-layer report");
  if (auto exit = flags.parse(argc, argv))
    return *exit;
  if (hostTarget != "cpu" && hostTarget != "gpu" &&
      hostTarget != "gpu-emulation")
    return flags.usageError("--host-target: '" + hostTarget +
                            "' is not one of cpu, gpu, gpu-emulation");
  // A plan entry the planner cannot match would silently force nothing.
  for (llvm::StringRef kv : llvm::split(llvm::StringRef(forcePlan), ',')) {
    auto [key, value] = kv.split('=');
    int64_t v = 0;
    if (!forcePlan.empty() &&
        (key.trim().empty() || value.trim().getAsInteger(10, v)))
      return flags.usageError("--force-plan: '" + kv.str() +
                              "' is not KEY=INTEGER");
  }
  driver::CompileOptions options;
  options.hw = hw;
  options.reuseDram = !noReuse;
  options.fuseResidual = !noFusion;
  options.ortFusions = !noOrtFusions;
  options.keepOnChipAlways = keepOnChip;
  options.verifyNpuIR = verifyNpuIR;
  options.forcePlan = forcePlan;
  options.hostConvTranspose = hostConvTranspose;
  options.tune = static_cast<int64_t>(tune);
  if (tune > 0)
    options.tuneCache = tuneCache == "none" ? std::string()
                        : tuneCache.empty() ? npu::defaultTuneCachePath()
                                            : tuneCache;
  options.emit.hostGpu = hostTarget == "gpu";
  options.emit.hostGpuEmulation = hostTarget == "gpu-emulation";
  options.emit.gpuArch = gpuArch;
  for (const std::string &spec : inputShapes) {
    std::string name;
    std::vector<int64_t> shape;
    if (auto err = driver::parseInputShape(spec, name, shape))
      return fail(llvm::toString(std::move(err)));
    options.inputShapes[name] = shape;
  }
  int stage = 0;
  auto stageStart = std::chrono::steady_clock::now();
  options.progress = [&](llvm::StringRef what) {
    auto now = std::chrono::steady_clock::now();
    if (timing && stage > 0)
      llvm::errs() << llvm::format(
          "      %.2f s\n",
          std::chrono::duration<double>(now - stageStart).count());
    stageStart = now;
    llvm::errs() << "[" << ++stage << "/4] " << what << "\n";
  };
  if (dumpAll || !dumpAfter.empty() || timing) {
    std::string wanted = dumpAfter;
    bool print = dumpAll || !dumpAfter.empty();
    options.configurePassManager = [wanted, print,
                                    timing](mlir::PassManager &pm) {
      if (timing)
        pm.enableTiming();
      if (!print)
        return;
      pm.enableIRPrinting(
          [](mlir::Pass *, mlir::Operation *) { return false; },
          [wanted](mlir::Pass *pass, mlir::Operation *) {
            return wanted.empty() || pass->getArgument() == wanted;
          },
          /*printModuleScope=*/false, /*printAfterOnlyOnChange=*/false);
    };
  }
  auto compiled = driver::compileOnnxFile(input, options);
  if (!compiled)
    return fail(llvm::toString(compiled.takeError()));
  // --tune prices each layer alone; across layers (weights loaded during
  // the previous layer, scratchpad halves) a tuned plan can still lose. The
  // whole program's estimate decides: the tuned binary only if it is
  // faster than the default one.
  std::optional<std::pair<uint64_t, uint64_t>> wholeProgram;
  if (options.tune > 0) {
    driver::CompileOptions plain = options;
    plain.tune = 0;
    plain.progress = nullptr;
    auto base = driver::compileOnnxFile(input, plain);
    if (!base)
      return fail(llvm::toString(base.takeError()));
    auto tunedCycles = rt::estimateProgramCycles(compiled->program);
    auto baseCycles = rt::estimateProgramCycles(base->program);
    if (!tunedCycles || !baseCycles)
      return fail("--tune: cannot estimate the program: " +
                  (tunedCycles ? llvm::toString(baseCycles.takeError())
                               : llvm::toString(tunedCycles.takeError())));
    wholeProgram = {*baseCycles, *tunedCycles};
    if (*tunedCycles >= *baseCycles) {
      std::optional<driver::CompileResult::TuneSummary> t = compiled->tune;
      double seconds = compiled->seconds;
      *compiled = std::move(*base);
      compiled->tune = t;
      compiled->seconds += seconds;
    } else {
      compiled->seconds += base->seconds;
    }
  }
  for (const std::string &d : compiled->notes)
    llvm::errs() << "note: " << d
                 << " (a batch dimension; --input-shape overrides it)\n";
  const isa::Program *program = &compiled->program;
  const isa::HwConfig *config = &compiled->config;
  const std::vector<npu::LayerReport> &layers = compiled->layers;

  options.progress("writing " + output);
  if (!npuMlir.empty()) {
    // The binary's NPU program as the IR it was translated from (the
    // translation is exact both ways, so importing it again gives that IR).
    mlir::MLIRContext context;
    auto module = npu::importProgram(*program, &context);
    if (!module)
      return fail(llvm::toString(module.takeError()));
    std::error_code ec;
    llvm::raw_fd_ostream os(npuMlir, ec);
    if (ec)
      return fail("cannot write " + npuMlir + ": " + ec.message());
    (*module)->print(os);
  }
  if (auto err = isa::writeProgramFile(*program, output))
    return fail(llvm::toString(std::move(err)));
  if (!quiet) {
    driver::printCompileReport(layers, *config, llvm::outs(),
                               &program->placement);
    rt::printCompileBound(*program, llvm::outs());
  }
  if (!reportPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(reportPath, ec);
    if (ec)
      return fail("cannot write " + reportPath + ": " + ec.message());
    llvm::json::Value json =
        driver::compileReportToJson(layers, *config, &program->placement);
    rt::addCompileBound(*program, *json.getAsObject());
    os << llvm::formatv("{0:2}", json) << "\n";
  }
  if (const auto &t = compiled->tune) {
    double gain =
        t->defaultCycles
            ? 100.0 * (double(t->defaultCycles) - double(t->tunedCycles)) /
                  double(t->defaultCycles)
            : 0.0;
    llvm::errs() << llvm::formatv(
        "tune: {0} distinct layers ({1} from the cache), {2} plans priced in "
        "{3:f1} s; predicted layer cycles {4} -> {5} ({6:f1}% fewer)\n",
        t->layers, t->cacheHits, t->plans, t->seconds, t->defaultCycles,
        t->tunedCycles, gain);
    if (wholeProgram) {
      auto [base, tuned] = *wholeProgram;
      llvm::errs() << llvm::formatv(
          "tune: whole program (estimate) {0} cycles with the default plans, "
          "{1} tuned: {2}\n",
          base, tuned,
          tuned < base
              ? llvm::formatv("{0:f2}% fewer, tuned plans kept",
                              100.0 * double(base - tuned) / double(base))
                    .str()
              : std::string("not faster, default plans kept"));
    }
  }
  double secs = compiled->seconds;
  size_t instrs = 0;
  for (const isa::Segment &s : program->segments)
    if (s.isNpu())
      instrs += s.npu().instructions.size();
  llvm::errs() << llvm::formatv(
      "compiled {0} layers, {1} instructions, {2} "
      "constant bytes in {3:f2} s\n",
      layers.size(), instrs,
      program->constants.empty() ? 0 : program->constants[0].data.size(), secs);
  if (timing)
    llvm::errs() << llvm::format(
        "      %.2f s\n", std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - stageStart)
                              .count());
  return 0;
}

static cli::SubcommandRegistration
    reg("compile", "compile a quantized ONNX model to an .npu binary",
        runCompile);
