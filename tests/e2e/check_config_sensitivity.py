"""Every tiling/DMA decision follows the hardware config: compile one model
for 8x8, 32x32 and 128x128 arrays and for two scratchpad sizes, require the
NPU instruction streams to differ pairwise, and every binary to run
bit-exact against ONNX Runtime.

usage: check_config_sensitivity.py SYSTOLE PRESET_DIR MODEL_DIR FORM WORKDIR
"""
import hashlib
import itertools
import json
import os
import subprocess
import sys

import numpy as np


def main():
    systole, presets, model_dir, form, work = sys.argv[1:6]
    os.makedirs(work, exist_ok=True)
    manifest = json.load(open(os.path.join(model_dir, "manifest.json")))
    name = manifest["name"]
    configs = {p: os.path.join(presets, p + ".json")
               for p in ("rtl-8x8", "default-32x32", "datacenter-128x128")}
    base = json.load(open(configs["default-32x32"]))
    for label, sp in (("sp-256k", 256 << 10), ("sp-2m", 2 << 20)):
        cfg = dict(base, name=label)
        cfg["sram"] = dict(base["sram"], scratchpad_bytes=sp)
        path = os.path.join(work, label + ".json")
        json.dump(cfg, open(path, "w"))
        configs[label] = path

    x = os.path.join(model_dir, manifest["reference"]["inputs"][0])
    want = np.load(os.path.join(model_dir, f"ref_{form}", "output_0.npy"))
    digests, failures = {}, 0
    for label, cfg in configs.items():
        npu = os.path.join(work, f"{name}-{label}.npu")
        subprocess.run([systole, "compile", os.path.join(model_dir, f"{name}_int8_{form}.onnx"),
                        "--hw", cfg, "-o", npu, "-q"], check=True)
        asm = subprocess.run([systole, "objdump", "-d", npu], check=True,
                             capture_output=True, text=True).stdout
        digests[label] = hashlib.sha256(asm.encode()).hexdigest()
        out = os.path.join(work, label)
        subprocess.run([systole, "run", npu, "--input", f"{manifest['input']['name']}={x}",
                        "--out-dir", out, "--backend", "functional"],
                       check=True, stdout=subprocess.DEVNULL)
        got = np.load(os.path.join(out, manifest["output"]["name"] + ".npy"))
        ok = np.array_equal(got, want)
        print(f"{label:20s} program {digests[label][:12]} {'bit-exact' if ok else 'MISMATCH'}")
        failures += not ok
    for a, b in itertools.combinations(digests, 2):
        if digests[a] == digests[b]:
            print(f"programs for {a} and {b} are identical")
            failures += 1
    total = len(configs) + len(list(itertools.combinations(digests, 2)))
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
