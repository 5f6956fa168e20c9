"""Writes a QuantPlan as a QOperator model (integer ops on int8 tensors).

The op choices are those of ORT's quantize_static(QuantFormat.QOperator):
  Conv              -> QLinearConv (ai.onnx)
  Gemm              -> QGemm (com.microsoft): keeps Gemm's transB and int32 bias
                       C, which QLinearMatMul (no bias) would need an extra Add for
  MatMul            -> QLinearMatMul (ai.onnx), constant per-tensor int8 B
  Add, Mul          -> QLinearAdd, QLinearMul (com.microsoft), both operands activations
  GlobalAveragePool -> QLinearGlobalAveragePool (com.microsoft)
  AveragePool       -> QLinearAveragePool (com.microsoft)
  MaxPool, Flatten, Reshape run unchanged on int8 (shared parameters).
Any other op runs in float: DequantizeLinear on each quantized input (one per
tensor, shared by its float consumers), the op, QuantizeLinear on each float
output, as quantize_static does for ops it does not quantize. Graph inputs go
through QuantizeLinear and graph outputs through DequantizeLinear, so the
model's interface stays float.
"""

from onnx import helper

from .onnx_build import MS_DOMAIN, GraphWriter, dequantized, model_opsets, quantized
from .quant_plan import SHARED_PARAMS_OPS, activation_inputs

POOL_ATTRS = ("auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides")


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _integer_form(node, plan):
    """True if `node` has a QOperator counterpart with all its operands quantized."""
    acts = activation_inputs(node, plan)
    out_quantized = len(node.output) == 1 and node.output[0] in plan.params
    op = node.op_type
    if not out_quantized or not acts or acts[0] != node.input[0]:
        return False
    if op in ("Conv", "Gemm", "MatMul"):
        return node.name in plan.weights
    if op in ("Add", "Mul"):
        return len(node.input) == 2 and len(acts) == 2
    if op == "AveragePool":
        return len(node.input) == 1 and not _attrs(node).get("dilations")
    return op == "GlobalAveragePool" or op in SHARED_PARAMS_OPS


def emit_qop(plan, source_model):
    w = GraphWriter(plan)
    for inp in plan.graph.input:
        if inp.name in plan.params:
            scale, zp = w.act_params(inp.name)
            w.node("QuantizeLinear", [inp.name, scale, zp], [quantized(inp.name)], f"{inp.name}_QuantizeLinear")

    dequantized_done = set()

    def float_value(name):  # the float value of a quantized activation, for a float op
        if name not in dequantized_done:
            scale, zp = w.act_params(name)
            w.node("DequantizeLinear", [quantized(name), scale, zp], [dequantized(name)],
                   f"{name}_DequantizeLinear")
            dequantized_done.add(name)
        return dequantized(name)

    for node in plan.graph.node:
        if not _integer_form(node, plan):
            acts = activation_inputs(node, plan)
            inputs = [float_value(name) if name in acts else name for name in node.input]
            outputs = [f"{o}_float" if o in plan.params else o for o in node.output]
            new = helper.make_node(node.op_type, inputs, outputs, name=node.name, domain=node.domain)
            new.attribute.extend(node.attribute)
            w.nodes.append(new)
            for o in node.output:
                if o in plan.params:
                    scale, zp = w.act_params(o)
                    w.node("QuantizeLinear", [f"{o}_float", scale, zp], [quantized(o)], f"{o}_QuantizeLinear")
            continue

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
        elif op == "MatMul":
            wq = plan.weights[node.name]
            w.node("QLinearMatMul", x(0) + list(w.weight_params(wq)) + y, [quantized(out)], node.name)
        elif op == "Add":
            w.node("QLinearAdd", x(0) + x(1) + y, [quantized(out)], node.name, domain=MS_DOMAIN)
        elif op == "Mul":
            w.node("QLinearMul", x(0) + x(1) + y, [quantized(out)], node.name, domain=MS_DOMAIN)
        elif op == "GlobalAveragePool":
            w.node("QLinearGlobalAveragePool", x(0) + y, [quantized(out)], node.name, domain=MS_DOMAIN,
                   channels_last=0)
        elif op == "AveragePool":
            attrs = {k: v for k, v in _attrs(node).items() if k in POOL_ATTRS}
            w.node("QLinearAveragePool", x(0) + y, [quantized(out)], node.name, domain=MS_DOMAIN,
                   channels_last=0, **attrs)
        elif op in SHARED_PARAMS_OPS:
            w.node(op, [quantized(node.input[0]), *node.input[1:]], [quantized(out)], node.name, **_attrs(node))
        else:
            raise NotImplementedError(op)  # _integer_form admits no other op

    for out in plan.graph.output:
        scale, zp = w.act_params(out.name)
        w.node("DequantizeLinear", [quantized(out.name), scale, zp], [out.name], f"{out.name}_DequantizeLinear")
    return w.model(source_model, f"{plan.graph.name}_int8_qop", model_opsets(source_model, [(MS_DOMAIN, 1)]))
