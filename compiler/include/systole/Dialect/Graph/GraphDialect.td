//===- GraphDialect.td - Graph dialect definition -----------*- tablegen -*-===//
//
// The graph dialect holds an imported ML graph at the level of ONNX operators,
// on ranked tensors whose element type is either float or an upstream
// `!quant.uniform` type. The same op (conv2d, matmul, ...) is float before QDQ
// folding and quantized after it, so passes see one op set throughout.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_DIALECT_GRAPH_GRAPHDIALECT_TD
#define SYSTOLE_DIALECT_GRAPH_GRAPHDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Graph_Dialect : Dialect {
  let name = "graph";
  let cppNamespace = "::systole::graph";
  let summary = "Quantized ML graph operators (ONNX level)";
  let description = [{
    Operators of an imported model, with ONNX semantics, on ranked static
    tensors. Quantized tensors use the upstream `quant` dialect's uniform
    types (per-tensor or per-axis). Activations of 4-D ops are either NCHW
    (as imported) or NHWC (after `graph-to-nhwc`), named by the `layout`
    attribute.
  }];
  let dependentDialects = ["::mlir::quant::QuantizationDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
  let useDefaultAttributePrinterParser = 1;
}

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits>;

def Graph_LayoutNCHW : I32EnumAttrCase<"NCHW", 0, "nchw">;
def Graph_LayoutNHWC : I32EnumAttrCase<"NHWC", 1, "nhwc">;
def Graph_Layout : I32EnumAttr<"Layout", "activation layout of a 4-D op",
    [Graph_LayoutNCHW, Graph_LayoutNHWC]> {
  let cppNamespace = "::systole::graph";
  let genSpecializedAttr = 0;
}
def Graph_LayoutAttr : EnumAttr<Graph_Dialect, Graph_Layout, "layout">;

def Graph_PoolMax : I32EnumAttrCase<"Max", 0, "max">;
def Graph_PoolAvg : I32EnumAttrCase<"Avg", 1, "avg">;
def Graph_PoolKind : I32EnumAttr<"PoolKind", "pooling reduction",
    [Graph_PoolMax, Graph_PoolAvg]> {
  let cppNamespace = "::systole::graph";
  let genSpecializedAttr = 0;
}
def Graph_PoolKindAttr : EnumAttr<Graph_Dialect, Graph_PoolKind, "pool_kind">;

#endif // SYSTOLE_DIALECT_GRAPH_GRAPHDIALECT_TD
