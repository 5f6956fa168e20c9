"""Runs ONNX models through tools/ort/ort_run.js, the project's ORT reference.

Python has no onnxruntime here (PyPI is unreachable); the reference is the npm
package onnxruntime-node, so every ORT call goes through the Node CLI. Going
through the same CLI as the rest of the project also guarantees that the
session settings (default optimization level, session.qdqisint8allowed=1) are
the ones the reference files are made with.
"""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
ORT_RUN_JS = REPO_ROOT / "tools" / "ort" / "ort_run.js"


class OrtError(RuntimeError):
    pass


def ort_dir():
    return Path(os.environ.get("SYSTOLE_ORT_DIR", REPO_ROOT / "build" / "ort"))


def ort_version():
    """Version of the onnxruntime-node that ort_run.js will load."""
    pkg = ort_dir() / "node_modules" / "onnxruntime-node" / "package.json"
    if not pkg.is_file():
        raise OrtError(
            f"onnxruntime-node not found under {ort_dir()}: run tools/setup.sh "
            "(it installs onnxruntime-node into build/ort) or set SYSTOLE_ORT_DIR"
        )
    return json.loads(pkg.read_text())["version"]


def run(model, feeds, *, all_outputs=False, int8_outputs=False, extra_outputs=(), qdq_int8=True,
        split_batch=False, optimized_model=None):
    """Runs `model` (path) on `feeds` ({input name: array}) and returns {output name: array}.

    split_batch feeds a batch-1 model with N samples (one ORT run each); the
    outputs come back concatenated along axis 0. all_outputs / int8_outputs /
    extra_outputs expose intermediate tensors (see ort_run.js --help).
    """
    ort_version()  # fail early with the setup hint rather than a Node stack trace
    node = shutil.which("node")
    if node is None:
        raise OrtError("node (Node.js) is not on PATH; it is needed to run onnxruntime-node")
    with tempfile.TemporaryDirectory(prefix="systole_ort_") as tmp:
        tmp = Path(tmp)
        cmd = [node, str(ORT_RUN_JS), str(model), "--out-dir", str(tmp / "out"), "--quiet"]
        for i, (name, array) in enumerate(feeds.items()):
            path = tmp / f"in_{i}.npy"
            np.save(path, np.ascontiguousarray(array))
            cmd += ["--input", f"{name}={path}"]
        if all_outputs:
            cmd.append("--all-outputs")
        if int8_outputs:
            cmd.append("--int8-outputs")
        for name in extra_outputs:
            cmd += ["--output", name]
        if not qdq_int8:
            cmd.append("--no-qdq-int8")
        if split_batch:
            cmd.append("--split-batch")
        if optimized_model is not None:
            cmd += ["--optimized-model", str(optimized_model)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise OrtError(f"ort_run.js failed on {model}:\n{proc.stderr.strip()}")
        index = json.loads((tmp / "out" / "outputs.json").read_text())
        return {o["name"]: np.load(tmp / "out" / o["file"]) for o in index["outputs"]}
