"""Writes a small QDQ (int8) model for the lit tests.

usage: qdq_model.py residual-block|two-blocks|conv1x1 OUT.onnx

residual-block: s = conv1x1(x), y = conv3x3(s) + s, 16 channels on an 8x8
map, each result quantized: the add npu-fuse-residual applies in the 3x3
convolution's epilogue.
two-blocks: two residual blocks, b = conv3x3(conv1x1(x)) + s0 and
y = conv3x3(conv1x1(b)) + b (s0 = the first conv1x1's result): the first
block's output b has two readers, the next 1x1 convolution and the second
add.
conv1x1: a 1x1 convolution, 256 -> 64 channels on a 7x7 map (one input tile
holds the whole image)."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def q(*args):
    return helper.make_node("QuantizeLinear", list(args[:3]), [args[3]])


def dq(*args):
    return helper.make_node("DequantizeLinear", list(args[:3]), [args[3]])


def weights(name, shape, in_scale):
    """int8 weights of scale 0.01 and an int32 bias; DQ nodes for both."""
    inits = [init(f"{name}q", rng.integers(-127, 128, shape).astype(np.int8)),
             init(f"{name}s", np.float32(0.01)), init(f"{name}z", np.int8(0)),
             init(f"{name}b", rng.integers(-500, 500, shape[0]).astype(np.int32)),
             init(f"{name}bs", np.float32(in_scale * 0.01)), init(f"{name}bz", np.int32(0))]
    nodes = [dq(f"{name}q", f"{name}s", f"{name}z", name),
             dq(f"{name}b", f"{name}bs", f"{name}bz", f"{name}bf")]
    return inits, nodes


kind, out = sys.argv[1], sys.argv[2]
inits = [init("xs", np.float32(0.05)), init("xz", np.int8(3)),
         init("ss", np.float32(0.2)), init("sz", np.int8(1)),
         init("cs", np.float32(0.4)), init("cz", np.int8(-5)),
         init("ys", np.float32(0.3)), init("yz", np.int8(-2))]
nodes = [q("input", "xs", "xz", "xq"), dq("xq", "xs", "xz", "x")]
if kind == "residual-block":
    shape_in = shape_out = [1, 16, 8, 8]
    wi, wn = weights("v", (16, 16, 1, 1), 0.05)
    ci, cn = weights("w", (16, 16, 3, 3), 0.2)
    inits += wi + ci
    nodes += wn + [helper.make_node("Conv", ["x", "v", "vbf"], ["s0"]),
                   q("s0", "ss", "sz", "sq"), dq("sq", "ss", "sz", "s")]
    nodes += cn + [helper.make_node("Conv", ["s", "w", "wbf"], ["c"], pads=[1, 1, 1, 1]),
                   q("c", "cs", "cz", "cq"), dq("cq", "cs", "cz", "cd"),
                   helper.make_node("Add", ["cd", "s"], ["a"]),
                   q("a", "ys", "yz", "aq"), dq("aq", "ys", "yz", "output")]
elif kind == "two-blocks":
    shape_in = shape_out = [1, 16, 8, 8]
    for blk, src in (("1", "x"), ("2", "b")):
        wi, wn = weights(f"v{blk}", (16, 16, 1, 1), 0.05)
        ci, cn = weights(f"w{blk}", (16, 16, 3, 3), 0.2)
        inits += wi + ci
        nodes += wn + [helper.make_node("Conv", [src, f"v{blk}", f"v{blk}bf"], [f"s{blk}0"]),
                       q(f"s{blk}0", "ss", "sz", f"s{blk}q"), dq(f"s{blk}q", "ss", "sz", f"s{blk}")]
        shortcut = "s1" if blk == "1" else "b"
        res = "b" if blk == "1" else "output"
        nodes += cn + [helper.make_node("Conv", [f"s{blk}", f"w{blk}", f"w{blk}bf"], [f"c{blk}"],
                                        pads=[1, 1, 1, 1]),
                       q(f"c{blk}", "cs", "cz", f"c{blk}q"), dq(f"c{blk}q", "cs", "cz", f"c{blk}d"),
                       helper.make_node("Add", [f"c{blk}d", shortcut], [f"a{blk}"]),
                       q(f"a{blk}", "ys", "yz", f"a{blk}q"), dq(f"a{blk}q", "ys", "yz", res)]
elif kind == "conv1x1":
    shape_in, shape_out = [1, 256, 7, 7], [1, 64, 7, 7]
    wi, wn = weights("w", (64, 256, 1, 1), 0.05)
    inits += wi
    nodes += wn + [helper.make_node("Conv", ["x", "w", "wbf"], ["c"]),
                   q("c", "ys", "yz", "cq"), dq("cq", "ys", "yz", "output")]
else:
    sys.exit(f"qdq_model.py: unknown model '{kind}'")
graph = helper.make_graph(
    nodes, kind,
    [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape_in)],
    [helper.make_tensor_value_info("output", TensorProto.FLOAT, shape_out)], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, out)
