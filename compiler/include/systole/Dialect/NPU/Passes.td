//===- Passes.td - npu dialect passes -----------------------*- tablegen -*-===//
#ifndef SYSTOLE_DIALECT_NPU_PASSES_TD
#define SYSTOLE_DIALECT_NPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def SchedulePipeline : Pass<"npu-schedule-pipeline", "::systole::npu::ProgramOp"> {
  let summary = "Order each layer's items into the instruction stream, with "
                "dependency tokens (double buffering)";
  let description = [{
    Turns every segment's `npu.layer` ops into its instruction stream: item
    i+1's loads are fetched while item i computes (two buffer slots per
    operand, when queues.token_depth allows), tokens guard the slots, load
    stages let an item's first computes start before its last loads, a
    fused residual add's VADD runs among the next item's MATMULs (deferred
    tails), a compute FENCE separates a layer from the one before, and
    constant loads of a layer's first item move into the previous layer
    where they touch no scratchpad it uses. Each layer's range starts at an
    `npu.layer_start`; the segment ends with npu.end. The protocol and its
    token rules: lib/Dialect/NPU/Transforms/Pipeline.cpp.
  }];
}

#endif // SYSTOLE_DIALECT_NPU_PASSES_TD
