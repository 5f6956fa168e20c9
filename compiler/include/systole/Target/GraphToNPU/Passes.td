//===- Passes.td - Graph dialect -> npu dialect -------------*- tablegen -*-===//
#ifndef SYSTOLE_TARGET_GRAPHTONPU_PASSES_TD
#define SYSTOLE_TARGET_GRAPHTONPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertGraphToNPU : Pass<"convert-graph-to-npu", "mlir::ModuleOp"> {
  let summary = "Generate the NPU program of a partitioned, tiled, "
                "DRAM-allocated graph as npu ops";
  let description = [{
    After the NPU pipeline (`--systole-npu-pipeline`, which leaves
    npu.placement, npu.tile and npu.dram on the graph ops of `@main`): runs
    the code generators on `@main` for the hardware config `hw` and appends
    the resulting `npu.program` (one `npu.segment` per NPU segment, one op
    per instruction) to the module. The instructions are the ones
    `systole compile` writes into the binary, so lit tests can check code
    generation instruction by instruction. Host segments, tensors and
    constants of the binary are not part of the IR yet.
  }];
  let options = [
    Option<"hw", "hw", "std::string", /*default=*/"\"default-32x32\"",
           "hardware config file or preset">
  ];
  let dependentDialects = ["::systole::npu::NPUDialect"];
}

#endif // SYSTOLE_TARGET_GRAPHTONPU_PASSES_TD
