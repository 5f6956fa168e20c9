#!/usr/bin/python3
"""Float32 ReduceSum / ReduceMean over trailing axes on the host is
bit-equal to ONNX Runtime's (docs/host.md, "Arithmetic as ORT's"): each row
is summed in the order of ORT's Eigen reduction
(compiler/lib/Conversion/GraphToLinalg/OrtReduce.cpp).

usage: check_ort_reduce.py SYSTOLE WORK

Cases: row lengths around and below the 4-float packet (3, 5, 7), with and
without a multiple of 4 (rows then start at different offsets from an
aligned boundary: 49 = Swin's window, 197 = ViT's tokens), long rows (768,
1000), two trailing axes, keepdims 0, ReduceSum, and a [1, 197, 768]
token mean (the ReduceMean of a decomposed LayerNorm in a QDQ model, which
ORT does not fuse because each op has its own Q/DQ). Inputs are
normals at mixed magnitudes, so another summation order shows up. Prints
values compared and differing per case; exits 1 on any difference.
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
rng = np.random.default_rng(17)
failed = 0


def check(name, op, shape, axes, keepdims=1, opset=13):
    global failed
    x = (rng.standard_normal(shape) * np.exp(rng.uniform(-2, 2, shape))).astype(np.float32)
    out_shape = [1 if d in axes else s for d, s in enumerate(shape)] if keepdims else \
        [s for d, s in enumerate(shape) if d not in axes]
    node = helper.make_node(op, ["x"], ["y"], axes=axes, keepdims=keepdims)
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    path = work / f"{name}.onnx"
    onnx.save(model, path)
    ref = ort_runner.run(path, {"x": x})["y"]
    npu = work / f"{name}.npu"
    subprocess.run([systole, "compile", str(path), "-o", str(npu), "-q"], check=True,
                   stderr=subprocess.DEVNULL)
    np.save(work / f"{name}_x.npy", x)
    out = work / f"{name}_out"
    subprocess.run([systole, "run", str(npu), "--input", f"x={work / (name + '_x.npy')}",
                    "--out-dir", str(out), "--backend", "functional", "-q"], check=True)
    got = np.load(out / "y.npy").reshape(ref.shape)
    differ = int((got != ref).sum())
    print(f"{name:24} {ref.size:5} values, {differ} differ")
    failed += differ


for n in (3, 5, 7, 49, 64, 197, 768, 1000):
    check(f"mean_rows_{n}", "ReduceMean", [24, n], [1])
check("sum_rows_197", "ReduceSum", [24, 197], [1], opset=12)  # axes an attribute
check("mean_two_axes", "ReduceMean", [6, 7, 9], [1, 2])
check("mean_no_keepdims", "ReduceMean", [2, 12, 49], [2], keepdims=0)
check("mean_tokens_3d", "ReduceMean", [1, 197, 768], [2])
sys.exit(1 if failed else 0)
