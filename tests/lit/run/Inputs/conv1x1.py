"""Writes a QDQ 1x1 convolution (int8), 256 -> 64 channels on a 7x7 map:
one input tile holds the whole image. Usage: conv1x1.py OUT.onnx"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(11)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


inits = [
    init("xs", np.float32(0.05)), init("xz", np.int8(3)),
    init("wq", rng.integers(-127, 128, (64, 256, 1, 1)).astype(np.int8)),
    init("ws", np.float32(0.01)), init("wz", np.int8(0)),
    init("b", rng.integers(-500, 500, 64).astype(np.int32)),
    init("bs", np.float32(0.05 * 0.01)), init("bz", np.int32(0)),
    init("ys", np.float32(0.6)), init("yz", np.int8(-5)),
]
nodes = [
    helper.make_node("QuantizeLinear", ["input", "xs", "xz"], ["xq"]),
    helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["x"]),
    helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["w"]),
    helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bf"]),
    helper.make_node("Conv", ["x", "w", "bf"], ["c"]),
    helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["cq"]),
    helper.make_node("DequantizeLinear", ["cq", "ys", "yz"], ["output"]),
]
graph = helper.make_graph(
    nodes, "conv1x1",
    [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 256, 7, 7])],
    [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 64, 7, 7])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
