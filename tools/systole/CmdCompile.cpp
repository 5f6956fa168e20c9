//===- CmdCompile.cpp - `systole compile`: ONNX -> .npu -------------------===//
//
// Thin driver over the libraries: import, the pass pipeline, emission, and
// the compile report.
//
//===----------------------------------------------------------------------===//
#include "Subcommands.h"

#include "systole/Frontend/OnnxImporter.h"
#include "systole/ISA/Program.h"
#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Emit.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace cl = llvm::cl;
using namespace systole;

static int fail(const llvm::Twine &msg) {
  llvm::errs() << "error: " << msg << "\n";
  return 1;
}

static void printReport(const std::vector<npu::LayerReport> &layers,
                        const isa::HwConfig &hw, llvm::raw_ostream &os) {
  os << llvm::formatv("{0,-28} {1,-38} {2,8} {3,12} {4,12} {5,12}\n", "layer",
                      "mapping", "instrs", "dram bytes", "predicted",
                      "roofline");
  uint64_t total = 0, bound = 0;
  for (const npu::LayerReport &l : layers) {
    uint64_t roof = std::max(l.computeBoundCycles, l.memoryBoundCycles);
    os << llvm::formatv("{0,-28} {1,-38} {2,8} {3,12} {4,12} {5,12}\n",
                        l.name.substr(0, 28), l.mapping.substr(0, 38),
                        l.instructions, l.dramBytes, l.predictedCycles, roof);
    total += l.predictedCycles;
    bound += roof;
  }
  os << llvm::formatv("total predicted cycles {0}, roofline bound {1} "
                      "(ratio {2:f2}) on {3}\n",
                      total, bound, bound ? double(total) / bound : 0.0,
                      hw.name);
}

static llvm::json::Value reportJson(const std::vector<npu::LayerReport> &ls,
                                    const isa::HwConfig &hw) {
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
        {"placement", l.onHost ? "host" : "npu"},
        {"host_bytes_in", static_cast<int64_t>(l.hostBytesIn)},
        {"host_bytes_out", static_cast<int64_t>(l.hostBytesOut)},
        {"transfer_cycles", static_cast<int64_t>(l.transferCycles)}});
  }
  return llvm::json::Object{
      {"hw", hw.name},
      {"dram_bytes_per_cycle", static_cast<int64_t>(hw.dram.bytesPerCycle)},
      {"predicted_cycles", static_cast<int64_t>(total)},
      {"layers", std::move(layers)}};
}

static int runCompile(int argc, char **argv) {
  cl::OptionCategory cat("systole compile");
  cl::opt<std::string> input(cl::Positional, cl::desc("<model.onnx>"),
                             cl::Required, cl::cat(cat));
  cl::opt<std::string> output("o", cl::desc("output .npu file"),
                              cl::value_desc("file"), cl::Required,
                              cl::cat(cat));
  cl::opt<std::string> hw("hw", cl::desc("hardware config file or preset"),
                          cl::init("default-32x32"), cl::cat(cat));
  cl::opt<std::string> dumpAfter("dump-ir-after",
                                 cl::desc("print the IR after the named pass"),
                                 cl::value_desc("pass"), cl::cat(cat));
  cl::opt<bool> dumpAll("dump-ir-after-all",
                        cl::desc("print the IR after every pass"),
                        cl::cat(cat));
  cl::opt<std::string> reportPath("report",
                                  cl::desc("write the compile report as JSON"),
                                  cl::value_desc("file"), cl::cat(cat));
  cl::list<std::string> inputShapes(
      "input-shape",
      cl::desc("override an input's shape, e.g. input=8x3x224x224"),
      cl::value_desc("name=DxDx..."), cl::cat(cat));
  cl::opt<bool> noReuse(
      "no-dram-reuse",
      cl::desc("give every tensor its own DRAM buffer (debugging: all "
               "intermediates can be read back after a run)"),
      cl::cat(cat));
  cl::opt<std::string> hostTarget(
      "host-target",
      cl::desc("compiled host code: cpu (a native shared object) or gpu "
               "(PTX beside the CPU code; the runtime uses a GPU if present); "
               "gpu-emulation (test: the GPU form run on the CPU)"),
      cl::init("cpu"), cl::cat(cat));
  cl::opt<std::string> gpuArch("gpu-arch",
                               cl::desc("PTX target for --host-target gpu"),
                               cl::init("sm_75"), cl::cat(cat));
  cl::opt<bool> quiet("q", cl::desc("do not print the per-layer report"),
                      cl::cat(cat));
  cl::HideUnrelatedOptions(cat);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "Compile a quantized ONNX model to an NPU "
                                   "binary\n",
                                   &llvm::errs()))
    return 2;
  auto start = std::chrono::steady_clock::now();
  auto config = npu::resolveHwConfig(hw);
  if (!config)
    return fail(llvm::toString(config.takeError()));

  mlir::MLIRContext context;
  context.disableMultithreading();
  llvm::errs() << "[1/4] importing " << input << "\n";
  frontend::ImportOptions importOptions;
  for (const std::string &spec : inputShapes) {
    auto [name, dims] = llvm::StringRef(spec).split('=');
    std::vector<int64_t> shape;
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef p : parts) {
      int64_t d;
      if (p.getAsInteger(10, d) || d <= 0)
        return fail("--input-shape " + spec +
                    ": expected name=DxDx... with positive dimensions");
      shape.push_back(d);
    }
    if (name.empty() || shape.empty())
      return fail("--input-shape " + spec + ": expected name=DxDx...");
    importOptions.inputShapes[name.str()] = shape;
  }
  std::vector<std::string> defaultedDims;
  importOptions.defaultedDims = &defaultedDims;
  auto module = frontend::importOnnxFile(input, context, importOptions);
  if (!module)
    return fail(llvm::toString(module.takeError()));
  for (const std::string &d : defaultedDims)
    llvm::errs() << "note: " << d
                 << " (a batch dimension; --input-shape overrides it)\n";

  llvm::errs() << "[2/4] running the pass pipeline for " << config->name
               << "\n";
  mlir::PassManager pm(&context);
  npu::PipelineOptions options;
  options.hw = hw;
  options.reuseDram = !noReuse;
  npu::populateSystolePipeline(pm, options);
  if (dumpAll || !dumpAfter.empty()) {
    std::string wanted = dumpAfter;
    pm.enableIRPrinting(
        [](mlir::Pass *, mlir::Operation *) { return false; },
        [wanted](mlir::Pass *pass, mlir::Operation *) {
          return wanted.empty() || pass->getArgument() == wanted;
        },
        /*printModuleScope=*/false, /*printAfterOnlyOnChange=*/false);
  }
  if (mlir::failed(pm.run(**module)))
    return fail("compilation of " + input + " failed (see diagnostics above)");

  llvm::errs() << "[3/4] generating NPU code\n";
  auto func = (*module)->lookupSymbol<mlir::func::FuncOp>("main");
  std::vector<npu::LayerReport> layers;
  if (hostTarget != "cpu" && hostTarget != "gpu" &&
      hostTarget != "gpu-emulation")
    return fail("--host-target must be cpu, gpu or gpu-emulation");
  npu::EmitOptions emitOptions;
  emitOptions.hostGpu = hostTarget == "gpu";
  emitOptions.hostGpuEmulation = hostTarget == "gpu-emulation";
  emitOptions.gpuArch = gpuArch;
  auto program = npu::emitProgram(func, *config, &layers, emitOptions);
  if (!program)
    return fail(llvm::toString(program.takeError()));

  llvm::errs() << "[4/4] writing " << output << "\n";
  if (auto err = isa::writeProgramFile(*program, output))
    return fail(llvm::toString(std::move(err)));
  if (!quiet)
    printReport(layers, *config, llvm::outs());
  if (!reportPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(reportPath, ec);
    if (ec)
      return fail("cannot write " + reportPath + ": " + ec.message());
    os << llvm::formatv("{0:2}", reportJson(layers, *config)) << "\n";
  }
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  size_t instrs = 0;
  for (const isa::Segment &s : program->segments)
    if (s.isNpu())
      instrs += s.npu().instructions.size();
  llvm::errs() << llvm::formatv(
      "compiled {0} layers, {1} instructions, {2} "
      "constant bytes in {3:f2} s\n",
      layers.size(), instrs,
      program->constants.empty() ? 0 : program->constants[0].data.size(), secs);
  return 0;
}

static cli::SubcommandRegistration
    reg("compile", "compile a quantized ONNX model to an .npu binary",
        runCompile);
