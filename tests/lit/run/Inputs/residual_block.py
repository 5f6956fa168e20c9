"""Writes a QDQ residual block (int8): s = conv1x1(x), y = conv3x3(s) + s,
16 channels on an 8x8 map, each result quantized: the add npu-fuse-residual
applies in the 3x3 convolution's epilogue. Usage: residual_block.py OUT.onnx"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


inits = [
    init("xs", np.float32(0.05)), init("xz", np.int8(3)),
    init("wq", rng.integers(-127, 128, (16, 16, 3, 3)).astype(np.int8)),
    init("ws", np.float32(0.01)), init("wz", np.int8(0)),
    init("b", rng.integers(-500, 500, 16).astype(np.int32)),
    init("bs", np.float32(0.2 * 0.01)), init("bz", np.int32(0)),
    init("cs", np.float32(0.4)), init("cz", np.int8(-5)),
    init("vq", rng.integers(-127, 128, (16, 16, 1, 1)).astype(np.int8)),
    init("ss", np.float32(0.2)), init("sz", np.int8(1)),
    init("ys", np.float32(0.3)), init("yz", np.int8(-2)),
]
nodes = [
    helper.make_node("QuantizeLinear", ["input", "xs", "xz"], ["xq"]),
    helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["x"]),
    helper.make_node("DequantizeLinear", ["vq", "ws", "wz"], ["v"]),
    helper.make_node("Conv", ["x", "v"], ["s0"]),
    helper.make_node("QuantizeLinear", ["s0", "ss", "sz"], ["sq"]),
    helper.make_node("DequantizeLinear", ["sq", "ss", "sz"], ["s"]),
    helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["w"]),
    helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bf"]),
    helper.make_node("Conv", ["s", "w", "bf"], ["c"], pads=[1, 1, 1, 1]),
    helper.make_node("QuantizeLinear", ["c", "cs", "cz"], ["cq"]),
    helper.make_node("DequantizeLinear", ["cq", "cs", "cz"], ["cd"]),
    helper.make_node("Add", ["cd", "s"], ["a"]),
    helper.make_node("QuantizeLinear", ["a", "ys", "yz"], ["aq"]),
    helper.make_node("DequantizeLinear", ["aq", "ys", "yz"], ["output"]),
]
graph = helper.make_graph(
    nodes, "residual_block",
    [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 16, 8, 8])],
    [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 16, 8, 8])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
