"""Writes small ONNX models for the importer's lit tests into argv[1]."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(name, nodes, inputs, outputs, inits=(), opset=13, extra_opsets=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    opsets = [helper.make_opsetid("", opset)] + list(extra_opsets)
    model = helper.make_model(graph, opset_imports=opsets)
    onnx.save(model, os.path.join(out, name + ".onnx"))


f32 = TensorProto.FLOAT
# QOperator conv with SAME_UPPER padding, stride 2 and a bias.
w = numpy_helper.from_array(np.arange(2 * 3 * 3 * 3, dtype=np.int8).reshape(2, 3, 3, 3), "w")
consts = [
    numpy_helper.from_array(np.array(0.05, np.float32), "xs"),
    numpy_helper.from_array(np.array(-3, np.int8), "xz"),
    w,
    numpy_helper.from_array(np.array([0.01, 0.02], np.float32), "ws"),
    numpy_helper.from_array(np.array([0, 0], np.int8), "wz"),
    numpy_helper.from_array(np.array(0.1, np.float32), "ys"),
    numpy_helper.from_array(np.array(5, np.int8), "yz"),
    numpy_helper.from_array(np.array([7, -7], np.int32), "b"),
]
save("qlinearconv",
     [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="q"),
      helper.make_node("QLinearConv", ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["yq"],
                       name="conv", auto_pad="SAME_UPPER", strides=[2, 2]),
      helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="dq")],
     [helper.make_tensor_value_info("x", f32, ["N", 3, 7, 7])],
     [helper.make_tensor_value_info("y", f32, ["N", 2, 4, 4])], consts)

# An op with no NPU or host lowering (a custom domain's op).
save("unknown-op", [helper.make_node("Frobnicate", ["x"], ["y"], name="probs",
                                     domain="com.example")],
     [helper.make_tensor_value_info("x", f32, [1, 10])],
     [helper.make_tensor_value_info("y", f32, [1, 10])],
     extra_opsets=[helper.make_opsetid("com.example", 1)])

# An old opset whose op changed meaning by opset 7 (Add-6 broadcasts only
# with its `broadcast` attribute).
save("opset6", [helper.make_node("Add", ["x", "x"], ["y"], name="r")],
     [helper.make_tensor_value_info("x", f32, [1, 10])],
     [helper.make_tensor_value_info("y", f32, [1, 10])], opset=6)

# An old opset whose op did not change by opset 7 is read as opset 7.
save("opset6-relu", [helper.make_node("Relu", ["x"], ["y"], name="r")],
     [helper.make_tensor_value_info("x", f32, [1, 10])],
     [helper.make_tensor_value_info("y", f32, [1, 10])], opset=6)

# A Conv with float weights and bias between DQ and Q: quantized at import
# as ONNX Runtime's WeightBiasQuantization does.
fw_consts = [
    numpy_helper.from_array(np.array(0.5, np.float32), "xs"),
    numpy_helper.from_array(np.array(0, np.int8), "xz"),
    numpy_helper.from_array(np.array([[[[0.5, -1.0]]]], np.float32), "w"),
    numpy_helper.from_array(np.array([0.1], np.float32), "b"),
    numpy_helper.from_array(np.array(0.25, np.float32), "ys"),
    numpy_helper.from_array(np.array(0, np.int8), "yz"),
]
save("qdq-float-weights",
     [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="q"),
      helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="d"),
      helper.make_node("Conv", ["xd", "w", "b"], ["c"], name="conv"),
      helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["yq"], name="q2"),
      helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="d2")],
     [helper.make_tensor_value_info("x", f32, [1, 1, 3, 4])],
     [helper.make_tensor_value_info("y", f32, [1, 1, 3, 3])], fw_consts)

# Resize nearest (asymmetric, floor) by integer scales: a graph.upsample;
# with half_pixel coordinates the taps are not o / f: host code.
for name, coord in (("resize-upsample", "asymmetric"), ("resize-halfpixel", "half_pixel")):
    save(name,
         [helper.make_node("Resize", ["x", "", "sc"], ["y"], name="up", mode="nearest",
                           coordinate_transformation_mode=coord, nearest_mode="floor")],
         [helper.make_tensor_value_info("x", f32, [1, 2, 3, 4])],
         [helper.make_tensor_value_info("y", f32, [1, 2, 6, 12])],
         [numpy_helper.from_array(np.array([1, 1, 2, 3], np.float32), "sc")])

# DepthToSpace of a float tensor: a graph.depth_to_space (CRD: crd = true).
save("depth-to-space",
     [helper.make_node("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=2, mode="CRD")],
     [helper.make_tensor_value_info("x", f32, [1, 8, 3, 4])],
     [helper.make_tensor_value_info("y", f32, [1, 2, 6, 8])])

# SpaceToDepth of a float tensor: a graph.space_to_depth.
save("space-to-depth",
     [helper.make_node("SpaceToDepth", ["x"], ["y"], name="s2d", blocksize=2)],
     [helper.make_tensor_value_info("x", f32, [1, 2, 4, 6])],
     [helper.make_tensor_value_info("y", f32, [1, 8, 2, 3])])

# Host ops whose bodies convert-onnx-to-linalg builds: a float16
# LayerNormalization with its InvStdDev output, a HardSigmoid and an ArgMax.
f16 = TensorProto.FLOAT16
save("host-params",
     [helper.make_node("LayerNormalization", ["x", "s"], ["n", "", "inv"], name="ln",
                       axis=-1, epsilon=1e-3),
      helper.make_node("HardSigmoid", ["n"], ["g"], name="hs", alpha=0.25, beta=0.375),
      helper.make_node("ArgMax", ["g"], ["a"], name="am", axis=1, keepdims=0,
                       select_last_index=1)],
     [helper.make_tensor_value_info("x", f16, [2, 8])],
     [helper.make_tensor_value_info("a", TensorProto.INT64, [2]),
      helper.make_tensor_value_info("inv", f32, [2, 1])],
     [numpy_helper.from_array(np.ones(8, np.float16), "s")], opset=17)

# Decomposed LayerNorms as PyTorch exports them at opset 13 (ORT fuses the
# first two into LayerNormalization; OrtFusions.cpp): over the last axis
# with epsilon 1e-6 (a float constant, the Add's second operand); with the
# epsilon as the Add's first operand (ORT then uses its default 1e-5); and
# one over a middle axis, which ORT leaves alone.
def decomposed_ln(p, x, axes, eps_first=False):
    eps = helper.make_node("Add", [p + "eps", p + "v"] if eps_first else [p + "v", p + "eps"],
                           [p + "ve"], name=p + "add_eps")
    return [helper.make_node("ReduceMean", [x], [p + "m"], name=p + "mean", axes=axes),
            helper.make_node("Sub", [x, p + "m"], [p + "d"], name=p + "sub"),
            helper.make_node("Pow", [p + "d", p + "two"], [p + "d2"], name=p + "pow"),
            helper.make_node("ReduceMean", [p + "d2"], [p + "v"], name=p + "var", axes=axes),
            eps,
            helper.make_node("Sqrt", [p + "ve"], [p + "sd"], name=p + "sqrt"),
            helper.make_node("Div", [p + "d", p + "sd"], [p + "n"], name=p + "div"),
            helper.make_node("Mul", [p + "n", p + "s"], [p + "ns"], name=p + "mul"),
            helper.make_node("Add", [p + "ns", p + "b"], [p + "y"], name=p + "add")]


def ln_consts(p, n, eps):
    return [numpy_helper.from_array(np.array(2.0, np.float32), p + "two"),
            numpy_helper.from_array(np.array(eps, np.float32), p + "eps"),
            numpy_helper.from_array(np.linspace(0.5, 1.5, n).astype(np.float32), p + "s"),
            numpy_helper.from_array(np.linspace(-1, 1, n).astype(np.float32), p + "b")]


save("ln-decomposed",
     decomposed_ln("a_", "x", [-1]) + decomposed_ln("b_", "a_y", [2], eps_first=True)
     + [helper.make_node("Transpose", ["b_y"], ["t"], name="t", perm=[0, 2, 1])]
     + decomposed_ln("c_", "t", [1]),
     [helper.make_tensor_value_info("x", f32, [2, 4, 8])],
     [helper.make_tensor_value_info("c_y", f32, [2, 8, 4])],
     ln_consts("a_", 8, 1e-6) + ln_consts("b_", 8, 1e-6) + ln_consts("c_", 4, 1e-6))

# A decomposed LayerNorm and an erf GELU reading a DequantizeLinear that
# each pattern reads twice: ORT gives each reader its own copy first
# (EnsureUniqueDQForNodeUnit), so LayerNormFusion and GeluFusion do not
# fire; SimplifiedLayerNormFusion takes the LayerNorm's Pow..Mul.
dq = [numpy_helper.from_array(np.array(0.05, np.float32), "dq_s"),
      numpy_helper.from_array(np.array(3, np.int8), "dq_z")]
save("shared-dq",
     [helper.make_node("DequantizeLinear", ["xq", "dq_s", "dq_z"], ["x"], name="dq")]
     + decomposed_ln("a_", "x", [-1])
     + [helper.make_node("DequantizeLinear", ["gq", "dq_s", "dq_z"], ["g"], name="dq_g"),
        helper.make_node("Div", ["g", "sqrt2"], ["g1"], name="g_div"),
        helper.make_node("Erf", ["g1"], ["g2"], name="g_erf"),
        helper.make_node("Add", ["g2", "one"], ["g3"], name="g_add"),
        helper.make_node("Mul", ["g", "g3"], ["g4"], name="g_mul"),
        helper.make_node("Mul", ["g4", "half"], ["gy"], name="g_half")],
     [helper.make_tensor_value_info("xq", TensorProto.INT8, [2, 4, 8]),
      helper.make_tensor_value_info("gq", TensorProto.INT8, [2, 8])],
     [helper.make_tensor_value_info("a_y", f32, [2, 4, 8]),
      helper.make_tensor_value_info("gy", f32, [2, 8])],
     dq + ln_consts("a_", 8, 1e-6)
     + [numpy_helper.from_array(np.array(np.sqrt(2), np.float32), "sqrt2"),
        numpy_helper.from_array(np.array(1.0, np.float32), "one"),
        numpy_helper.from_array(np.array(0.5, np.float32), "half")])

# Float MatMuls with scalar scales, as ORT's MatMulScaleFusion finds them
# (OrtFusions.cpp): a Div of A (alpha = 1 / 8), a Mul of the result with
# the scalar first (alpha = 3), a Div that is also a graph output (kept,
# and still fused), and a Mul by a [8] vector (not a scalar: left alone).
save("matmul-scale",
     [helper.make_node("Div", ["q", "eight"], ["qs"], name="div_q"),
      helper.make_node("MatMul", ["qs", "k"], ["s"], name="mm_qk"),
      helper.make_node("MatMul", ["s", "v"], ["o"], name="mm_sv"),
      helper.make_node("Mul", ["three", "o"], ["y"], name="mul_o"),
      helper.make_node("Div", ["q", "eight"], ["qd"], name="div_kept"),
      helper.make_node("MatMul", ["qd", "k"], ["z"], name="mm_kept"),
      helper.make_node("MatMul", ["q", "k"], ["w"], name="mm_vec"),
      helper.make_node("Mul", ["w", "vec"], ["u"], name="mul_vec")],
     [helper.make_tensor_value_info("q", f32, [4, 8, 16]),
      helper.make_tensor_value_info("k", f32, [4, 16, 8]),
      helper.make_tensor_value_info("v", f32, [4, 8, 8])],
     [helper.make_tensor_value_info(n, f32, [4, 8, 8]) for n in ("y", "z", "u")]
     + [helper.make_tensor_value_info("qd", f32, [4, 8, 16])],
     [numpy_helper.from_array(np.array(8.0, np.float32), "eight"),
      numpy_helper.from_array(np.array(3.0, np.float32), "three"),
      numpy_helper.from_array(np.linspace(1, 2, 8).astype(np.float32), "vec")])

# Pads computed with Mod from constants, as torchvision's Swin computes a
# window's padding ((w - W % w) % w): Mod(-3, 7) is 4 with fmod=0 (the
# divisor's sign) and -3 with fmod=1 (the dividend's), negated to 3.
i64 = TensorProto.INT64
save("mod-pads",
     [helper.make_node("Mod", ["m3", "seven"], ["p_h"], name="mod"),
      helper.make_node("Mod", ["m3", "seven"], ["r_w"], name="fmod", fmod=1),
      helper.make_node("Neg", ["r_w"], ["p_w"], name="neg"),
      helper.make_node("Concat", ["zeros", "p_h", "p_w"], ["pads"], name="pads", axis=0),
      helper.make_node("Pad", ["x", "pads"], ["y"], name="pad")],
     [helper.make_tensor_value_info("x", f32, [1, 1, 5, 5])],
     [helper.make_tensor_value_info("y", f32, [1, 1, 9, 8])],
     [numpy_helper.from_array(np.array([-3], np.int64), "m3"),
      numpy_helper.from_array(np.array([7], np.int64), "seven"),
      numpy_helper.from_array(np.zeros(6, np.int64), "zeros")])

# QDQ Softmax, as ORT's QDQ transformer fuses it into QLinearSoftmax: one
# whose DequantizeLinear also feeds a Relu (the DQ stays for it), one whose
# Softmax is also read by an Add (not fused: ORT requires the Q to be its
# only reader).
qs = [numpy_helper.from_array(np.array(0.0625, np.float32), "sx_s"),
      numpy_helper.from_array(np.array(0, np.int8), "sx_z"),
      numpy_helper.from_array(np.array(1 / 256, np.float32), "sy_s"),
      numpy_helper.from_array(np.array(-128, np.int8), "sy_z")]
save("qdq-softmax",
     [helper.make_node("QuantizeLinear", ["x", "sx_s", "sx_z"], ["xq"], name="q_in"),
      helper.make_node("DequantizeLinear", ["xq", "sx_s", "sx_z"], ["xf"], name="dq"),
      helper.make_node("Softmax", ["xf"], ["sm"], name="softmax", axis=-1),
      helper.make_node("QuantizeLinear", ["sm", "sy_s", "sy_z"], ["yq"], name="q"),
      helper.make_node("DequantizeLinear", ["yq", "sy_s", "sy_z"], ["y"], name="dq_out"),
      helper.make_node("Relu", ["xf"], ["r"], name="relu"),
      helper.make_node("Softmax", ["xf"], ["sm2"], name="softmax_kept", axis=-1),
      helper.make_node("Add", ["sm2", "sm2"], ["a"], name="add"),
      helper.make_node("QuantizeLinear", ["sm2", "sy_s", "sy_z"], ["zq"], name="q2"),
      helper.make_node("DequantizeLinear", ["zq", "sy_s", "sy_z"], ["z"], name="dq2")],
     [helper.make_tensor_value_info("x", f32, [4, 16])],
     [helper.make_tensor_value_info(n, f32, [4, 16]) for n in ("y", "r", "a", "z")], qs)

# Two QDQ pairs around a Dropout, as ORT's DoubleQDQPairsRemover finds them:
# Q1 (0.05, 0) -> DQ1 -> Dropout -> Q2 (0.04, 100) -> DQ2 becomes one pair
# over the ranges' intersection [-6.4, 1.08]; a second chain whose DQ1 has
# another reader stays.
dd = [numpy_helper.from_array(np.array(0.05, np.float32), "d1_s"),
      numpy_helper.from_array(np.array(0, np.int8), "d1_z"),
      numpy_helper.from_array(np.array(0.04, np.float32), "d2_s"),
      numpy_helper.from_array(np.array(100, np.int8), "d2_z")]
save("double-qdq",
     [helper.make_node("QuantizeLinear", ["x", "d1_s", "d1_z"], ["q1"], name="q1"),
      helper.make_node("DequantizeLinear", ["q1", "d1_s", "d1_z"], ["dq1"], name="dq1"),
      helper.make_node("Dropout", ["dq1"], ["do"], name="dropout"),
      helper.make_node("QuantizeLinear", ["do", "d2_s", "d2_z"], ["q2"], name="q2"),
      helper.make_node("DequantizeLinear", ["q2", "d2_s", "d2_z"], ["y"], name="dq2"),
      helper.make_node("QuantizeLinear", ["x", "d1_s", "d1_z"], ["k1"], name="k1"),
      helper.make_node("DequantizeLinear", ["k1", "d1_s", "d1_z"], ["kd1"], name="kd1"),
      helper.make_node("QuantizeLinear", ["kd1", "d2_s", "d2_z"], ["k2"], name="k2"),
      helper.make_node("DequantizeLinear", ["k2", "d2_s", "d2_z"], ["z"], name="kd2"),
      helper.make_node("Relu", ["kd1"], ["r"], name="relu")],
     [helper.make_tensor_value_info("x", f32, [4, 8])],
     [helper.make_tensor_value_info(n, f32, [4, 8]) for n in ("y", "z", "r")], dd)

# A node reading a tensor nobody produces.
save("undefined", [helper.make_node("Relu", ["nowhere"], ["y"], name="r")],
     [helper.make_tensor_value_info("x", f32, [1, 10])],
     [helper.make_tensor_value_info("y", f32, [1, 10])])

# Not a protobuf at all.
with open(os.path.join(out, "garbage.onnx"), "wb") as fh:
    fh.write(b"\x08\x07this is not an onnx model\xff\xff\xff")
