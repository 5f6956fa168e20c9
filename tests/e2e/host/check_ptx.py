#!/usr/bin/python3
"""--host-target gpu: the PTX is valid (ptxas) and the binaries run correctly.

usage: check_ptx.py SYSTOLE WORK TRANSFORMER_MODEL_DIR [--gpu-arch sm_XY] [--data NODE_DIR]

1. The float ONNX node tests pinned as PASS in
   tests/lit/conformance/host-float-node-tests.test are compiled with
   --host-target gpu and run: every one must still pass (on a machine without
   a GPU this is the CPU fallback of the gpu-target binary; with a GPU, the
   PTX). Every binary with compiled host code must carry as many ptx segments
   as cpu_object segments.
2. ptxas (PATH, else /usr/local/cuda*/bin) assembles every PTX module of the
   node tests and of the transformer encoder for the target architecture.
   Without ptxas the test prints SKIP and exits 77 (ctest: skipped).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "models"))
SKIP = 77

systole, work, model_dir = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
opts = dict(zip(sys.argv[4::2], sys.argv[5::2]))
arch = opts.get("--gpu-arch", "sm_75")
# The ONNX node tests (default: Debian's libonnx-testdata).
node_data = opts.get("--data")

ptxas = shutil.which("ptxas")
if not ptxas:
    found = sorted(glob.glob("/usr/local/cuda*/bin/ptxas"))
    ptxas = found[-1] if found else None
if not ptxas:
    print("SKIP: ptxas not found (PATH, /usr/local/cuda*/bin): the PTX of "
          "--host-target gpu cannot be checked on this machine")
    sys.exit(SKIP)
version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
print(f"ptxas: {ptxas} ({version.strip().splitlines()[-1]}), arch {arch}")

shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)

# 1. Node tests through gpu-target binaries.
lit = (REPO / "tests/lit/conformance/host-float-node-tests.test").read_text()
filt = re.search(r"--filter '([^']+)'", lit).group(1)
pinned = set(re.findall(r"CHECK-DAG: PASS\s+(\S+)", lit))
npus = work / "node"
r = subprocess.run([systole, "conformance", "--filter", filt, "--host-target", "gpu",
                    "--gpu-arch", arch, "--save-npu", str(npus)] +
                   (["--data", node_data] if node_data else []),
                   capture_output=True, text=True, check=True)
passed = set(re.findall(r"^PASS\s+(\S+)", r.stdout, re.M))
print(r.stdout.strip().splitlines()[-1])
missing = sorted(pinned - passed)
for line in r.stdout.splitlines():
    if any(line.split()[1:2] == [m] for m in missing):
        print("  " + line)
assert not missing, f"{len(missing)} pinned node tests fail with --host-target gpu: {missing}"
print(f"node tests: all {len(pinned)} pinned tests pass with gpu-target binaries")


def extract(npu, into):
    listing = subprocess.run([systole, "objdump", str(npu), "--extract-host-code", str(into)],
                             check=True, capture_output=True, text=True).stdout
    ptx = sorted(into.glob("*.ptx"))
    # Every ptx segment is followed by its CPU fallback (an entry of the
    # program's host library).
    cpu = re.findall(r"^\s+\[\d+\] host '[^']*' cpu_object entry", listing, re.M)
    assert len(ptx) == len(cpu), f"{npu}: {len(ptx)} ptx vs {len(cpu)} cpu_object segments"
    return ptx


ptx_files = []
for npu in sorted(npus.glob("*.npu")):
    if npu.name.split(".")[0] not in pinned:
        continue
    ptx_files += extract(npu, work / "ptx" / npu.stem)
node_ptx = len(ptx_files)

# The transformer encoder (build it if absent, like e2e.host.transformer).
model = model_dir / "transformer_int8_qdq.onnx"
if not model.is_file():
    from systole_models import transformer
    transformer.build(model_dir)
tnpu = work / "transformer_gpu.npu"
subprocess.run([systole, "compile", str(model), "-o", str(tnpu), "--hw", "default-32x32", "-q",
                "--host-target", "gpu", "--gpu-arch", arch], check=True)
ptx_files += extract(tnpu, work / "ptx" / "transformer")

# 2. ptxas on every module.
kernels = 0
bad = []
for f in ptx_files:
    text = f.read_text()
    kernels += text.count(".entry ")
    assert f".target {arch}" in text, f"{f}: not targeting {arch}"
    p = subprocess.run([ptxas, f"-arch={arch}", str(f), "-o", os.devnull],
                       capture_output=True, text=True)
    if p.returncode:
        bad.append(f"{f}: {p.stderr.strip()[:300]}")
for b in bad:
    print("ptxas FAILED " + b)
print(f"ptxas: {len(ptx_files) - len(bad)}/{len(ptx_files)} PTX modules assembled "
      f"({node_ptx} from node tests, {len(ptx_files) - node_ptx} from the transformer), "
      f"{kernels} kernels")
assert node_ptx > 50, f"only {node_ptx} PTX modules from the node tests"
assert len(ptx_files) > node_ptx, "the transformer has no PTX"
assert not bad, f"{len(bad)} PTX modules rejected by ptxas"
print("PASS")
