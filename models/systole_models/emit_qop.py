"""Writes a QuantPlan as a QOperator model (integer ops on int8 tensors).

The op choices are those of ORT's quantize_static(QuantFormat.QOperator):
  Conv              -> QLinearConv (ai.onnx)
  Gemm              -> QGemm (com.microsoft): keeps Gemm's transB and int32 bias
                       C, which QLinearMatMul (no bias) would need an extra Add for
  Add               -> QLinearAdd (com.microsoft)
  GlobalAveragePool -> QLinearGlobalAveragePool (com.microsoft)
  MaxPool, Flatten, Reshape run unchanged on int8 (shared parameters).
Graph inputs go through QuantizeLinear and graph outputs through
DequantizeLinear, so the model's interface stays float.
"""

from onnx import helper

from .onnx_build import MS_DOMAIN, GraphWriter, quantized
from .quant_plan import SHARED_PARAMS_OPS


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def emit_qop(plan, source_model):
    w = GraphWriter(plan)
    for inp in plan.graph.input:
        if inp.name in plan.params:
            scale, zp = w.act_params(inp.name)
            w.node("QuantizeLinear", [inp.name, scale, zp], [quantized(inp.name)], f"{inp.name}_QuantizeLinear")

    for node in plan.graph.node:
        out = node.output[0]
        y = list(w.act_params(out))

        def x(i, node=node):  # QLinear* operand triple: int8 tensor, scale, zero point
            return [quantized(node.input[i]), *w.act_params(node.input[i])]

        op = node.op_type
        if op == "Conv":
            wq = plan.weights[node.name]
            bias = [w.bias_data(wq)] if wq.bias else []
            w.node("QLinearConv", x(0) + list(w.weight_params(wq)) + y + bias, [quantized(out)], node.name,
                   **_attrs(node))
        elif op == "Gemm":
            wq = plan.weights[node.name]
            c = [w.bias_data(wq)] if wq.bias else [""]
            a = _attrs(node)
            w.node("QGemm", x(0) + list(w.weight_params(wq)) + c + y, [quantized(out)], node.name,
                   domain=MS_DOMAIN, transA=a.get("transA", 0), transB=a.get("transB", 0),
                   alpha=a.get("alpha", 1.0))
        elif op == "Add":
            w.node("QLinearAdd", x(0) + x(1) + y, [quantized(out)], node.name, domain=MS_DOMAIN)
        elif op == "GlobalAveragePool":
            w.node("QLinearGlobalAveragePool", x(0) + y, [quantized(out)], node.name, domain=MS_DOMAIN,
                   channels_last=0)
        elif op in SHARED_PARAMS_OPS:
            w.node(op, [quantized(node.input[0]), *node.input[1:]], [quantized(out)], node.name, **_attrs(node))
        else:
            raise NotImplementedError(op)  # quant_plan rejects these before we get here

    for out in plan.graph.output:
        scale, zp = w.act_params(out.name)
        w.node("DequantizeLinear", [quantized(out.name), scale, zp], [out.name], f"{out.name}_DequantizeLinear")
    return w.model(source_model, f"{plan.graph.name}_int8_qop", [("", 13), (MS_DOMAIN, 1)])
