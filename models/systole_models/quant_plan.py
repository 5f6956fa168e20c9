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
Anything else is rejected: the models we build contain no other op.
"""

from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import numpy_helper

from .quant_params import activation_quant, bias_quant, weight_quant_per_channel

OWN_PARAMS_OPS = {"Conv", "Gemm", "Add", "GlobalAveragePool"}
SHARED_PARAMS_OPS = {"MaxPool", "Flatten", "Reshape"}
ABSORBED_ACTIVATIONS = {"Relu", "Clip"}
ACTIVATION_HOSTS = {"Conv", "Gemm", "Add"}


@dataclass
class WeightQuant:
    """Quantized weight (input 1) and optional bias (input 2) of a Conv or Gemm."""
    weight: str
    q_weight: np.ndarray
    weight_scale: np.ndarray
    axis: int
    bias: str | None = None
    q_bias: np.ndarray | None = None
    bias_scale: np.ndarray | None = None


@dataclass
class QuantPlan:
    graph: onnx.GraphProto            # float graph with Constant nodes and activations folded away
    params: dict = field(default_factory=dict)       # tensor -> ActQuant
    params_owner: dict = field(default_factory=dict)  # tensor -> tensor whose scale/zp initializers it uses
    weights: dict = field(default_factory=dict)      # node name -> WeightQuant

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
    producer = {o: n for n in graph.node for o in n.output}
    uses = _consumers(graph)
    graph_outputs = {o.name for o in graph.output}
    for act in [n for n in graph.node if n.op_type in ABSORBED_ACTIVATIONS]:
        src = act.input[0]
        host = producer.get(src)
        if host is None or host.op_type not in ACTIVATION_HOSTS or len(uses[src]) != 1 or src in graph_outputs:
            raise NotImplementedError(
                f"{act.op_type} '{act.name}' does not directly follow a Conv/Gemm/Add it can be fused into")
        host.output[0] = act.output[0]
        graph.node.remove(act)


def _check_supported(graph):
    inits = {t.name for t in graph.initializer}
    for node in graph.node:
        if node.op_type not in OWN_PARAMS_OPS | SHARED_PARAMS_OPS:
            raise NotImplementedError(f"op {node.op_type} ('{node.name}') is not supported by the quantizer")
        if node.op_type == "Add" and any(i in inits for i in node.input):
            raise NotImplementedError(f"Add '{node.name}' with a constant operand is not supported")
        if node.op_type == "Gemm":
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            if attrs.get("alpha", 1.0) != 1.0 or attrs.get("beta", 1.0) != 1.0 or attrs.get("transA", 0):
                raise NotImplementedError(f"Gemm '{node.name}': only alpha=beta=1, transA=0 is supported")


def _quantize_weights(node, plan, inits):
    if node.input[1] not in inits:
        raise NotImplementedError(f"{node.op_type} '{node.name}': weights must be initializers")
    w = numpy_helper.to_array(inits[node.input[1]])
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


def plan_quantization(float_model, ranges):
    """ranges: {tensor name: (min, max)} calibrated on the float model (see calibrate.py)."""
    graph = onnx.GraphProto()
    graph.CopyFrom(float_model.graph)
    del graph.value_info[:]  # stale once tensors become int8
    _constants_to_initializers(graph)
    _identities_to_initializers(graph)
    _fold_activations(graph)
    _check_supported(graph)
    for i, node in enumerate(graph.node):
        if not node.name:
            node.name = f"{node.op_type}_{i}"

    plan = QuantPlan(graph)
    inits = plan.initializers

    def own(name):
        if name not in ranges:
            raise KeyError(f"no calibration range for tensor '{name}'")
        plan.params[name] = activation_quant(*ranges[name])
        plan.params_owner[name] = name

    for inp in graph.input:
        if inp.name not in inits:
            own(inp.name)
    for node in graph.node:
        if node.op_type in SHARED_PARAMS_OPS:
            src = node.input[0]
            plan.params[node.output[0]] = plan.params[src]
            plan.params_owner[node.output[0]] = plan.params_owner[src]
        else:
            own(node.output[0])
        if node.op_type in ("Conv", "Gemm"):
            _quantize_weights(node, plan, inits)
    return plan


def activation_inputs(node):
    """The inputs of `node` that are quantized activations (not weights, bias or shapes)."""
    if node.op_type in ("Conv", "Gemm", "GlobalAveragePool", *SHARED_PARAMS_OPS):
        return [node.input[0]]
    return list(node.input)  # Add
