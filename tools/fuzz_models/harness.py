"""Compile, run and compare one graph against ONNX Runtime.

A case directory holds model.onnx, input_<name>.npy, hw.json (or the preset
name in case.json) and, once ORT ran, ref_<output>.npy. check_case() returns
a Result: passed, failed (with a one-line reason) or skipped (the graph is
not a test: ORT rejects it, or the hardware config is too small for it).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "models"))
from systole_models import ort_runner  # noqa: E402

# Ops that, left in ORT's optimized graph, mean ORT computed in float there.
ORT_DATA_MOVEMENT = {"QuantizeLinear", "DequantizeLinear", "Reshape", "Transpose", "Flatten",
                     "Squeeze", "Unsqueeze", "Identity", "MaxPool", "GlobalMaxPool", "Concat"}
# Compile errors that say the graph does not fit the hardware config (skip, not a bug).
TOO_SMALL = ("cannot hold", "does not fit", "too small", "needs at least", "exceeds")


class Result:
    def __init__(self, status, kind="", msg="", cycles=None):
        self.status, self.kind, self.msg, self.cycles = status, kind, msg, cycles

    def __repr__(self):
        return f"Result({self.status}, {self.kind}, {self.msg})"


def save_case(case, model, feeds, info, hw):
    case = Path(case)
    case.mkdir(parents=True, exist_ok=True)
    onnx.save(model, case / "model.onnx")
    for name, arr in feeds.items():
        np.save(case / f"input_{name}.npy", arr)
    rec = {"info": info}
    if isinstance(hw, dict):
        (case / "hw.json").write_text(json.dumps(hw, indent=1) + "\n")
        rec["hw"] = "hw.json"
    else:
        rec["hw"] = hw
    (case / "case.json").write_text(json.dumps(rec, indent=1) + "\n")


def load_case(case):
    case = Path(case)
    rec = json.loads((case / "case.json").read_text())
    feeds = {p.name[len("input_"):-4]: np.load(p) for p in sorted(case.glob("input_*.npy"))}
    hw = str(case / rec["hw"]) if rec["hw"].endswith(".json") else rec["hw"]
    return rec, feeds, hw


def ort_reference(case, feeds):
    """ORT's outputs (written as ref_<name>.npy) and the float ops ORT kept."""
    case = Path(case)
    outs = ort_runner.run(case / "model.onnx", feeds, optimized_model=case / "ort_optimized.onnx")
    for name, arr in outs.items():
        np.save(case / f"ref_{name}.npy", arr)
    opt = onnx.load(case / "ort_optimized.onnx")
    float_ops = sorted({n.op_type for n in opt.graph.node
                        if n.op_type not in ORT_DATA_MOVEMENT and not n.op_type.startswith("QLinear")
                        and n.op_type not in ("QGemm",)})
    (case / "ort_optimized.onnx").unlink()
    return outs, float_ops


def _run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout} s"
    return p.returncode, (p.stderr.strip() or p.stdout.strip())


def _last_line(text):
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def to_lsb(arr, scale, zp):
    return np.rint(arr.astype(np.float64) / np.float32(scale)).astype(np.int64) + zp


def compare(out_dir, info, refs):
    """Returns None or a one-line mismatch description."""
    for name, ref in refs.items():
        p = Path(out_dir) / f"{name}.npy"
        if not p.exists():
            return f"output {name} missing"
        got = np.load(p)
        if got.shape != ref.shape or got.dtype != ref.dtype:
            return f"output {name}: got {got.dtype}{list(got.shape)}, ORT {ref.dtype}{list(ref.shape)}"
        o = info["outputs"][name]
        tol = 1 if o["bounded"] else 0
        d = np.abs(to_lsb(got, o["scale"], o["zero_point"]) - to_lsb(ref, o["scale"], o["zero_point"]))
        if d.max(initial=0) > tol or (tol == 0 and not np.array_equal(got, ref)):
            idx = tuple(int(i) for i in np.unravel_index(int(np.argmax(d)), d.shape))
            return (f"output {name}: {int((d > tol).sum())} of {d.size} values differ by > {tol} LSB "
                    f"(max {int(d.max())} LSB, at {list(idx)}: got {got[idx]}, ORT {ref[idx]})")
    return None


def check_case(case, systole, backend, refs=None, float_ops=None):
    case = Path(case)
    rec, feeds, hw = load_case(case)
    info = rec["info"]
    if refs is None:
        try:
            refs, float_ops = ort_reference(case, feeds)
        except ort_runner.OrtError as e:
            return Result("skipped", "ort", _last_line(str(e)))
    npu = case / "model.npu"
    rc, err = _run([systole, "compile", str(case / "model.onnx"), "-o", str(npu), "--hw", hw, "-q",
                    "--report", str(case / "compile.json")])
    if rc != 0:
        # The first diagnostic names the problem; the last line only says
        # that compilation failed.
        first = next((ln.strip() for ln in err.splitlines() if "error:" in ln), "")
        msg = first[first.index("error:"):][:300] if first else _last_line(err)
        if rc is not None and any(s in err for s in TOO_SMALL):
            msg = next(ln for ln in err.splitlines() if any(s in ln for s in TOO_SMALL))[-200:]
            return Result("skipped", "hw-too-small", msg)
        return Result("failed", "compile", f"compile rc={rc}: {msg}")
    host_ops = []
    try:
        rep = json.loads((case / "compile.json").read_text())
        host_ops = sorted({ly["op"] for ly in rep.get("layers", []) if ly.get("placement") == "host"})
    except (OSError, ValueError, KeyError):
        pass
    ins = []
    for name in feeds:
        ins += ["--input", f"{name}={case / f'input_{name}.npy'}"]
    backends = [backend] if backend == "functional" else [backend, "cycle"] if backend == "rtl" else ["cycle"]
    cycles = {}
    for be in backends:
        out_dir = case / f"out_{be}"
        rc, err = _run([systole, "run", str(npu), *ins, "--out-dir", str(out_dir), "--backend", be,
                        "--quiet", "--report", str(case / f"run_{be}.json")], timeout=600)
        if rc != 0:
            return Result("failed", f"run-{be}", f"run --backend {be} rc={rc}: {_last_line(err)}")
        mism = compare(out_dir, info, refs)
        if mism:
            note = ""
            if float_ops or host_ops:
                note = f" [ORT float: {','.join(float_ops) or '-'}; host: {','.join(host_ops) or '-'}]"
            return Result("failed", f"mismatch-{be}", f"{be}: {mism}{note}")
        if be != "functional":
            cycles[be] = json.loads((case / f"run_{be}.json").read_text())["total_cycles"]
    if backend == "rtl" and cycles["rtl"] != cycles["cycle"]:
        return Result("failed", "cycles-rtl", f"rtl {cycles['rtl']} cycles, SystemC {cycles['cycle']}")
    if "cycle" in cycles:
        rc, err = _run([systole, "report", str(npu), "--mode", "estimate", "--json",
                        str(case / "estimate.json"), "--quiet"])
        if rc != 0:
            return Result("failed", "estimate", f"report --mode estimate rc={rc}: {_last_line(err)}")
        est = json.loads((case / "estimate.json").read_text())["total_cycles"]
        if est != cycles["cycle"]:
            return Result("failed", "cycles-estimate",
                          f"estimate {est} cycles, cycle model {cycles['cycle']}")
    return Result("passed", cycles=cycles.get("cycle"))
