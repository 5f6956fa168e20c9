//===- Passes.td - NPU lowering passes ----------------------*- tablegen -*-===//
//
// Annotations written by these passes on graph-dialect ops (read by the
// next pass; lit tests check them):
//   npu.placement = "npu" | "host"           (npu-partition)
//   npu.residual_of = 0 | 1                   (npu-fuse-residual; on a
//                                              graph.add)
//   npu.in_place                              (npu-concat-in-place; on a
//                                              graph.concat)
//   npu.tile = {kind, dataflow, rows, n, ...}  (npu-plan-tiles)
//   npu.dram = <byte offset>                  (npu-allocate-dram; on ops and
//                                              on function arguments)
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_TARGET_NPU_PASSES_TD
#define SYSTOLE_TARGET_NPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def Partition : Pass<"npu-partition", "mlir::func::FuncOp"> {
  let summary = "Assign each op to the NPU or the host";
  let description = [{
    Quantized ops the NPU implements (conv2d with per-tensor activations and
    uniform weight zero points, matmul with a constant right-hand side,
    add, max pooling, global average pooling, reshape) go to the NPU. The
    quantize/dequantize at the model boundary (and transposes next to them)
    run on the host as builtin kernels. Anything else is rejected with an
    error naming the op, until the LLVM host fallback lands.
  }];
  let dependentDialects = ["::systole::graph::GraphDialect",
                           "::systole::npu::NPUDialect"];
}

def FoldConstantSubgraphs
    : Pass<"npu-fold-constant-subgraphs", "mlir::func::FuncOp"> {
  let summary = "Compute, at compile time, the ops that depend only on "
                "constants";
  let description = [{
    Subgraphs that read no model input (Swin's shifted-window attention
    mask, position ids, masks built from shapes) are evaluated once: their
    ops are compiled as one host group, exactly as the host fallback would
    run them, and executed on their constant operands; quantizes and
    dequantizes of constants use the runtime's QuantizeLinear and
    DequantizeLinear arithmetic; transposes and reshapes of constants fold
    as in graph-fold-constants. Rounds repeat until nothing changes. Values
    over 16 MiB, the model's outputs, and ops the host code cannot compile
    stay as they are.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::quant::QuantizationDialect"];
}

def FoldTables : Pass<"npu-fold-tables", "mlir::func::FuncOp"> {
  let summary = "Fold dequantize -> elementwise f -> quantize after an NPU "
                "conv/matmul into its REQUANT table";
  let description = [{
    After npu-partition: when an NPU convolution's or matmul's int8 result
    is read only by DequantizeLinear -> f -> QuantizeLinear with f
    elementwise in that one value (HardSwish, Sigmoid, SiLU, GELU, Tanh,
    ...), the chain becomes a graph.table placed on the NPU, which the
    producer's REQUANT applies. The table is computed by compiling the
    chain's float ops as the host fallback would and running that code on
    the 256 input codes, so it equals the host fallback's result.

    With `standalone` (the pipeline's last run, after the concats are
    placed), the chains no producer's REQUANT can apply, those after any
    other NPU-produced 8-bit tensor, become graph.tables of their own (VLUT
    layers), including per-channel ones ([C, 256]: a chain whose ops read
    constants along the channel dimension, as a pre-activation
    BatchNormalization + ReLU); a chain after such a table composes with it.
  }];
  let options = [
    Option<"standalone", "standalone", "bool", /*default=*/"false",
           "also make tables of chains no REQUANT applies (VLUT layers)">
  ];
  let dependentDialects = ["::systole::graph::GraphDialect",
                           "::systole::npu::NPUDialect"];
}

def FuseGate : Pass<"npu-fuse-gate", "mlir::func::FuncOp"> {
  let summary = "Fold x * f(x) (SiLU, HardSwish as exported) into one table "
                "of x";
  let description = [{
    After npu-partition, before npu-fold-tables: an NPU graph.mul of two
    int8 tensors of one shape whose operands are an NPU convolution's or
    matmul's result x and f(x) = Q(f_k(DQ(... Q(f_1(DQ(x)))))), each f_i
    elementwise (SiLU's sigmoid, HardSwish's HardSigmoid or Clip(x + 3)),
    where x has no other reader, becomes one graph.table of x: entry c is
    QLinearMul(c, F[c]) with F the steps' tables (each the step's host code
    run on the 256 codes) and the ISA's VMUL arithmetic. The producer's
    REQUANT then applies it. An NCHW mul whose operands are transposes of
    x (the first step transposing the dequantized x the same way) is
    handled in x's layout; a transpose back cancels.
  }];
  let dependentDialects = ["::systole::graph::GraphDialect",
                           "::systole::npu::NPUDialect"];
}

def ConcatCopy : Pass<"npu-concat-copy", "mlir::func::FuncOp"> {
  let summary = "Channel concats not written in place as NPU copies";
  let description = [{
    After npu-concat-in-place: a float graph.concat along the channels of
    NHWC tensors whose inputs are all DequantizeLinear(x_i) of 8-bit
    per-tensor activations and whose only reader is a QuantizeLinear
    becomes a graph.concat of the x_i with the quantize's type, on the NPU:
    each input's rows are copied into its channel slice through the table
    Q(DQ_i(c)) (VLUT). DenseNet's concats (every earlier feature map again)
    and ShuffleNet's (split halves) are such.
  }];
  let dependentDialects = ["::systole::graph::GraphDialect",
                           "::systole::npu::NPUDialect"];
}

def ConcatInPlace : Pass<"npu-concat-in-place", "mlir::func::FuncOp"> {
  let summary = "Channel concat of NPU convolutions written by the "
                "convolutions into its slices";
  let description = [{
    After npu-fold-tables: a float graph.concat along the channels of NHWC
    tensors whose every input is DequantizeLinear(x_i), x_i an NPU
    convolution's result nothing else reads, and whose only reader is a
    QuantizeLinear, becomes a graph.concat of graph.tables of the x_i,
    marked `npu.in_place`: table i is Q(DQ_i(c)) over x_i's 256 codes (the
    runtime's dequantize/quantize arithmetic, as the host computes it), the
    producer's REQUANT applies it and stores into channel slice i of the
    concat's buffer. The concat has no code.
  }];
  let dependentDialects = ["::systole::graph::GraphDialect",
                           "::systole::npu::NPUDialect"];
}

def FuseResidual : Pass<"npu-fuse-residual", "mlir::func::FuncOp"> {
  let summary = "Apply residual adds in the epilogue of the convolution that "
                "produces one operand";
  let description = [{
    After npu-partition: an NPU graph.add of two int8 tensors of one shape
    whose operand is the only use of an NPU convolution's result, the other
    operand being computed before that convolution, is marked with
    `npu.residual_of` = the convolution's operand index. The convolution's
    epilogue then loads the other operand's tile, adds it with VADD
    (QLinearAdd's exact arithmetic, the add's clamp) after REQUANT and
    stores the sum: the convolution's result never goes through DRAM and
    the add has no layer of its own. When both operands qualify, the
    later convolution takes it (the other operand must exist when it runs).
  }];
  let dependentDialects = ["::systole::graph::GraphDialect",
                           "::systole::npu::NPUDialect"];
}

def PlanTiles : Pass<"npu-plan-tiles", "mlir::func::FuncOp"> {
  let summary = "Choose per-layer tile sizes and dataflow with a cost model";
  let description = [{
    For every NPU op, enumerates tilings that fit the scratchpad and
    accumulator of the hardware config (double-buffered), predicts their
    cycles with the ISA's timing model (compute and DMA overlapped) and keeps
    the fastest. A config whose SRAM cannot hold the smallest tile is an
    error that says how many bytes are needed.
  }];
  let options = [
    Option<"hwConfig", "hw", "std::string", /*default=*/"\"\"",
           "hardware config JSON file or bundled preset name">,
    Option<"tune", "tune", "int64_t", /*default=*/"0",
           "tuner budget: plans priced per distinct layer beyond the default "
           "candidates (0: no tuning)">,
    Option<"tuneCache", "tune-cache", "std::string", /*default=*/"\"\"",
           "JSON file of tuned plans per layer and config (empty: none)">,
    Option<"forcePlan", "force-plan", "std::string", /*default=*/"\"\"",
           "debugging: 'key=value,...'; every layer with a candidate plan "
           "(default or tuning) of these entries that lowers uses it, "
           "whatever it costs (reproduces a plan the cost model no longer "
           "picks)">
  ];
  let dependentDialects = ["::systole::graph::GraphDialect",
                           "::systole::npu::NPUDialect"];
}

def PlanCascades : Pass<"npu-plan-cascades", "mlir::func::FuncOp"> {
  let summary = "Keep a layer's output in the scratchpad for the next layer "
                "when the cost model says it pays";
  let description = [{
    After npu-plan-tiles: for each convolution whose int8 result (through a
    fused activation table) is read only by the convolution emitted right
    after it in the same NPU segment, prices the pair kept on chip: the
    consumer with a plan that holds its whole padded input in one tile,
    the producer with plans whose slots leave that tile free and whose
    REQUANT writes straight into it (no store, no load). When the two
    predicted layer times beat the planned ones, marks the producer
    `npu.keep_output`, the consumer `npu.input_on_chip` and replaces both
    plans. Pairs are decided in order, so chains form (a consumer that
    reads on chip may keep its own output for the next layer).
  }];
  let options = [
    Option<"hwConfig", "hw", "std::string", /*default=*/"\"\"",
           "hardware config JSON file or bundled preset name">,
    Option<"search", "search", "bool", /*default=*/"false",
           "price every candidate plan of both layers (--tune), not only "
           "their planned ones when those still fit">,
    Option<"always", "always", "bool", /*default=*/"false",
           "keep every pair that fits, whatever the predicted cycles">
  ];
  let dependentDialects = ["::systole::graph::GraphDialect",
                           "::systole::npu::NPUDialect"];
}

def AllocateDram : Pass<"npu-allocate-dram", "mlir::func::FuncOp"> {
  let summary = "Assign DRAM offsets to activations with liveness-based reuse";
  let description = [{
    Walks the ops in order and gives every NPU-visible tensor a DRAM byte
    offset in the activation arena; a buffer returns to the free list after
    its last use, so non-overlapping lifetimes share memory. Reshapes alias
    their input. Graph inputs and outputs get their own regions.
  }];
  let options = [
    Option<"reuse", "reuse", "bool", /*default=*/"true",
           "reuse freed buffers (false: every tensor keeps its own, so all "
           "intermediates survive the run for debugging)">
  ];
  let dependentDialects = ["::systole::graph::GraphDialect",
                           "::systole::npu::NPUDialect"];
}

#endif // SYSTOLE_TARGET_NPU_PASSES_TD
