#!/usr/bin/python3
"""Checks built model folders: ONNX validity, ORT runs, references, QDQ/QOp consistency.

usage: /usr/bin/python3 models/check_models.py [PATH ...]

Each PATH is a model folder (with manifest.json) or a folder of them; default:
build/cache/models and the committed models/digits. For every model:
  * onnx.checker (full check) accepts the fp32, QDQ and QOperator files, and
    their sha256 match the manifest (no stale or hand-edited files);
  * ORT (tools/ort/ort_run.js, reference settings) runs all three forms on the
    stored inputs and reproduces the stored references: int8 tensors exactly,
    float outputs to 1e-5 relative;
  * ORT fused the QDQ model completely: no float Conv/Gemm/MatMul left in the
    graph it executes;
  * QDQ and QOp int8 outputs agree (fraction of equal values; both forms encode
    the same integer graph, so less than MIN_QDQ_QOP_EQUAL fails); the same is
    reported over every intermediate int8 tensor the two forms share by name;
  * for information: how many int8 values (all tensors) change when ORT runs
    the QDQ model without session.qdqisint8allowed (the float DQ -> op -> Q
    path), and the cosine similarity of the int8 outputs to the float model's.
Exits 1 if any check fails.
"""

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

from systole_models import ort_runner
from systole_models.package import sha256_of
from systole_models.torch_export import op_counts

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = [REPO_ROOT / "build" / "cache" / "models", REPO_ROOT / "models" / "digits"]
MIN_QDQ_QOP_EQUAL = 0.99
FLOAT_RTOL = 1e-5
UNFUSED_FLOAT_OPS = {"Conv", "Gemm", "MatMul", "com.microsoft.nchwc.Conv", "com.microsoft.FusedConv",
                     "com.microsoft.FusedGemm", "com.microsoft.FusedMatMul"}


def find_model_dirs(paths):
    dirs = []
    for p in paths:
        p = Path(p)
        if (p / "manifest.json").is_file():
            dirs.append(p)
        elif p.is_dir():
            dirs.extend(sorted(d.parent for d in p.glob("*/manifest.json")))
    return dirs


class ModelCheck:
    def __init__(self, folder):
        self.folder = folder
        self.manifest = json.loads((folder / "manifest.json").read_text())
        self.failures = []
        self.refs_match = True
        try:
            where = folder.resolve().relative_to(REPO_ROOT)
        except ValueError:
            where = folder
        self.row = {"model": self.manifest["name"], "folder": str(where)}

    def expect(self, ok, message):
        if not ok:
            self.failures.append(message)
        return ok

    def path(self, rel):
        return self.folder / rel

    def load_refs(self, form, key):
        return [np.load(self.path(p)) for p in self.manifest["reference"][form][key]]

    def run(self):
        m = self.manifest
        inputs = np.concatenate([np.load(self.path(p)) for p in m["reference"]["inputs"]])
        in_name, out_name = m["input"]["name"], m["output"]["name"]
        int8_name = m["output"]["quant"]["int8_tensor"]
        outputs = {}
        for form, file in m["files"].items():
            model = onnx.load(str(self.path(file)))
            try:
                onnx.checker.check_model(model, full_check=True)
            except onnx.checker.ValidationError as e:
                self.expect(False, f"{file}: onnx.checker: {str(e).splitlines()[0]}")
            self.expect(sha256_of(self.path(file)) == m["sha256"][file], f"{file}: sha256 differs from manifest")
            is_int8 = form != "fp32"
            with tempfile.TemporaryDirectory() as tmp:
                optimized = Path(tmp) / "optimized.onnx"
                try:
                    outputs[form] = ort_runner.run(self.path(file), {in_name: inputs}, int8_outputs=is_int8,
                                                   split_batch=True, optimized_model=optimized)
                except ort_runner.OrtError as e:
                    self.expect(False, str(e))
                    continue
                executed = op_counts(onnx.load(str(optimized)))
            if form == "int8_qdq":
                unfused = sorted(set(executed) & UNFUSED_FLOAT_OPS)
                self.expect(not unfused, f"{file}: ORT left float ops unfused: {unfused}")
                self.row["qdq fused"] = "yes" if not unfused else "NO"
            refs = np.concatenate(self.load_refs(form, "output"))
            got = outputs[form][out_name]
            self.refs_match &= self.expect(
                np.allclose(got, refs, rtol=FLOAT_RTOL, atol=FLOAT_RTOL * np.abs(refs).max()),
                f"{file}: float output differs from the stored reference")
            if is_int8:
                same = np.array_equal(outputs[form][int8_name], np.concatenate(self.load_refs(form, "output_int8")))
                self.refs_match &= self.expect(same, f"{file}: int8 output differs from the stored reference")
        self.row["ort runs"] = f"{len(outputs)}/3"
        self.row["refs match"] = "yes" if self.refs_match else "NO"
        if len(outputs) < 3:
            return

        qdq, qop = outputs["int8_qdq"][int8_name], outputs["int8_qop"][int8_name]
        equal = float(np.mean(qdq == qop))
        self.row["qdq==qop int8"] = f"{equal:.4f} (max |d| {int(np.abs(qdq.astype(int) - qop).max())})"
        self.expect(equal >= MIN_QDQ_QOP_EQUAL, f"QDQ and QOp int8 outputs agree on only {equal:.2%}")

        frac, count = _equal_fraction(outputs["int8_qdq"], outputs["int8_qop"])
        self.row["qdq==qop all int8"] = f"{frac:.4f} ({count} tensors)"

        no_int8 = ort_runner.run(self.path(m["files"]["int8_qdq"]), {in_name: inputs}, int8_outputs=True,
                                 split_batch=True, qdq_int8=False)
        self.row["changed w/o qdqisint8allowed"] = f"{1 - _equal_fraction(no_int8, outputs['int8_qdq'])[0]:.2%}"

        fp32 = outputs["fp32"][out_name].reshape(len(inputs), -1)
        for form in ("int8_qdq", "int8_qop"):
            q = outputs[form][out_name].reshape(len(inputs), -1)
            cos = np.sum(fp32 * q, axis=1) / (np.linalg.norm(fp32, axis=1) * np.linalg.norm(q, axis=1))
            self.row[f"cos(fp32,{form[5:]})"] = f"{cos.min():.4f}"
        if "accuracy" in m:
            acc = m["accuracy"]
            self.row["accuracy fp32/qdq/qop"] = (f"{acc['ort_fp32']:.4f}/{acc['ort_int8_qdq']:.4f}/"
                                                 f"{acc['ort_int8_qop']:.4f}")


def _equal_fraction(a, b):
    """(fraction of equal values, tensor count) over the int8 tensors both result sets have."""
    names = [n for n in a if n in b and a[n].dtype in (np.int8, np.uint8) and a[n].shape == b[n].shape]
    equal = sum(int(np.sum(a[n] == b[n])) for n in names)
    total = sum(a[n].size for n in names)
    return (equal / total if total else 1.0), len(names)


def print_table(rows):
    columns = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in columns}
    print("  ".join(c.ljust(widths[c]) for c in columns))
    for row in rows:
        print("  ".join(str(row.get(c, "")).ljust(widths[c]) for c in columns))


def main():
    paths = sys.argv[1:] or DEFAULT_PATHS
    dirs = find_model_dirs(paths)
    if not dirs:
        print(f"check_models: no model folders (with manifest.json) under {', '.join(map(str, paths))}")
        return 1
    try:
        print(f"onnxruntime-node {ort_runner.ort_version()} from {ort_runner.ort_dir()}")
    except ort_runner.OrtError as e:
        print(f"check_models: {e}")
        return 1
    checks = []
    for d in dirs:
        print(f"checking {d}", flush=True)
        check = ModelCheck(d)
        check.run()
        check.row["status"] = "FAIL" if check.failures else "ok"
        checks.append(check)
    print()
    print_table([c.row for c in checks])
    failed = [c for c in checks if c.failures]
    for c in failed:
        for f in c.failures:
            print(f"FAIL {c.folder}: {f}")
    print(f"check_models: {len(checks) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
