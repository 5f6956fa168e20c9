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

def ToNHWC : Pass<"graph-to-nhwc", "mlir::func::FuncOp"> {
  let summary = "Convert 4-D activations to NHWC, the NPU's layout";
  let description = [{
    The NPU streams a pixel's channels contiguously (implicit im2col reads
    `kw * Cin` consecutive bytes per kernel row), so convolutions, pools and
    the tensors between them are NHWC; filters become HWIO. Each converted
    op is wrapped in transposes, which are then pushed through
    layout-agnostic ops (elementwise, requantize, concat, pad) and cancelled
    in pairs, so only the graph's boundaries keep a transpose. A transpose
    that only moves unit dimensions becomes a reshape.
  }];
  let dependentDialects = ["::systole::graph::GraphDialect"];
}

def FoldConstants : Pass<"graph-fold-constants", "mlir::func::FuncOp"> {
  let summary = "Evaluate transposes and reshapes of constant tensors";
  let description = [{
    Weights reach the NPU lowering as plain constants in the layout the
    hardware reads (HWIO filters, [K, N] matrices): transposes and reshapes
    of `arith.constant` (also through `quant.scast`) are computed at compile
    time, with per-axis quantization following its axis.
  }];
  let dependentDialects = ["::systole::graph::GraphDialect"];
}

def FoldPad : Pass<"graph-fold-pad", "mlir::func::FuncOp"> {
  let summary = "Fold a Pad of the zero point into the quantized convolution "
                "after it";
  let description = [{
    A constant Pad of a quantized per-tensor tensor whose value is its zero
    point (a Pad of 0.0, as TensorFlow converters write "SAME" padding of
    strided convolutions) pads exactly as the convolution's own padding
    does: its spatial amounts move into the convolution's pads.
  }];
  let dependentDialects = ["::systole::graph::GraphDialect",
                           "::mlir::quant::QuantizationDialect"];
}

def DropPaddingTaps : Pass<"graph-drop-padding-taps", "mlir::func::FuncOp"> {
  let summary = "Slice quantized convolution filters to the taps that reach "
                "the input";
  let description = [{
    A tap of a dilated kernel that reads only padding for every output
    pixel adds `(zx - zx) * w = 0` to a quantized convolution's integer sum.
    Such taps are cut from the constant filter (leading and trailing rows
    and columns of taps) and the padding shrinks by the same number of
    dilation steps, so every output keeps its window and its value. ASPP
    branches on small maps become 1x1 convolutions the array runs.
  }];
  let dependentDialects = ["::systole::graph::GraphDialect",
                           "::mlir::quant::QuantizationDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // SYSTOLE_DIALECT_GRAPH_PASSES_TD
