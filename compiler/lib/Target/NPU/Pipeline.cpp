//===- Pipeline.cpp - The Systole compilation pipeline --------------------===//
#include "systole/Dialect/Graph/Passes.h"
#include "systole/Target/NPU/Emit.h"
#include "systole/Target/NPU/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace systole::npu {

void populateSystolePipeline(mlir::OpPassManager &pm,
                             const PipelineOptions &options) {
  mlir::OpPassManager &fn = pm.nest<mlir::func::FuncOp>();
  fn.addPass(graph::createFoldQDQ());
  fn.addPass(mlir::createCanonicalizerPass());
  fn.addPass(graph::createFoldPad());
  fn.addPass(graph::createToNHWC());
  fn.addPass(graph::createFoldConstants());
  fn.addPass(graph::createDropPaddingTaps());
  fn.addPass(mlir::createCanonicalizerPass());
  fn.addPass(mlir::createCSEPass());
  // Before any placement: what depends only on constants is a constant
  // (after CSE, so repeated subgraphs are computed once).
  fn.addPass(createFoldConstantSubgraphs());
  fn.addPass(createPartition());
  // Tables first (a gate's x may itself be a table of a conv, e.g. a
  // BatchNorm's affine chain), then gates, then the chains after them.
  fn.addPass(createFoldTables());
  fn.addPass(createFuseGate());
  fn.addPass(createFoldTables());
  fn.addPass(createConcatInPlace());
  fn.addPass(createConcatCopy());
  // The chains left: VLUT layers of their own (after adds, pools, concat
  // copies; per channel).
  FoldTablesOptions standalone;
  standalone.standalone = true;
  fn.addPass(createFoldTables(standalone));
  if (options.fuseResidual)
    fn.addPass(createFuseResidual());
  PlanTilesOptions tiles;
  tiles.hwConfig = options.hw;
  tiles.tune = options.tune;
  tiles.tuneCache = options.tuneCache;
  tiles.forcePlan = options.forcePlan;
  fn.addPass(createPlanTiles(tiles));
  // Part of fusion: --no-fusion (and --no-dram-reuse) keep every
  // intermediate in DRAM.
  if (options.fuseResidual) {
    PlanCascadesOptions cascades;
    cascades.hwConfig = options.hw;
    cascades.search = options.tune > 0;
    cascades.always = options.keepOnChipAlways;
    fn.addPass(createPlanCascades(cascades));
  }
  AllocateDramOptions dram;
  dram.reuse = options.reuseDram;
  fn.addPass(createAllocateDram(dram));
}

namespace {
struct PipelineCLOptions : public mlir::PassPipelineOptions<PipelineCLOptions> {
  Option<std::string> hw{*this, "hw",
                         llvm::cl::desc("hardware config file or preset"),
                         llvm::cl::init("default-32x32")};
};
} // namespace

void registerSystolePipeline() {
  mlir::PassPipelineRegistration<PipelineCLOptions>(
      "systole-npu-pipeline",
      "Graph cleanup, NHWC layout, partitioning, tiling and DRAM allocation",
      [](mlir::OpPassManager &pm, const PipelineCLOptions &o) {
        PipelineOptions options;
        options.hw = o.hw;
        populateSystolePipeline(pm, options);
      });
}

} // namespace systole::npu
