"""Writes a QuantPlan as a QDQ model (float ops between QuantizeLinear/DequantizeLinear).

This is the layout ORT's quantize_static(QuantFormat.QDQ) produces: each
quantized activation gets one Q -> DQ pair after its producer that all its
consumers share; weights are int8 initializers behind DequantizeLinear(axis)
(per tensor for MatMul) and biases int32 initializers behind
DequantizeLinear(axis=0). With session.qdqisint8allowed=1, ORT on x86 fuses
the DQ -> op -> Q groups into its integer kernels; the compiler's QDQ folding
sees the same groups. Ops without an integer kernel stay DQ -> float op -> Q.
"""

from .onnx_build import GraphWriter, dequantized, model_opsets, quantized
from .quant_plan import activation_inputs


def _quantize_dequantize(w, tensor, float_name, dq_name):
    """Q/DQ pair for an activation: float_name -> quantized(tensor) -> dq_name."""
    scale, zp = w.act_params(tensor)
    w.node("QuantizeLinear", [float_name, scale, zp], [quantized(tensor)], f"{tensor}_QuantizeLinear")
    w.node("DequantizeLinear", [quantized(tensor), scale, zp], [dq_name], f"{tensor}_DequantizeLinear")


def emit_qdq(plan, source_model):
    w = GraphWriter(plan)
    graph_outputs = {o.name for o in plan.graph.output}
    for inp in plan.graph.input:
        if inp.name in plan.params:
            _quantize_dequantize(w, inp.name, inp.name, dequantized(inp.name))

    for node in plan.graph.node:
        inputs = list(node.input)
        for i, name in enumerate(inputs):
            if name in activation_inputs(node, plan):
                inputs[i] = dequantized(name)
        wq = plan.weights.get(node.name)
        if wq is not None:
            q, scale, zp = w.weight_params(wq)
            axis = {} if wq.axis is None else {"axis": wq.axis}
            w.node("DequantizeLinear", [q, scale, zp], [dequantized(wq.weight)], f"{wq.weight}_DequantizeLinear",
                   **axis)
            inputs[1] = dequantized(wq.weight)
            if wq.bias:
                q, scale, zp = w.bias_params(wq)
                w.node("DequantizeLinear", [q, scale, zp], [dequantized(wq.bias)], f"{wq.bias}_DequantizeLinear",
                       axis=0)
                inputs[2] = dequantized(wq.bias)
        outputs, pairs = [], []
        for out in node.output:
            if out not in plan.params:  # shapes, indices: not quantized
                outputs.append(out)
            elif out in graph_outputs:  # the final DequantizeLinear keeps the graph output's name
                outputs.append(f"{out}_float")
                pairs.append((out, f"{out}_float", out))
            else:
                outputs.append(out)
                pairs.append((out, out, dequantized(out)))
        w.nodes.append(_copy_with(node, inputs, outputs))
        for tensor, float_out, dq_out in pairs:
            _quantize_dequantize(w, tensor, float_out, dq_out)
    return w.model(source_model, f"{plan.graph.name}_int8_qdq", model_opsets(source_model))


def _copy_with(node, inputs, outputs):
    new = type(node)()
    new.CopyFrom(node)
    del new.input[:]
    new.input.extend(inputs)
    del new.output[:]
    new.output.extend(outputs)
    return new
