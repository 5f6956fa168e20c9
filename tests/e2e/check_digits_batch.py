"""Batched digits on the NPU: the 360 held-out images as one batch-360
binary. The NPU's top-1 accuracy must equal ONNX Runtime's int8 accuracy
(recorded by models/build_models.py), and the rows of the three reference
images must be bit-exact with ORT's outputs for them.

usage: check_digits_batch.py SYSTOLE DIGITS_DIR HW WORKDIR
"""
import json
import os
import subprocess
import sys

import numpy as np


def main():
    systole, digits, hw, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    images = np.load(os.path.join(digits, "heldout/images.npy"))
    labels = np.load(os.path.join(digits, "heldout/labels.npy"))
    n = images.shape[0]
    npu = os.path.join(work, "digits_batch.npu")
    subprocess.run([systole, "compile", os.path.join(digits, "digits_int8_qdq.onnx"),
                    "--input-shape", f"input={n}x1x8x8", "--hw", hw, "-o", npu, "-q"],
                   check=True)
    subprocess.run([systole, "run", npu, "--input",
                    "input=" + os.path.join(digits, "heldout/images.npy"),
                    "--out-dir", work, "--backend", "cycle"],
                   check=True, stdout=subprocess.DEVNULL)
    logits = np.load(os.path.join(work, "output.npy"))
    accuracy = float((logits.argmax(axis=1) == labels).mean())
    want = json.load(open(os.path.join(digits, "manifest.json")))["accuracy"]["ort_int8_qdq"]
    failures = 0
    print(f"NPU accuracy {accuracy:.4f}, ORT int8 accuracy {want:.4f}")
    failures += accuracy != want
    for i in range(3):
        x = np.load(os.path.join(digits, f"inputs/input_{i}.npy"))
        rows = [j for j in range(n) if np.array_equal(images[j:j + 1], x)]
        ref = np.load(os.path.join(digits, f"ref_qdq/output_{i}.npy"))
        ok = bool(rows) and np.array_equal(logits[rows[0]:rows[0] + 1], ref)
        print(f"reference input {i} (batch row {rows[:1]}): "
              f"{'bit-exact' if ok else 'MISMATCH'}")
        failures += not ok
    print(f"{4 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
