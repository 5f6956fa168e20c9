"""Decides how a float graph is quantized; the QDQ and QOperator emitters share it.

The plan applies the conventions of onnxruntime.quantization.quantize_static,
so that ORT's own fusions (QDQ -> QLinearConv/QGemm/QLinearAdd) fire on the
QDQ form and both forms compute the same integer graph:
  * Relu/Clip after Conv/Gemm/Add are removed; the producer's output takes the
    activation's name and its post-activation calibrated range. The int8 clamp
    of that range (zero point -128 for a ReLU) then does the activation's job.
  * Conv, Gemm, Add and GlobalAveragePool outputs get their own parameters.
  * MaxPool, Flatten and Reshape only move or select values: their output
    shares the input's parameters (same scale/zero-point initializers), so
    they run on int8 unchanged.
  * Weights are per-channel symmetric int8 (Conv: axis 0; Gemm: the N axis of
    B), biases int32 with scale x_scale * w_scale[c].
  * MatMul with a constant 2-D right operand: int8 weights, per tensor
    (ORT's per_channel=False), no bias.
Every other op with float activations (Sigmoid, HardSwish, Mul, Concat,
Softmax, LayerNormalization, ...) is kept as a float op between quantized
tensors: its float inputs are dequantized and each float output gets its own
parameters, as quantize_static does for an op it leaves in float (QOperator:
DequantizeLinear -> op -> QuantizeLinear). Non-float tensors (shapes,
indices) are not quantized. Activations are int8 or, with act_type="uint8",
uint8 (ORT's QUInt8 activations with QInt8 weights).
"""

from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import numpy_helper

from .quant_params import ActQuant, activation_quant, bias_quant, weight_quant_per_channel, weight_quant_per_tensor

OWN_PARAMS_OPS = {"Conv", "Gemm", "Add", "GlobalAveragePool"}
SHARED_PARAMS_OPS = {"MaxPool", "Flatten", "Reshape"}
ABSORBED_ACTIVATIONS = {"Relu", "Clip"}
ACTIVATION_HOSTS = {"Conv", "Gemm", "Add"}
SOFTMAX_ZERO_POINT = {"int8": np.int8(-128), "uint8": np.uint8(0)}


@dataclass
class WeightQuant:
    """Quantized weight (input 1) and optional bias (input 2) of a Conv or Gemm."""
    weight: str
    q_weight: np.ndarray
    weight_scale: np.ndarray
    axis: int | None  # None: per-tensor (scalar scale)
    bias: str | None = None
    q_bias: np.ndarray | None = None
    bias_scale: np.ndarray | None = None


@dataclass
class QuantPlan:
    graph: onnx.GraphProto            # float graph with Constant nodes and activations folded away
    params: dict = field(default_factory=dict)       # tensor -> ActQuant
    params_owner: dict = field(default_factory=dict)  # tensor -> tensor whose scale/zp initializers it uses
    weights: dict = field(default_factory=dict)      # node name -> WeightQuant
    act_type: str = "int8"

    @property
    def initializers(self):
        return {t.name: t for t in self.graph.initializer}


def _constants_to_initializers(graph):
    """Torch emits some constants (Clip bounds, Reshape shapes) as Constant nodes."""
    for node in [n for n in graph.node if n.op_type == "Constant"]:
        value = next(a for a in node.attribute if a.name == "value")
        tensor = onnx.TensorProto()
        tensor.CopyFrom(value.t)
        tensor.name = node.output[0]
        graph.initializer.append(tensor)
        graph.node.remove(node)


def _identities_to_initializers(graph):
    """Torch deduplicates equal constants (e.g. the all-zero biases of folded BNs) and hands
    them out through Identity nodes. Each Conv needs its own bias (its scale depends on the
    Conv's input scale), so every such Identity becomes a copy of the initializer."""
    inits = {t.name: t for t in graph.initializer}
    for node in [n for n in graph.node if n.op_type == "Identity" and n.input[0] in inits]:
        tensor = onnx.TensorProto()
        tensor.CopyFrom(inits[node.input[0]])
        tensor.name = node.output[0]
        graph.initializer.append(tensor)
        graph.node.remove(node)
    used = {name for n in graph.node for name in n.input}
    for init in [t for t in graph.initializer if t.name not in used]:
        graph.initializer.remove(init)


def _consumers(graph):
    uses = {}
    for node in graph.node:
        for name in node.input:
            uses.setdefault(name, []).append(node)
    return uses


def _fold_activations(graph):
    inits = {t.name: t for t in graph.initializer}
    producer = {o: n for n in graph.node for o in n.output}
    uses = _consumers(graph)
    graph_outputs = {o.name for o in graph.output}
    for act in [n for n in graph.node if n.op_type in ABSORBED_ACTIVATIONS]:
        src = act.input[0]
        host = producer.get(src)
        if host is None or host.op_type not in ACTIVATION_HOSTS or len(uses[src]) != 1 or src in graph_outputs:
            continue  # stays an op of its own (quantized input and output)
        if host.op_type == "Add" and any(i in inits for i in host.input):
            continue  # an Add with a constant operand is a float op: keep the activation separate
        if host.op_type != "Add" and not has_quantized_weights(host, inits):
            continue  # a float Conv/Gemm (weights computed at run time, or unusual attributes)
        host.output[0] = act.output[0]
        graph.node.remove(act)


def _gemm_quantizable(node, inits):
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    return (node.input[1] in inits and (len(node.input) < 3 or not node.input[2] or node.input[2] in inits)
            and attrs.get("alpha", 1.0) == 1.0 and attrs.get("beta", 1.0) == 1.0 and not attrs.get("transA", 0)
            and len(inits[node.input[1]].dims) == 2)


def has_quantized_weights(node, inits):
    """Conv/Gemm/MatMul whose weights become int8; other such nodes stay float ops."""
    if node.op_type == "Conv":
        return node.input[1] in inits and (len(node.input) < 3 or not node.input[2] or node.input[2] in inits)
    if node.op_type == "Gemm":
        return _gemm_quantizable(node, inits)
    if node.op_type == "MatMul":
        return node.input[1] in inits and len(inits[node.input[1]].dims) == 2
    return False


def _quantize_weights(node, plan, inits):
    w = numpy_helper.to_array(inits[node.input[1]])
    if node.op_type == "MatMul":
        q_w, w_scale = weight_quant_per_tensor(w)
        plan.weights[node.name] = WeightQuant(node.input[1], q_w, w_scale, None)
        return
    axis = 0
    if node.op_type == "Gemm":  # B is [K, N], or [N, K] with transB: quantize per output column n
        trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
        axis = 0 if trans_b else 1
    q_w, w_scale = weight_quant_per_channel(w, axis)
    wq = WeightQuant(node.input[1], q_w, w_scale, axis)
    if len(node.input) > 2 and node.input[2]:
        b = numpy_helper.to_array(inits[node.input[2]])
        x_scale = plan.params[node.input[0]].scale
        wq.bias = node.input[2]
        wq.q_bias, wq.bias_scale = bias_quant(b, x_scale, w_scale)
    plan.weights[node.name] = wq


def plan_quantization(float_model, ranges, act_type="int8"):
    """ranges: {tensor name: (min, max)} calibrated on the float model (see calibrate.py).
    A float tensor without a range (no node computes it at run time) is not quantized."""
    graph = onnx.GraphProto()
    graph.CopyFrom(float_model.graph)
    del graph.value_info[:]  # stale once tensors become int8
    _constants_to_initializers(graph)
    _identities_to_initializers(graph)
    _fold_activations(graph)
    for i, node in enumerate(graph.node):
        if not node.name:
            node.name = f"{node.op_type}_{i}"

    plan = QuantPlan(graph, act_type=act_type)
    inits = plan.initializers

    def own(name):
        plan.params[name] = activation_quant(*ranges[name], act_type)
        plan.params_owner[name] = name

    def fixed_softmax_output(name):
        # quantize_static's choice for Softmax (and what ORT's QLinearSoftmax kernel needs: with
        # a calibrated y_scale below ~1/300 its float lookup-table product overflows to inf and
        # every output is garbage; seen with y_scale 0.0023 on ppocr_cls).
        plan.params[name] = ActQuant(np.float32(1.0 / 256.0), SOFTMAX_ZERO_POINT[act_type])
        plan.params_owner[name] = name

    for inp in graph.input:
        if inp.name not in inits:
            if inp.name not in ranges:
                raise KeyError(f"no calibration range for graph input '{inp.name}'")
            own(inp.name)
    for node in graph.node:
        for out in node.output:
            if out not in ranges:
                continue
            src = node.input[0] if node.input else None
            if node.op_type == "Softmax":
                fixed_softmax_output(out)
            elif node.op_type in SHARED_PARAMS_OPS and src in plan.params:
                plan.params[out] = plan.params[src]
                plan.params_owner[out] = plan.params_owner[src]
            else:
                own(out)
        if has_quantized_weights(node, inits) and node.input[0] in plan.params:
            _quantize_weights(node, plan, inits)
    return plan


def activation_inputs(node, plan):
    """The inputs of `node` that are quantized activations (not weights, bias, shapes or constants)."""
    return [name for name in node.input if name in plan.params]
