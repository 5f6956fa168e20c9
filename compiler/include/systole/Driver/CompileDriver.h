//===- CompileDriver.h - ONNX file -> .npu program, in one call -*- C++ -*-===//
//
// Everything `systole compile` does between its flags and its output file:
// import, the pass pipeline, emission and the compile report. The CLI and the
// Python package (tools/python) both call this, so they cannot drift.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_DRIVER_COMPILEDRIVER_H
#define SYSTOLE_DRIVER_COMPILEDRIVER_H

#include "systole/ISA/Program.h"
#include "systole/Target/NPU/Emit.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace systole::driver {

struct CompileOptions {
  /// A hardware config file or a bundled preset name.
  std::string hw = "default-32x32";
  /// Input shape overrides by input name (--input-shape).
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Reuse DRAM buffers of dead tensors (off: every intermediate survives
  /// the run and can be read back, e.g. by `systole compare`).
  bool reuseDram = true;
  /// Residual adds in their producing convolution's epilogue
  /// (--no-fusion turns it off, for comparison).
  bool fuseResidual = true;
  /// Keep every layer output that fits in the scratchpad for the next
  /// layer, even where the cost model predicts it is slower
  /// (--keep-on-chip: fewer DRAM bytes; exercises the mechanism).
  bool keepOnChipAlways = false;
  /// Every ConvTranspose in float on the host (--host-conv-transpose)
  /// instead of upsampling ones on the NPU (ImportOptions).
  bool hostConvTranspose = false;
  /// Rewrite the model as ONNX Runtime fuses it before import (ImportOptions
  /// ortFusions; --no-ort-fusions computes the ops as written).
  bool ortFusions = true;
  /// Tuner (systole compile --tune): plans priced per distinct layer
  /// beyond the default candidates (0: off), and the cache file.
  int64_t tune = 0;
  std::string tuneCache;
  /// Debugging (--force-plan 'key=value,...'): every layer with a candidate
  /// tile plan of these entries uses it, whatever the cost model predicts.
  std::string forcePlan;
  npu::EmitOptions emit;
  /// Diagnostics go to stderr as they are emitted (the CLI). Either way the
  /// error of a failed compilation carries the error diagnostics' text, so
  /// callers without a terminal (Python) see the compiler's reason.
  bool printDiagnostics = true;
  /// Called at each stage ("importing <model>", ...), for progress lines.
  std::function<void(llvm::StringRef)> progress;
  /// Run the npu dialect's verifiers on the NPU program before it is
  /// translated into the binary (--verify-npu-ir; isa::verifyProgram's
  /// checks of the same instructions always run).
  bool verifyNpuIR = false;
  /// Called with the pass manager before it runs (IR printing).
  std::function<void(mlir::PassManager &)> configurePassManager;
};

struct CompileResult {
  isa::Program program;
  isa::HwConfig config;
  std::vector<npu::LayerReport> layers;
  /// Symbolic dimensions the importer defaulted (one line each).
  std::vector<std::string> notes;
  double seconds = 0;
  /// With CompileOptions::tune: what the tuner did. Cycles are the sums of
  /// the layers' predicted cycles with the default plans and the tuned ones.
  struct TuneSummary {
    int64_t layers = 0, plans = 0, cacheHits = 0;
    uint64_t defaultCycles = 0, tunedCycles = 0;
    double seconds = 0;
  };
  std::optional<TuneSummary> tune;
};

/// Completes what npu::emitProgram wrote into the binary's program: the
/// npu IR scheduled (npu-schedule-pipeline), verified as IR when `verifyIR`,
/// translated into the NPU segments and layer table, `report`'s layer counts
/// filled in, and the program checked by isa::verifyProgram.
llvm::Expected<isa::Program>
finishProgram(npu::EmittedProgram emitted, const isa::HwConfig &hw,
              std::vector<npu::LayerReport> *report, bool verifyIR = false);

/// Compiles the ONNX model at `path`. Errors name the model and the reason
/// (the importer's or the passes' diagnostics).
llvm::Expected<CompileResult> compileOnnxFile(llvm::StringRef path,
                                              const CompileOptions &options);

/// "input=8x3x224x224" -> (input, {8, 3, 224, 224}).
llvm::Error parseInputShape(llvm::StringRef spec, std::string &name,
                            std::vector<int64_t> &shape);

/// The per-layer table `systole compile` prints, then, given the program's
/// placement (isa::Program::placement), the NPU/host shares of ops and MACs
/// and one line per host op.
void printCompileReport(
    const std::vector<npu::LayerReport> &layers, const isa::HwConfig &hw,
    llvm::raw_ostream &os,
    const std::vector<isa::OpPlacement> *placement = nullptr);
/// The --report JSON: hw, predicted cycles, one object per layer and, given
/// the placement, a "placement" object (isa::placementToJson).
llvm::json::Value
compileReportToJson(const std::vector<npu::LayerReport> &ls,
                    const isa::HwConfig &hw,
                    const std::vector<isa::OpPlacement> *placement = nullptr);

} // namespace systole::driver

#endif // SYSTOLE_DRIVER_COMPILEDRIVER_H
