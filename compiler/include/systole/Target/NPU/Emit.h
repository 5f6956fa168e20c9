//===- Emit.h - Annotated graph -> .npu program -----------------*- C++ -*-===//
#ifndef SYSTOLE_TARGET_NPU_EMIT_H
#define SYSTOLE_TARGET_NPU_EMIT_H

#include "systole/ISA/Program.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

namespace systole::npu {

/// What the compiler decided for one layer, for the compile report.
struct LayerReport {
  std::string name;
  std::string op;
  std::string mapping; ///< e.g. "conv ws rows=8 n=32 resident"
  uint64_t instructions = 0;
  uint64_t macs = 0;
  uint64_t dramBytes = 0; ///< DMA bytes moved (ISA timing model)
  /// Bytes the layer must move at least: every operand read once, the
  /// result written once (activations, weights, bias, scales).
  uint64_t compulsoryBytes = 0;
  uint64_t predictedCycles = 0;
  uint64_t computeBoundCycles = 0; ///< macs / (rows * cols)
  /// compulsoryBytes / bytes_per_cycle: with computeBoundCycles, the
  /// layer's roofline bound.
  uint64_t memoryBoundCycles = 0;
  /// What each unit is busy for in the layer's instructions (isa timing):
  /// the array (MATMUL; WS MATMULs that stream through it together count
  /// their rows or weight preload, not the fill and drain they overlap),
  /// the vector unit and post-processor (REQUANT, VADD,
  /// VMUL, VLUT, POOL, DWCONV) and the DRAM channel (LOAD/STORE channel
  /// cycles: bursts, not bytes). The layer cannot finish before its busiest
  /// unit: that one limits it, and where the busiest unit's share of
  /// predictedCycles is low the time goes to latency and dependencies.
  uint64_t arrayCycles = 0, vectorCycles = 0, dmaCycles = 0;
  /// "array", "vector" or "dma": the busiest unit ("" for host layers).
  const char *limitingUnit() const;
  /// Host groups (placement "host"): the bytes the host reads from and
  /// writes to the NPU's DRAM, and what moving them costs at the DRAM's
  /// bandwidth and latency (NPU cycles).
  bool onHost = false;
  uint64_t hostBytesIn = 0, hostBytesOut = 0, transferCycles = 0;
};

struct Item;
/// Adds the busy cycles of each unit over a layer's items to `report`
/// (LayerReport::arrayCycles, vectorCycles, dmaCycles).
void addUnitCycles(const std::vector<Item> &items, const isa::HwConfig &hw,
                   LayerReport &report);

/// Where compiled host code runs: the CPU only, or also the GPU (PTX beside
/// the CPU code; the runtime picks the GPU when one is present).
struct EmitOptions {
  bool hostGpu = false;
  /// Test mode (--host-target gpu-emulation): the GPU form of each host
  /// group compiled for the CPU (docs/host.md); no PTX segment.
  bool hostGpuEmulation = false;
  std::string gpuArch = "sm_75";
  /// Quantize a graph input and transpose it in one builtin pass (off with
  /// --no-dram-reuse: the quantized tensor before the transpose is then
  /// written, for `systole compare`).
  bool fuseInputTranspose = true;
};

/// What emitProgram writes: the program but its NPU segments' instruction
/// streams and its layer table, and the npu.program whose segments hold the
/// layers the code generators wrote (npu.layer ops, unscheduled).
/// npu::schedulePipeline then npu::exportProgram complete the program.
struct EmittedProgram {
  isa::Program program;
  mlir::OwningOpRef<mlir::ModuleOp> npu;
};

/// Lowers a partitioned, tiled, DRAM-allocated function into a program.
llvm::Expected<EmittedProgram> emitProgram(mlir::func::FuncOp func,
                                           const isa::HwConfig &hw,
                                           std::vector<LayerReport> *report,
                                           const EmitOptions &options = {});

/// Fills the instruction counts and DMA bytes of `report`'s NPU layers (in
/// order) from the scheduled npu.program in `npu`: a layer's own range plus
/// the loads the scheduler hoisted out of it, less the next layer's loads
/// hoisted into it.
void completeLayerReports(mlir::ModuleOp npu, const isa::HwConfig &hw,
                          std::vector<LayerReport> &report);

struct PipelineOptions {
  std::string hw = "default-32x32";
  /// Reuse DRAM buffers of dead tensors (off: every intermediate survives).
  bool reuseDram = true;
  /// Apply residual adds in their producing convolution's epilogue
  /// (npu-fuse-residual); off: every add is a layer of its own.
  bool fuseResidual = true;
  /// npu-plan-cascades keeps every output that fits on chip, not only
  /// where its cost model predicts a gain (--keep-on-chip).
  bool keepOnChipAlways = false;
  /// npu-plan-tiles' tuner budget (plans per distinct layer; 0: off) and
  /// its cache file (empty: none).
  int64_t tune = 0;
  std::string tuneCache;
  /// npu-plan-tiles' force-plan (debugging; empty: the cost model's choice).
  std::string forcePlan;
};

/// The tuner's default cache file: $XDG_CACHE_HOME/systole/tune.json, else
/// $HOME/.cache/systole/tune.json.
std::string defaultTuneCachePath();

/// Graph cleanup, layout, partitioning, tiling and DRAM allocation: every
/// pass between import and emission, in order.
void populateSystolePipeline(mlir::OpPassManager &pm,
                             const PipelineOptions &options);
/// Registers the pipeline as `--systole-npu-pipeline` for systole-opt.
void registerSystolePipeline();

} // namespace systole::npu

#endif // SYSTOLE_TARGET_NPU_EMIT_H
