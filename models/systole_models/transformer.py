"""A 2-layer transformer encoder (torch.nn.TransformerEncoder) with int8 matmuls.

The float model is exported with Debian's PyTorch (opset 17, so LayerNorm is
one LayerNormalization node; GELU exports as its Erf formula). Exporters leave
shape arithmetic (Shape -> Gather -> Div -> Slice bounds of the packed QKV
projection) in the graph; with static shapes it is folded here into
initializers, as onnx-simplifier would.

Quantization (our own, minimal): every MatMul/Gemm whose right operand is a
constant weight gets QDQ int8 -- activation per-tensor asymmetric from min/max
calibration, weight per-tensor symmetric [-127, 127], output per-tensor -- so
ORT (session.qdqisint8allowed=1) fuses it into QLinearMatMul and Systole runs
it on the NPU. Gemm is split into MatMul + Add (bias stays float). Everything
else (softmax, layer norm, GELU, the attention's activation x activation
matmuls, residual adds) stays float and runs on the host.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

from . import ort_runner

D_MODEL, HEADS, FF, LAYERS, SEQ = 32, 4, 64, 2, 8
SEED = 0
CALIBRATION_SEED, REFERENCE_SEED = 1, 2


def export(path):
    import torch
    torch.manual_seed(SEED)
    layer = torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, dropout=0.0, activation="gelu",
                                             batch_first=True)
    model = torch.nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False).eval()
    x = torch.randn(1, SEQ, D_MODEL)
    torch.onnx.export(model, x, str(path), input_names=["input"], output_names=["output"],
                      opset_version=17, do_constant_folding=True)
    m = onnx.load(str(path))
    fold_shape_arithmetic(m)
    onnx.save(m, str(path))
    return m


def random_inputs(n, seed):
    """n batch-1 inputs stacked along axis 0: [n, SEQ, D_MODEL]."""
    return np.random.default_rng(seed).standard_normal((n, SEQ, D_MODEL)).astype(np.float32)


_NUMPY_OPS = {
    "Gather": lambda a, i, axis=0: np.take(a, i, axis=axis),
    "Add": lambda a, b: a + b, "Sub": lambda a, b: a - b, "Mul": lambda a, b: a * b,
    "Div": lambda a, b: (a // b) if a.dtype.kind == "i" else a / b,
    "Unsqueeze": lambda a, axes: np.expand_dims(a, tuple(int(x) for x in axes)),
    "Concat": None, "Cast": None, "Identity": lambda a: a,
}


def fold_shape_arithmetic(model):
    """Replaces Shape of static tensors and integer arithmetic on constants by initializers."""
    g = model.graph
    inferred = shape_inference.infer_shapes(model).graph
    shapes = {}
    for vi in list(inferred.value_info) + list(inferred.input) + list(inferred.output):
        dims = [d.dim_value if d.HasField("dim_value") else None for d in vi.type.tensor_type.shape.dim]
        shapes[vi.name] = dims
    const = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    keep = []
    for n in g.node:
        val = None
        if n.op_type == "Constant":
            val = numpy_helper.to_array(n.attribute[0].t)
        elif n.op_type == "Shape" and shapes.get(n.input[0]) and None not in shapes[n.input[0]]:
            val = np.array(shapes[n.input[0]], dtype=np.int64)
        elif n.op_type in _NUMPY_OPS and all(i in const for i in n.input):
            args = [const[i] for i in n.input]
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            if n.op_type == "Concat":
                val = np.concatenate(args, axis=attrs["axis"])
            elif n.op_type == "Cast":
                val = args[0].astype(helper.tensor_dtype_to_np_dtype(attrs["to"]))
            elif n.op_type == "Unsqueeze":
                val = _NUMPY_OPS["Unsqueeze"](args[0], args[1])
            else:
                val = _NUMPY_OPS[n.op_type](*args, **attrs)
        if val is None:
            keep.append(n)
            continue
        val = np.asarray(val)
        const[n.output[0]] = val
        g.initializer.append(numpy_helper.from_array(val, n.output[0]))
    del g.node[:]
    g.node.extend(keep)
    # Drop initializers nobody reads.
    used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
    inits = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(inits)


def _split_gemm(model):
    """Gemm(A, B, C, transB) -> MatMul(A, B') + Add(C): the bias stays float."""
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    nodes = []
    for n in g.node:
        if n.op_type != "Gemm" or n.input[1] not in inits:
            nodes.append(n)
            continue
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        assert attrs.get("alpha", 1.0) == 1.0 and attrs.get("beta", 1.0) == 1.0 and not attrs.get("transA", 0)
        w = numpy_helper.to_array(inits[n.input[1]])
        if attrs.get("transB", 0):
            w = np.ascontiguousarray(w.T)
        wname = n.name + "_weight_kn"
        g.initializer.append(numpy_helper.from_array(w, wname))
        mm_out = n.output[0] + "_matmul"
        nodes.append(helper.make_node("MatMul", [n.input[0], wname], [mm_out], n.name + "_MatMul"))
        nodes.append(helper.make_node("Add", [mm_out, n.input[2]], [n.output[0]], n.name + "_Add"))
    del g.node[:]
    g.node.extend(nodes)


def _act_params(lo, hi):
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = np.float32((hi - lo) / 255.0) if hi > lo else np.float32(1.0)
    zp = int(np.clip(np.round(-128 - lo / scale), -128, 127))
    return scale, zp


def quantize_matmuls(float_model, float_path, calibration):
    """QDQ int8 on every MatMul with a constant weight. Returns the QDQ model."""
    m = onnx.ModelProto()
    m.CopyFrom(float_model)
    _split_gemm(m)
    tmp = str(float_path) + ".split.onnx"
    onnx.save(m, tmp)
    outs = ort_runner.run(tmp, {"input": calibration}, all_outputs=True, split_batch=True)
    outs["input"] = calibration
    g = m.graph
    inits = {i.name: i for i in g.initializer}
    nodes = []
    qdq_done = {}

    def qdq(name):
        if name in qdq_done:
            return qdq_done[name]
        scale, zp = _act_params(outs[name].min(), outs[name].max())
        s, z = name + "_scale", name + "_zp"
        g.initializer.append(numpy_helper.from_array(np.array(scale, np.float32), s))
        g.initializer.append(numpy_helper.from_array(np.array(zp, np.int8), z))
        nodes.append(helper.make_node("QuantizeLinear", [name, s, z], [name + "_q"], name + "_QuantizeLinear"))
        nodes.append(helper.make_node("DequantizeLinear", [name + "_q", s, z], [name + "_dq"],
                                      name + "_DequantizeLinear"))
        qdq_done[name] = name + "_dq"
        return name + "_dq"

    for n in list(g.node):
        if n.op_type != "MatMul" or n.input[1] not in inits:
            nodes.append(n)
            continue
        x = qdq(n.input[0])
        w = numpy_helper.to_array(inits[n.input[1]])
        wscale = np.float32(max(np.abs(w).max(), 1e-8) / 127.0)
        wq = np.clip(np.round(w / wscale), -127, 127).astype(np.int8)
        wn = n.input[1] + "_int8"
        g.initializer.append(numpy_helper.from_array(wq, wn))
        g.initializer.append(numpy_helper.from_array(np.array(wscale, np.float32), wn + "_scale"))
        g.initializer.append(numpy_helper.from_array(np.array(0, np.int8), wn + "_zp"))
        nodes.append(helper.make_node("DequantizeLinear", [wn, wn + "_scale", wn + "_zp"], [wn + "_dq"],
                                      wn + "_DequantizeLinear"))
        y = n.output[0]
        raw = y + "_raw"
        nodes.append(helper.make_node("MatMul", [x, wn + "_dq"], [raw], n.name))
        scale, zp = _act_params(outs[y].min(), outs[y].max())
        s, z = y + "_scale", y + "_zp"
        g.initializer.append(numpy_helper.from_array(np.array(scale, np.float32), s))
        g.initializer.append(numpy_helper.from_array(np.array(zp, np.int8), z))
        nodes.append(helper.make_node("QuantizeLinear", [raw, s, z], [y + "_q"], y + "_QuantizeLinear"))
        nodes.append(helper.make_node("DequantizeLinear", [y + "_q", s, z], [y], y + "_DequantizeLinear"))
    del g.node[:]
    g.node.extend(nodes)
    used = {i for n in g.node for i in n.input}
    keep = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    onnx.checker.check_model(m)
    return m


def build(folder):
    """Writes transformer_fp32.onnx, transformer_int8_qdq.onnx, inputs and ORT references."""
    folder.mkdir(parents=True, exist_ok=True)
    fp32_path = folder / "transformer_fp32.onnx"
    fp32 = export(fp32_path)
    qdq = quantize_matmuls(fp32, fp32_path, random_inputs(8, CALIBRATION_SEED))
    qdq_path = folder / "transformer_int8_qdq.onnx"
    onnx.save(qdq, str(qdq_path))
    (folder / "inputs").mkdir(exist_ok=True)
    (folder / "reference").mkdir(exist_ok=True)
    refs = random_inputs(3, REFERENCE_SEED)
    for i in range(len(refs)):
        x = refs[i:i + 1]
        np.save(folder / "inputs" / f"input_{i}.npy", x)
        out = ort_runner.run(qdq_path, {"input": x})
        np.save(folder / "reference" / f"output_{i}.npy", out["output"])
    return qdq_path
