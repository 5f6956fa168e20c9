"""Writes hostile ONNX models for tests/hostile into argv[1]: each one is
something a stranger could hand `systole import/compile`."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
f32 = TensorProto.FLOAT
i8 = TensorProto.INT8


def model(nodes, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, "hostile", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def save(name, m):
    # onnx.save would run no checks either; raw bytes keep malformed models.
    with open(os.path.join(out, name + ".onnx"), "wb") as fh:
        fh.write(m.SerializeToString())


def relu(dims):
    return model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                 [helper.make_tensor_value_info("x", f32, dims)],
                 [helper.make_tensor_value_info("y", f32, dims)])


valid = relu([1, 10])
save("valid", valid)
data = valid.SerializeToString()

# Truncated in the middle of the graph.
with open(os.path.join(out, "truncated.onnx"), "wb") as fh:
    fh.write(data[: len(data) // 2])

# Garbled: every byte after the header inverted.
with open(os.path.join(out, "garbled.onnx"), "wb") as fh:
    fh.write(data[:4] + bytes(b ^ 0xFF for b in data[4:]))

# Empty file, and a model without a graph.
open(os.path.join(out, "empty.onnx"), "wb").close()
save("nograph", onnx.ModelProto(ir_version=8))

# Wrong opsets: too old, and from the future.
save("opset6", model([helper.make_node("Add", ["x", "x"], ["y"], name="r")],
                     [helper.make_tensor_value_info("x", f32, [1, 10])],
                     [helper.make_tensor_value_info("y", f32, [1, 10])], opset=6))
save("opset999", model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                       [helper.make_tensor_value_info("x", f32, [1, 10])],
                       [helper.make_tensor_value_info("y", f32, [1, 10])], opset=999))

# Input dimensions: huge (2^62 elements would overflow any byte count),
# negative, and huge-but-each-representable (product overflows int64).
save("huge-dims", relu([1 << 62, 1 << 62]))
save("negative-dims", relu([1, -5]))
save("overflow-dims", relu([1 << 31, 1 << 31, 1 << 31]))

# An initializer that declares a huge shape but carries 4 bytes.
big = TensorProto(name="w", data_type=f32, dims=[1 << 40, 1 << 30], raw_data=b"\0\0\0\0")
save("huge-initializer",
     model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
           [helper.make_tensor_value_info("x", f32, [1, 10])],
           [helper.make_tensor_value_info("y", f32, [1, 10])], [big]))

# Reshape to a huge shape from a constant: the importer must not allocate it.
shape = numpy_helper.from_array(np.array([1 << 40, 1 << 20], np.int64), "shape")
save("huge-reshape",
     model([helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
           [helper.make_tensor_value_info("x", f32, [1, 10])],
           [helper.make_tensor_value_info("y", f32, ["a", "b"])], [shape]))

# A cycle: a -> b -> a.
save("cyclic",
     model([helper.make_node("Relu", ["b"], ["a"], name="first"),
            helper.make_node("Relu", ["a"], ["b"], name="second")],
           [helper.make_tensor_value_info("x", f32, [1, 10])],
           [helper.make_tensor_value_info("b", f32, [1, 10])]))

# A node that is its own input.
save("self-loop",
     model([helper.make_node("Relu", ["y"], ["y"], name="loop")],
           [helper.make_tensor_value_info("x", f32, [1, 10])],
           [helper.make_tensor_value_info("y", f32, [1, 10])]))

# Two nodes defining the same tensor.
save("duplicate-output",
     model([helper.make_node("Relu", ["x"], ["y"], name="r1"),
            helper.make_node("Relu", ["x"], ["y"], name="r2")],
           [helper.make_tensor_value_info("x", f32, [1, 10])],
           [helper.make_tensor_value_info("y", f32, [1, 10])]))

# Quantization parameters that make no sense: zero and NaN scales.
for name, scale in (("zero-scale", 0.0), ("nan-scale", float("nan"))):
    save(name,
         model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q")],
               [helper.make_tensor_value_info("x", f32, [1, 10])],
               [helper.make_tensor_value_info("y", i8, [1, 10])],
               [numpy_helper.from_array(np.array(scale, np.float32), "s"),
                numpy_helper.from_array(np.array(0, np.int8), "z")]))

# A Conv whose kernel is larger than its (padded) input.
w = numpy_helper.from_array(np.zeros((1, 1, 9, 9), np.float32), "w")
save("conv-kernel-too-big",
     model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
           [helper.make_tensor_value_info("x", f32, [1, 1, 4, 4])],
           [helper.make_tensor_value_info("y", f32, ["n", "c", "h", "w"])], [w]))

# Reshape whose target dimensions overflow int64 when multiplied (fuzz-onnx-
# import found the signed overflow: tests/fuzz/regressions/onnx-import).
shape = numpy_helper.from_array(np.array([1 << 40, 3 << 60, -1], np.int64), "shape")
save("reshape-overflow",
     model([helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
           [helper.make_tensor_value_info("x", f32, [1, 10])],
           [helper.make_tensor_value_info("y", f32, ["a", "b", "c"])], [shape]))

# A zero-element initializer in typed fields (fuzz-onnx-import: memcpy from a
# null pointer, tests/fuzz/regressions/onnx-import).
empty = TensorProto(name="w", data_type=f32, dims=[0])
save("empty-initializer",
     model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
           [helper.make_tensor_value_info("x", f32, [1, 10])],
           [helper.make_tensor_value_info("y", f32, [1, 10])], [empty]))

# A graph output that is an initializer (legal ONNX; fuzz-onnx-import: the
# importer read the missing first output of its pseudo-node).
save("constant-output",
     model([helper.make_node("Relu", ["x"], ["y"], name="r")],
           [helper.make_tensor_value_info("x", f32, [1, 10])],
           [helper.make_tensor_value_info("y", f32, [1, 10]),
            helper.make_tensor_value_info("c", f32, [2])],
           [numpy_helper.from_array(np.array([1.5, -2], np.float32), "c")]))

# A contrib-domain node without outputs (the ONNX checker has no schema for
# com.microsoft ops, so nothing else catches it).
m = model([helper.make_node("QLinearAdd", ["x", "s", "z", "x", "s", "z", "s", "z"], [],
                            name="qadd", domain="com.microsoft")],
          [helper.make_tensor_value_info("x", i8, [1, 10])],
          [helper.make_tensor_value_info("x", i8, [1, 10])],
          [numpy_helper.from_array(np.array(0.5, np.float32), "s"),
           numpy_helper.from_array(np.array(0, np.int8), "z")])
m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
save("no-outputs", m)

# DequantizeLinear of a float tensor without zero point: the quantized
# storage type would be f32 (fuzz-onnx-import: invalid cast to IntegerType).
save("dequantize-float",
     model([helper.make_node("DequantizeLinear", ["x", "s"], ["y"], name="dq")],
           [helper.make_tensor_value_info("x", f32, [1, 10])],
           [helper.make_tensor_value_info("y", f32, [1, 10])],
           [numpy_helper.from_array(np.array(0.5, np.float32), "s")]))
