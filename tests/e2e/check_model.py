"""End-to-end check: compile a quantized model with `systole compile`, run it
with `systole run`, and require bit-exact agreement with the ONNX Runtime
reference outputs stored next to the model (models/build_models.py).

usage: check_model.py SYSTOLE MODEL_DIR FORM HW BACKEND WORKDIR
"""
import json
import os
import subprocess
import sys

import numpy as np


def main():
    systole, model_dir, form, hw, backend, work = sys.argv[1:7]
    manifest = json.load(open(os.path.join(model_dir, "manifest.json")))
    name = manifest["name"]
    onnx_path = os.path.join(model_dir, f"{name}_int8_{form}.onnx")
    os.makedirs(work, exist_ok=True)
    npu = os.path.join(work, f"{name}_{form}.npu")
    subprocess.run([systole, "compile", onnx_path, "-o", npu, "--hw", hw, "-q"],
                   check=True)
    ref = manifest["reference"]
    inputs = ref["inputs"]
    failures = 0
    in_name = manifest["input"]["name"]
    out_name = manifest["output"]["name"]
    for i, rel in enumerate(inputs):
        out_dir = os.path.join(work, f"{name}_{form}_{i}")
        subprocess.run([systole, "run", npu, "--input",
                        f"{in_name}={os.path.join(model_dir, rel)}",
                        "--out-dir", out_dir, "--backend", backend],
                       check=True, stdout=subprocess.DEVNULL)
        got = np.load(os.path.join(out_dir, out_name + ".npy"))
        want = np.load(os.path.join(model_dir, f"ref_{form}", f"output_{i}.npy"))
        same = got.shape == want.shape and np.array_equal(got, want)
        diff = int((got != want).sum()) if got.shape == want.shape else -1
        print(f"{name} {form} input {i}: {'bit-exact' if same else 'MISMATCH'}"
              f" ({diff} of {want.size} values differ)")
        failures += not same
    print(f"{len(inputs) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
