#!/usr/bin/python3
"""Float32 MatMul on the host is bit-equal to ONNX Runtime's (docs/host.md,
"Arithmetic as ORT's"): each output is summed in MLAS's SGEMM order
(compiler/lib/Conversion/GraphToLinalg/OrtGemm.cpp).

usage: check_ort_matmul.py SYSTOLE WORK [COMPILE FLAGS...]

Cases, each a float model the host runs (no quantization, so nothing but
the MatMul between the inputs and the output): the general kernels' FMA
chain within one K stride (attention's Q x K^T and P x V shapes, batched);
K beyond the stride, whose pieces MLAS adds one by one, under each branch
of MlasSgemmOperation's stride rule (N >= K: 128; N < K: 256, and 1024 for
N <= 16); M == 1, the AVX M1 kernel (rounded products in groups of 4, then
a group of 2 and of 1) from a 3-D and a 1-D A; a constant 2-D B, which ORT
prepacks (stride 256, no M1 kernel); a 2-D B that folds A's batch into M; a Div of A or a Mul of the result
by a scalar, which ORT fuses into SGEMM's alpha (com.microsoft.FusedMatMul;
Frontend/OrtFusions.cpp), one and several K strides, and with M == 1.
Inputs are normals at mixed magnitudes, so a different summation order
shows up. Prints values compared and differing per case; exits 1 on any
difference.
"""
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "models"))
from systole_models import ort_runner  # noqa: E402

systole, work = sys.argv[1], Path(sys.argv[2])
COMPILE_FLAGS = sys.argv[3:]  # e.g. --no-ort-fusions, to see what the fusion changes
work.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(11)
failed = 0


def values(shape):
    # Mixed magnitudes and signs: partial sums cancel and round differently
    # when summed in another order.
    return (rng.standard_normal(shape) *
            np.exp(rng.uniform(-3, 3, shape))).astype(np.float32)


def check(name, a_shape, b_shape, const_b=False, scale=None):
    """scale: ("div-a", c) for MatMul(A / c, B), ("mul-y", c) for
    MatMul(A, B) * c: ORT runs both as FusedMatMul with alpha."""
    global failed
    a, b = values(a_shape), values(b_shape)
    out_shape = np.matmul(a, b).shape
    inputs = [helper.make_tensor_value_info("a", TensorProto.FLOAT, a_shape)]
    inits = []
    if const_b:
        inits.append(numpy_helper.from_array(b, "b"))
    else:
        inputs.append(helper.make_tensor_value_info("b", TensorProto.FLOAT, b_shape))
    nodes = [helper.make_node("MatMul", ["a", "b"], ["y"])]
    if scale:
        inits.append(numpy_helper.from_array(np.array(scale[1], np.float32), "c"))
        if scale[0] == "div-a":
            nodes = [helper.make_node("Div", ["a", "c"], ["as"]),
                     helper.make_node("MatMul", ["as", "b"], ["y"])]
        else:
            nodes = [helper.make_node("MatMul", ["a", "b"], ["m"]),
                     helper.make_node("Mul", ["m", "c"], ["y"])]
    g = helper.make_graph(nodes, name, inputs,
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
                          initializer=inits)
    path = work / f"{name}.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
    feeds = {"a": a} if const_b else {"a": a, "b": b}
    npu, out = path.with_suffix(".npu"), work / f"{name}_out"
    subprocess.run([systole, "compile", str(path), "-o", str(npu), "-q"] + COMPILE_FLAGS,
                   check=True, stdout=subprocess.DEVNULL)
    cmd = [systole, "run", str(npu), "--out-dir", str(out), "--backend", "functional", "-q"]
    for k, v in feeds.items():
        np.save(work / f"{name}_{k}.npy", v)
        cmd += ["--input", f"{k}={work / f'{name}_{k}.npy'}"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    got = np.load(out / "y.npy")
    ref = ort_runner.run(path, feeds)["y"]
    diff = got.view(np.uint32) != ref.view(np.uint32)
    print(f"{name}: {got.size} values, {int(diff.sum())} differ from ORT")
    if diff.any():
        i = np.flatnonzero(diff)[0]
        print(f"  first at {i}: got={got.reshape(-1)[i]!r} ORT={ref.reshape(-1)[i]!r}")
        failed += 1


check("qk-scores", (2, 4, 8, 16), (2, 4, 16, 8))          # one FMA chain
check("pv-heads", (1, 6, 50, 50), (1, 6, 50, 32))
check("k300-n64", (3, 40, 300), (3, 300, 64))             # N < K: stride 256
check("k200-n256", (1, 20, 200), (1, 200, 256))           # N >= K: stride 128
check("k1100-n10", (2, 16, 1100), (2, 1100, 10))          # N <= 16: stride 1024
check("m1-k37", (3, 1, 37), (3, 37, 24))                  # M1 kernel: 9 groups + 1
check("m1-k39", (2, 1, 39), (2, 39, 40))                  # 9 groups + 2 + 1
check("m1-k3", (4, 1, 3), (4, 3, 5))                      # a group of 2, then 1
check("m1-vector", (37,), (37, 24))                       # 1-D A: M == 1
check("fold-batch", (2, 3, 50), (50, 20))                 # 2-D B: M = 6
check("packed-k600", (5, 600), (600, 40), const_b=True)   # prepacked: stride 256
check("packed-m1", (1, 300), (300, 16), const_b=True)     # prepacked: no M1 kernel
# ORT's MatMulScaleFusion: the scale becomes SGEMM's alpha (one K stride:
# the sum times alpha; several: each stride's sum added by an FMA).
check("div-a-k16", (4, 8, 16), (4, 16, 8), scale=("div-a", 2.828427))
check("div-a-k300", (2, 8, 300), (2, 300, 64), scale=("div-a", 8.0001))
check("mul-y-k200", (1, 20, 200), (1, 200, 256), scale=("mul-y", 0.3))
check("mul-y-m1", (3, 1, 37), (3, 37, 24), scale=("mul-y", 0.3))  # no M1 kernel
sys.exit(1 if failed else 0)
