"""Small helpers shared by the QDQ and QOperator emitters."""

import numpy as np
import onnx
from onnx import helper, numpy_helper

MS_DOMAIN = "com.microsoft"


def model_opsets(source_model, extra=()):
    """ai.onnx at the float model's version, at least 13 (per-axis QuantizeLinear), plus `extra`."""
    version = max([o.version for o in source_model.opset_import if o.domain in ("", "ai.onnx")] + [13])
    return [("", version), *extra]


def quantized(name):
    return f"{name}_quantized"


def dequantized(name):
    return f"{name}_dequantized"


def scale_name(name):
    return f"{name}_scale"


def zero_point_name(name):
    return f"{name}_zero_point"


class GraphWriter:
    """Collects nodes and initializers (deduplicated by name) for a new graph."""

    def __init__(self, plan):
        self.plan = plan
        self.nodes = []
        self.initializers = {}

    def add_initializer(self, name, array):
        if name not in self.initializers:
            self.initializers[name] = numpy_helper.from_array(np.asarray(array), name)
        return name

    def act_params(self, tensor):
        """(scale, zero point) initializer names of an activation; shared tensors reuse their owner's."""
        owner = self.plan.params_owner[tensor]
        q = self.plan.params[tensor]
        return (self.add_initializer(scale_name(owner), np.array(q.scale, np.float32)),
                self.add_initializer(zero_point_name(owner), np.array(q.zero_point, q.zero_point.dtype)))

    def weight_params(self, wq):
        """Initializers of a quantized weight: (int8 data, per-channel scale, zero points)."""
        return (self.add_initializer(quantized(wq.weight), wq.q_weight),
                self.add_initializer(scale_name(wq.weight), wq.weight_scale),
                self.add_initializer(zero_point_name(wq.weight), np.zeros(wq.weight_scale.shape, np.int8)))

    def bias_data(self, wq):
        """The int32 bias alone: QLinearConv/QGemm imply its scale (x_scale * w_scale) and zero point 0."""
        return self.add_initializer(quantized(wq.bias), wq.q_bias)

    def bias_params(self, wq):
        return (self.bias_data(wq),
                self.add_initializer(scale_name(wq.bias), wq.bias_scale),
                self.add_initializer(zero_point_name(wq.bias), np.zeros(wq.bias_scale.shape, np.int32)))

    def node(self, op_type, inputs, outputs, name, domain="", **attrs):
        self.nodes.append(helper.make_node(op_type, inputs, outputs, name=name, domain=domain, **attrs))

    def keep_float_initializers(self):
        """Initializers of the float graph that stay (e.g. Reshape shapes), minus quantized weights."""
        replaced = {w.weight for w in self.plan.weights.values()} | {w.bias for w in self.plan.weights.values()}
        for init in self.plan.graph.initializer:
            used = any(init.name in n.input for n in self.nodes)
            if init.name not in replaced and used:
                self.initializers.setdefault(init.name, init)

    def model(self, source_model, graph_name, opsets):
        self.keep_float_initializers()
        graph = helper.make_graph(
            self.nodes, graph_name,
            list(self.plan.graph.input), list(self.plan.graph.output),
            list(self.initializers.values()))
        # The float model's input list may include initializers (old exporters); keep only real inputs.
        real = [i for i in graph.input if i.name not in self.initializers]
        del graph.input[:]
        graph.input.extend(real)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                                  producer_name="systole-quantizer")
        model.ir_version = source_model.ir_version
        onnx.checker.check_model(model)
        return model
