#!/usr/bin/python3
"""Host groups on a CUDA GPU: runs when a GPU is present, SKIP (exit 77) else.

usage: check_gpu_run.py SYSTOLE TRANSFORMER_MODEL_DIR WORK

Compiles the transformer encoder with --host-target gpu and runs its three
reference inputs. With a GPU, every ptx segment must have run on the GPU
(device "gpu" in the run report); the outputs must equal the CPU code of the
same binary (SYSTOLE_NO_GPU=1) bit for bit (the host code has no FP
contraction on either side, and the same polynomials), and are compared
with ONNX Runtime (cosine >= 0.999, max abs error < 0.05, both printed).
Without one, the run report says why the GPU code did not run, and the test
reports SKIP "no CUDA GPU present".
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "models"))
SKIP = 77

systole, model_dir, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
model = model_dir / "transformer_int8_qdq.onnx"
if not model.is_file():
    from systole_models import transformer
    transformer.build(model_dir)
npu = work / "transformer_gpu.npu"
subprocess.run([systole, "compile", str(model), "-o", str(npu), "--hw", "default-32x32", "-q",
                "--host-target", "gpu"], check=True)


def run(i, tag, env=None):
    out = work / f"{tag}_{i}"
    rep = work / f"{tag}_{i}.json"
    r = subprocess.run([systole, "run", str(npu), "--input", f"input={model_dir}/inputs/input_{i}.npy",
                        "--out-dir", str(out), "--backend", "functional", "--report", str(rep)],
                       check=True, capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    segs = [s for s in json.loads(rep.read_text())["segments"] if s["kind"] == "host"]
    return np.load(out / "output.npy").astype(np.float64).ravel(), segs, r.stdout


_, segs, text = run(0, "probe")
gpu_segs = [s for s in segs if s["name"].startswith("host_gpu:")]
assert gpu_segs, "the gpu-target binary has no ptx segments"
if all(s["host_device"] == "skipped" for s in gpu_segs):
    why = [l.strip() for l in text.splitlines() if "gpu code not run" in l]
    assert why, "the run report does not say why the GPU code did not run"
    print(f"SKIP: no CUDA GPU present; the run report says: {why[0]}")
    sys.exit(SKIP)
assert all(s["host_device"] == "gpu" for s in gpu_segs), \
    f"some ptx segments did not run on the GPU: {[s['host_device'] for s in gpu_segs]}"
print(f"GPU present: {len(gpu_segs)} host groups ran on the GPU")

worst_cpu = worst_ort = 0.0
for i in range(3):
    got, segs, _ = run(i, "gpu")
    cpu, csegs, _ = run(i, "cpu", {"SYSTOLE_NO_GPU": "1", "SYSTOLE_REQUIRE_GPU": "0"})
    assert all(s["host_device"] != "gpu" for s in csegs)
    ref = np.load(model_dir / "reference" / f"output_{i}.npy").astype(np.float64).ravel()
    d_cpu = float(np.abs(got - cpu).max())
    cos = float(got @ ref / (np.linalg.norm(got) * np.linalg.norm(ref)))
    d_ort = float(np.abs(got - ref).max())
    worst_cpu, worst_ort = max(worst_cpu, d_cpu), max(worst_ort, d_ort)
    n_cpu = int((got != cpu).sum())
    print(f"input_{i}: gpu vs cpu: {n_cpu} of {got.size} values differ, max abs {d_cpu:.3g}; "
          f"gpu vs ORT cosine {cos:.6f}, "
          f"max abs {d_ort:.3g}")
    assert n_cpu == 0, f"input_{i}: {n_cpu} values differ between the GPU and the CPU code"
    assert cos >= 0.999 and d_ort < 0.05
print(f"PASS gpu run: max abs error vs cpu {worst_cpu:.3g}, vs ORT {worst_ort:.3g}")
