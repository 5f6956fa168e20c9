#!/usr/bin/python3
"""Transformer encoder (2 layers, int8 matmuls) through the host fallback.

usage: check_transformer.py SYSTOLE MODEL_DIR WORK [--host-target cpu|gpu|gpu-emulation]

Builds the model into MODEL_DIR if absent (models/systole_models/transformer),
compiles it, checks the compile report places every quantized matmul and
GELU (a table) on the NPU and softmax / layer norm on the host, runs the reference inputs on
the functional backend and compares with ONNX Runtime on the same
QDQ model: every output bit-equal (cosine and max abs error printed).
"""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "models"))

systole, model_dir, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
host_target = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--host-target" else "cpu"
work.mkdir(parents=True, exist_ok=True)
model = model_dir / "transformer_int8_qdq.onnx"
if not model.is_file():
    from systole_models import transformer
    transformer.build(model_dir)

npu = work / "transformer.npu"
report = work / "compile.json"
subprocess.run([systole, "compile", str(model), "-o", str(npu), "--hw", "default-32x32", "-q",
                "--host-target", host_target, "--report", str(report)], check=True)
layers = json.loads(report.read_text())["layers"]
npu_matmuls = [l for l in layers if l["placement"] == "npu" and "matmul" in l["op"]]
host_ops = "+".join(l["mapping"] for l in layers if l["placement"] == "host")
print(f"compile: {len(npu_matmuls)} int8 matmuls on the NPU; host groups: "
      f"{sum(l['placement'] == 'host' for l in layers)}")
assert len(npu_matmuls) == 8, f"expected 8 int8 matmuls on the NPU, got {len(npu_matmuls)}"
for op in ("softmax", "layer_norm", "matmul"):
    assert op in host_ops, f"{op} is not on the host: {host_ops}"
# GELU (erf) reads the NPU bias add's int8 result: a VLUT table layer on
# the NPU (npu-fold-tables, standalone), not host code.
tables = [l for l in layers if l["placement"] == "npu" and l["op"] == "graph.table"]
assert "erf" not in host_ops and tables, f"GELU is not an NPU table: {host_ops}"

worst = 0.0
for i in range(3):
    out = work / f"out_{i}"
    r = subprocess.run([systole, "run", str(npu), "--input", f"input={model_dir}/inputs/input_{i}.npy",
                        "--out-dir", str(out), "--backend", "functional",
                        "--report", str(work / f"run_{i}.json")], check=True,
                       capture_output=True, text=True)
    segs = [s for s in json.loads((work / f"run_{i}.json").read_text())["segments"]
            if s["kind"] == "host" and s["host_device"] != "builtin"]
    if host_target == "gpu":
        # Each group: a ptx segment, then its cpu_object fallback; exactly one
        # of the two runs (gpu when a GPU is present, else cpu).
        assert len(segs) % 2 == 0 and segs, "expected ptx + cpu_object pairs"
        for g, c in zip(segs[0::2], segs[1::2]):
            assert g["name"].startswith("host_gpu:") and c["name"].startswith("host:"), (g, c)
            assert (g["host_device"], c["host_device"]) in (("gpu", "skipped"),
                                                            ("skipped", "cpu")), (g, c)
        used = {g["host_device"] == "gpu" and "gpu" or "cpu" for g in segs[0::2]}
        assert len(used) == 1, "some groups ran on the GPU and some did not"
        if i == 0:
            print(f"{len(segs) // 2} host groups ran on the {used.pop()}")
            for l in r.stdout.splitlines():
                if "gpu code not run" in l:
                    print(l.strip())
    else:
        assert all(s["host_device"] == "cpu" for s in segs), segs
    if i == 0:
        print("\n".join(l for l in r.stdout.splitlines() if "host" in l.lower() or l.startswith("  ")
                        and ("cpu" in l or "gpu" in l or "skipped" in l)))
    got = np.load(out / "output.npy").astype(np.float64).ravel()
    ref = np.load(model_dir / "reference" / f"output_{i}.npy").astype(np.float64).ravel()
    cos = float(got @ ref / (np.linalg.norm(got) * np.linalg.norm(ref)))
    err = float(np.abs(got - ref).max())
    worst = max(worst, err)
    differ = int(np.count_nonzero(np.load(out / "output.npy").view(np.uint32) !=
                                  np.load(model_dir / "reference" / f"output_{i}.npy").view(np.uint32)))
    print(f"input_{i}: {differ} of {got.size} outputs differ from ORT's bits; cosine {cos:.6f}, "
          f"max abs error {err:.3g}")
    # The host's float math is ORT's (docs/host.md: Softmax, LayerNorm, the
    # attention matmuls in SGEMM's order with ORT's scale fusion).
    assert differ == 0, f"{differ} outputs differ from ORT"
print(f"PASS transformer ({host_target}): max abs error {worst:.3g}")
