#!/usr/bin/python3
"""Model packages with --host-target gpu, run on a CUDA GPU and on the CPU.

usage: check_gpu_models.py SYSTOLE WORK MODEL_DIR... [--hw CONFIG] [--inputs N]

For every model package (a folder with manifest.json, inputs/ and ref_qdq/, as
models/build_models.py and bench/transformers.py write them) the QDQ model is
compiled with --host-target gpu and each of its first N reference inputs is
run twice on the functional backend: with SYSTOLE_REQUIRE_GPU=1 (every ptx
segment must run on the GPU, else the run fails) and with SYSTOLE_NO_GPU=1
(the CPU code of the same binary). Asserted per model:
  * every ptx segment ran on the GPU (host_device "gpu" in the run report)
    and every cpu_object twin was skipped;
  * the GPU's outputs are bit-identical to the CPU code's (the host code is
    compiled without FP contraction, exp/erf/tanh are the same polynomials,
    and fma is correctly rounded on both);
and reported: values that differ from ONNX Runtime's QDQ reference (and how
many quantization steps), the host segments' wall time on either device,
and where the GPU's went (the run report's gpu_phase_seconds: loading the
PTX modules, allocating the device images, copies in, kernels, copies out).
Without a GPU it prints SKIP and exits 77.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

SKIP = 77

ap = argparse.ArgumentParser()
ap.add_argument("systole")
ap.add_argument("work", type=Path)
ap.add_argument("models", nargs="+", type=Path)
ap.add_argument("--hw", default="default-32x32")
ap.add_argument("--inputs", type=int, default=1)
args = ap.parse_args()
args.work.mkdir(parents=True, exist_ok=True)


def model_inputs(pkg, manifest, i):
    specs = manifest.get("inputs") or [manifest["input"]]
    if len(specs) == 1:
        return [f"{specs[0]['name']}={pkg}/inputs/input_{i}.npy"]
    return [f"{s['name']}={pkg}/inputs/{s['name']}_{i}.npy" for s in specs]


def run(npu, inputs, out, env):
    rep = out.with_suffix(".json")
    cmd = [args.systole, "run", str(npu), "--out-dir", str(out), "--backend", "functional",
           "--report", str(rep)]
    for x in inputs:
        cmd += ["--input", x]
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **env))
    if r.returncode and "SYSTOLE_REQUIRE_GPU is set" in r.stderr:
        print("SKIP: no CUDA GPU here: " + r.stderr.strip().splitlines()[-1])
        sys.exit(SKIP)
    if r.returncode:
        sys.exit(f"FAIL {' '.join(cmd)}\n{r.stderr.strip()[-2000:]}")
    report = json.loads(rep.read_text())
    return report["segments"]


def host_wall(segs, device):
    return sum(s["wall_seconds"] for s in segs if s.get("host_device") == device)


PHASES = ("load_module", "allocate", "copy_in", "kernels", "copy_out")


def gpu_phases(segs):
    return [sum(s.get("gpu_phase_seconds", {}).get(p, 0.0) for s in segs) for p in PHASES]


def differing(a, b):
    """Values whose bytes differ (so -0.0 vs 0.0 and NaN payloads count)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return a.size
    ab = np.ascontiguousarray(a).view(np.uint8).reshape(a.size, -1)
    bb = np.ascontiguousarray(b).view(np.uint8).reshape(b.size, -1)
    return int((ab != bb).any(axis=1).sum())


failures = []
for pkg in args.models:
    manifest = json.loads((pkg / "manifest.json").read_text())
    name = manifest["name"]
    out_name = manifest["output"]["name"]
    scale = manifest["output"]["quant"]["scale"]
    npu = args.work / f"{name}_gpu.npu"
    subprocess.run([args.systole, "compile", str(pkg / f"{name}_int8_qdq.onnx"), "-o", str(npu),
                    "--hw", args.hw, "-q", "--host-target", "gpu"], check=True)
    differ_cpu = differ_ort = worst_steps = values = 0
    wall_gpu = wall_cpu = 0.0
    phases = [0.0] * len(PHASES)
    ptx = 0
    for i in range(args.inputs):
        ins = model_inputs(pkg, manifest, i)
        gsegs = run(npu, ins, args.work / f"{name}_gpu_{i}", {"SYSTOLE_REQUIRE_GPU": "1"})
        csegs = run(npu, ins, args.work / f"{name}_cpu_{i}",
                    {"SYSTOLE_NO_GPU": "1", "SYSTOLE_REQUIRE_GPU": "0"})
        names = [s["name"] for s in gsegs]
        ptx = sum(1 for n in names if n.startswith("host_gpu:"))
        devices = [s.get("host_device") for s in gsegs if s["name"].startswith("host_gpu:")]
        if ptx == 0:
            failures.append(f"{name}: no ptx segments")
        if any(d != "gpu" for d in devices):
            failures.append(f"{name}: ptx segments not on the GPU: {sorted(set(devices))}")
        if any(s.get("host_device") == "gpu" for s in csegs):
            failures.append(f"{name}: SYSTOLE_NO_GPU run used the GPU")
        wall_gpu += host_wall(gsegs, "gpu")
        phases = [a + b for a, b in zip(phases, gpu_phases(gsegs))]
        wall_cpu += host_wall(csegs, "cpu")
        got = np.load(args.work / f"{name}_gpu_{i}" / f"{out_name}.npy")
        cpu = np.load(args.work / f"{name}_cpu_{i}" / f"{out_name}.npy")
        ref = np.load(pkg / "ref_qdq" / f"output_{i}.npy")
        values += got.size
        differ_cpu += differing(got, cpu)
        if got.shape == ref.shape:
            steps = np.rint(np.abs(got.astype(np.float64) - ref.astype(np.float64)) / scale)
            differ_ort += int((steps > 0).sum())
            worst_steps = max(worst_steps, int(steps.max()))
        else:
            failures.append(f"{name}: output shape {got.shape} vs ORT {ref.shape}")
    if differ_cpu:
        failures.append(f"{name}: {differ_cpu} output bytes differ between GPU and CPU code")
    print(f"{name}: {ptx} ptx segments on the GPU, {args.inputs} input(s); GPU vs CPU code: "
          f"{differ_cpu} of {values} values differ; vs ORT: {differ_ort} differ "
          f"(max {worst_steps} steps); host wall gpu {wall_gpu * 1e3:.1f} ms, "
          f"cpu {wall_cpu * 1e3:.1f} ms; gpu phases (ms): " +
          ", ".join(f"{p} {t * 1e3:.1f}" for p, t in zip(PHASES, phases)), flush=True)

for f in failures:
    print("FAIL " + f)
if failures:
    sys.exit(1)
print(f"PASS gpu models: {len(args.models)} models")
