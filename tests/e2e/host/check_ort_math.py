#!/usr/bin/python3
"""Float functions the host computes with ONNX Runtime's own formulas are
bit-equal to ORT (docs/host.md, "Arithmetic as ORT's").

usage: check_ort_math.py SYSTOLE WORK

- Sigmoid on float32: MLAS's logistic kernel (clamp to [-18, 18], rational
  polynomial by FMAs, p / q + 0.5). Inputs: a dense sweep of [-20, 20], the
  clamp edges, +-0, denormals, +-inf and large values, plus random normals;
  every output must have ORT's bits.
- BatchNormalization (inference): ORT folds the statistics into
  y = x * s + (B - mean * s), s = scale / sqrt(var + eps); every output must
  have ORT's bits.
- QDQ Sigmoid (ORT: com.microsoft.QLinearSigmoid, a 256-entry table built
  with the same kernel): all 256 int8 input codes, output equal.
- Tanh and Erf on float32: MLAS's FMA3 kernels (Eigen's rational tanh on
  [-9, 9]; erf's two polynomials split at 0.921875 with its own exp); Exp:
  MLAS's AVX512F exp. 2^20 inputs each: a dense sweep, random normals and
  the special values. Pow with a constant exponent 2 or 3 (ORT multiplies)
  and 1.7 (powf).
- Softmax on float32: MLAS's AVX512F order (exp by FMAs and VSCALEFPS, sums
  in 16 lanes and the kernel's reduction tree, then e * (1 / sum)); row
  widths 1 to 33 (every tail of a 16-lane chunk, one and two chunks), 47-49,
  64, 77, 197, 384, 1000, a middle axis (opset 13) and the
  opset-11 coercion to 2-D.
- QDQ islands DQ -> Exp/Tanh/Erf -> Q over all 256 int8 codes, and DQ ->
  Softmax -> Q over rows holding every code, at three input scales.
- ORT's fusions: a decomposed LayerNorm (opset 13) and a decomposed erf
  GELU (0.5 multiplied first or last) against ORT, which runs them as its
  LayerNormalization and Gelu kernels.
Prints the number of values compared and differing per case; exits 1 on any
difference.
"""
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "models"))
from systole_models import ort_runner  # noqa: E402

systole, work = sys.argv[1], Path(sys.argv[2])
work.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(7)


def save(name, nodes, in_shape, out_shape, inits=()):
    g = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        initializer=list(inits))
    path = work / f"{name}.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


def systole_run(path, x):
    npu, out = path.with_suffix(".npu"), work / (path.stem + "_out")
    xin = work / (path.stem + "_x.npy")
    np.save(xin, x)
    subprocess.run([systole, "compile", str(path), "-o", str(npu), "-q"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([systole, "run", str(npu), "--input", f"x={xin}", "--out-dir", str(out),
                    "--backend", "functional", "-q"], check=True, stdout=subprocess.DEVNULL)
    return np.load(out / "y.npy")


def same_bits(a, b):
    a, b = np.ascontiguousarray(a, np.float32), np.ascontiguousarray(b, np.float32)
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))


failed = 0


def check(name, path, x):
    global failed
    got, ref = systole_run(path, x), ort_runner.run(path, {"x": x})["y"]
    if got.shape != ref.shape:
        print(f"{name}: FAIL shape {got.shape} != ORT {ref.shape}")
        failed += 1
        return
    diff = ~same_bits(got, ref)
    print(f"{name}: {got.size} values, {int(diff.sum())} differ from ORT")
    if diff.any():
        i = np.flatnonzero(diff)[0]
        print(f"  first at {i}: x={x.reshape(-1)[i]!r} got={got.reshape(-1)[i]!r} "
              f"ORT={ref.reshape(-1)[i]!r}")
        failed += 1


# Sigmoid, float32.
special = np.array([0.0, -0.0, 18.0, -18.0, 17.999998, -17.999998, 18.000002, -18.000002,
                    1e-45, -1e-45, 1e-38, 88.7, -88.7, 1e30, -1e30, np.inf, -np.inf],
                   np.float32)
sweep = np.linspace(-20, 20, 65536 - 8192 - special.size, dtype=np.float32)
x = np.concatenate([special, sweep, rng.standard_normal(8192).astype(np.float32) * 4])
x = x.reshape(1, -1).astype(np.float32)
check("sigmoid_f32", save("sigmoid_f32", [helper.make_node("Sigmoid", ["x"], ["y"])],
                          list(x.shape), list(x.shape)), x)

# BatchNormalization, inference, float32.
C = 16
inits = [helper.make_tensor(n, TensorProto.FLOAT, [C], v) for n, v in (
    ("scale", rng.standard_normal(C) * 2), ("bias", rng.standard_normal(C)),
    ("mean", rng.standard_normal(C)), ("var", rng.random(C) * 3 + 1e-3))]
bn = save("batchnorm_f32", [helper.make_node(
    "BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"], epsilon=1e-5)],
    [2, C, 9, 11], [2, C, 9, 11], inits)
check("batchnorm_f32", bn, (rng.standard_normal((2, C, 9, 11)) * 3).astype(np.float32))

# QDQ Sigmoid over every int8 code: x = (code - zp) * scale exactly.
XS, XZ, YS, YZ = 0.0625, 3, 1.0 / 256, -128
q = [helper.make_tensor("xs", TensorProto.FLOAT, [], [XS]),
     helper.make_tensor("xz", TensorProto.INT8, [], [XZ]),
     helper.make_tensor("ys", TensorProto.FLOAT, [], [YS]),
     helper.make_tensor("yz", TensorProto.INT8, [], [YZ])]
qdq = save("qdq_sigmoid", [
    helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
    helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
    helper.make_node("Sigmoid", ["xd"], ["s"]),
    helper.make_node("QuantizeLinear", ["s", "ys", "yz"], ["sq"]),
    helper.make_node("DequantizeLinear", ["sq", "ys", "yz"], ["y"])], [1, 256], [1, 256], q)
codes = np.arange(-128, 128, dtype=np.float32)
check("qdq_sigmoid_all_codes", qdq, ((codes - XZ) * XS).reshape(1, 256).astype(np.float32))

# Tanh and Erf, float32: 2^20 inputs each.
special = np.array([0.0, -0.0, 9.0, -9.0, 8.999999, 9.000001, 0.921875, -0.921875,
                    0.92187494, 3.925, -3.925, 3.9250002, 1e-45, -1e-45, 1e-38, 88.7,
                    -88.7, 1e30, -1e30, np.inf, -np.inf], np.float32)
n = 1 << 20
sweep = np.linspace(-12, 12, n - 131072 - special.size, dtype=np.float32)
x = np.concatenate([special, sweep, rng.standard_normal(131072).astype(np.float32) * 2])
x = x.reshape(1, -1).astype(np.float32)
for op in ("Tanh", "Erf"):
    name = f"{op.lower()}_f32"
    check(name, save(name, [helper.make_node(op, ["x"], ["y"])], list(x.shape),
                     list(x.shape)), x)
# Exp over its whole range: underflow to denormals and 0 below -87, overflow
# to inf above 88.72.
sweep = np.linspace(-110, 90, n - 131072 - special.size, dtype=np.float32)
xe = np.concatenate([special, sweep, rng.standard_normal(131072).astype(np.float32) * 8])
xe = xe.reshape(1, -1).astype(np.float32)
check("exp_f32", save("exp_f32", [helper.make_node("Exp", ["x"], ["y"])], list(xe.shape),
                      list(xe.shape)), xe)

# Pow with a constant exponent: ORT multiplies for 2 and 3, calls powf
# otherwise.
xp = (rng.standard_normal((1, 65536)) * 3).astype(np.float32)
for e in (2.0, 3.0, 1.7):
    name = f"pow_f32_{e}"
    check(name, save(name, [helper.make_node("Pow", ["x", "e"], ["y"])], list(xp.shape),
                     list(xp.shape), [helper.make_tensor("e", TensorProto.FLOAT, [], [e])]),
          np.abs(xp) if e == 1.7 else xp)

# Softmax, float32: row widths, a middle axis, the opset-11 coercion.
for width in list(range(1, 34)) + [47, 48, 49, 64, 77, 197, 384, 1000]:
    rows = (rng.standard_normal((8, width)) * rng.choice([0.5, 3.0, 12.0], (8, 1)))
    name = f"softmax_f32_w{width}"
    check(name, save(name, [helper.make_node("Softmax", ["x"], ["y"], axis=-1)],
                     [8, width], [8, width]), rows.astype(np.float32))
mid = (rng.standard_normal((2, 19, 5, 3)) * 4).astype(np.float32)
check("softmax_f32_axis1", save("softmax_f32_axis1", [helper.make_node(
    "Softmax", ["x"], ["y"], axis=1)], [2, 19, 5, 3], [2, 19, 5, 3]), mid)


def save11(name, nodes, shape):
    g = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    path = work / f"{name}.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)]), path)
    return path


check("softmax_f32_opset11", save11("softmax_f32_opset11", [helper.make_node(
    "Softmax", ["x"], ["y"], axis=1)], [2, 19, 5, 3]), mid)


# QDQ islands over every int8 code: DQ -> f -> Q -> DQ.
def island(name, op, xs, shape, **attrs):
    q = [helper.make_tensor("xs", TensorProto.FLOAT, [], [xs]),
         helper.make_tensor("xz", TensorProto.INT8, [], [0]),
         helper.make_tensor("ys", TensorProto.FLOAT, [], [YS]),
         helper.make_tensor("yz", TensorProto.INT8, [], [0 if op != "Softmax" else -128])]
    return save(name, [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node(op, ["xd"], ["s"], **attrs),
        helper.make_node("QuantizeLinear", ["s", "ys", "yz"], ["sq"]),
        helper.make_node("DequantizeLinear", ["sq", "ys", "yz"], ["y"])], shape, shape, q)


for xs in (0.02, 0.0625, 0.25):
    codes = np.arange(-128, 128, dtype=np.float32).reshape(1, 256) * np.float32(xs)
    for op in ("Exp", "Tanh", "Erf"):
        name = f"qdq_{op.lower()}_s{xs}"
        check(name, island(name, op, xs, [1, 256]), codes.astype(np.float32))
    # Softmax rows: every code once per row, in a different order per row.
    perm = np.stack([rng.permutation(256) for _ in range(16)])
    rows = (np.arange(-128, 128, dtype=np.float32)[perm] * np.float32(xs)).astype(np.float32)
    name = f"qdq_softmax_s{xs}"
    check(name, island(name, "Softmax", xs, [16, 256], axis=-1), rows)

# ORT's fusions (OrtFusions.cpp): a decomposed LayerNorm (opset 13, as
# PyTorch exports it) runs as ORT's LayerNormalization kernel, a decomposed
# erf GELU (both orders of the final multiplies) as its Gelu kernel.
D = 384
xl = (rng.standard_normal((32, D)) * 2 + 0.5).astype(np.float32)
c = lambda n, v: helper.make_tensor(n, TensorProto.FLOAT, [], [v])  # noqa: E731
ln_inits = [c("two", 2.0), c("eps", 1e-5),
            helper.make_tensor("sc", TensorProto.FLOAT, [D], rng.standard_normal(D)),
            helper.make_tensor("bi", TensorProto.FLOAT, [D], rng.standard_normal(D))]
check("layernorm_decomposed", save("layernorm_decomposed", [
    helper.make_node("ReduceMean", ["x"], ["m"], axes=[-1]),
    helper.make_node("Sub", ["x", "m"], ["d"]),
    helper.make_node("Pow", ["d", "two"], ["d2"]),
    helper.make_node("ReduceMean", ["d2"], ["v"], axes=[-1]),
    helper.make_node("Add", ["v", "eps"], ["ve"]),
    helper.make_node("Sqrt", ["ve"], ["sd"]),
    helper.make_node("Div", ["d", "sd"], ["n"]),
    helper.make_node("Mul", ["n", "sc"], ["ns"]),
    helper.make_node("Add", ["ns", "bi"], ["y"])], [32, D], [32, D], ln_inits), xl)
gelu_inits = [c("s2", 1.4142135381698608), c("one", 1.0), c("half", 0.5)]
head = [helper.make_node("Div", ["x", "s2"], ["a"]), helper.make_node("Erf", ["a"], ["e"]),
        helper.make_node("Add", ["e", "one"], ["f"])]
check("gelu_decomposed_half_first", save("gelu_decomposed_half_first", head + [
    helper.make_node("Mul", ["x", "half"], ["h"]),
    helper.make_node("Mul", ["h", "f"], ["y"])], [32, D], [32, D], gelu_inits), xl)
check("gelu_decomposed_half_last", save("gelu_decomposed_half_last", head + [
    helper.make_node("Mul", ["x", "f"], ["g"]),
    helper.make_node("Mul", ["g", "half"], ["y"])], [32, D], [32, D], gelu_inits), xl)

print("FAILED" if failed else "all equal to ORT")
sys.exit(1 if failed else 0)
