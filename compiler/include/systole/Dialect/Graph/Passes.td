//===- Passes.td - Graph dialect passes ---------------------*- tablegen -*-===//
#ifndef SYSTOLE_DIALECT_GRAPH_PASSES_TD
#define SYSTOLE_DIALECT_GRAPH_PASSES_TD

include "mlir/Pass/PassBase.td"

def FoldQDQ : Pass<"graph-fold-qdq", "mlir::func::FuncOp"> {
  let summary = "Fold QuantizeLinear/DequantizeLinear pairs into quantized ops";
  let description = [{
    Rewrites `Q(op(DQ(a), DQ(b), ...))` into `op(a, b, ...)` on quantized
    tensors, the form ONNX Runtime's QDQ transformer fuses into its integer
    kernels (QLinearConv, QGemm, QLinearAdd, ...). A Relu/Clip between the op
    and the Q becomes the op's quantized `act_min`/`act_max`. Data-movement
    ops (reshape, transpose, max pool, pad, concat) whose Q and DQ parameters
    differ keep ORT's float semantics as an explicit `graph.requantize`.
    A remaining `Q(DQ(x))` becomes a requantize, or nothing when the
    parameters agree.
  }];
  let dependentDialects = ["::systole::graph::GraphDialect"];
}

#endif // SYSTOLE_DIALECT_GRAPH_PASSES_TD
