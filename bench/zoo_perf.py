"""Performance table of the zoo (issue 18): per model and preset, simulated
cycles (the estimate model, equal to the cycle model), the model bound
(rt::modelBound: max(MACs / PEs, compulsory bytes / DRAM bytes per cycle)),
cycles / bound, MAC utilization, DRAM bytes moved and compile time, with the
default planner and with `systole compile --tune`; optionally the same for a
baseline binary (--baseline), and the geometric mean of cycles / bound over
the CNNs. Used by bench/zoo.py --perf."""

import json
import math
import subprocess
import time
from pathlib import Path

# Transformer encoders: the CNN geomean leaves them out.
TRANSFORMERS = {"vit_small", "encoder_opset13", "encoder_opset17"}


def measure(systole, onnx, hw, out, extra=()):
    """Compiles `onnx` for `hw` (timed) and estimates it; returns a dict."""
    npu = out.with_suffix(".npu")
    start = time.perf_counter()
    proc = subprocess.run([systole, "compile", str(onnx), "--hw", hw, "-o", str(npu), "-q", *extra],
                          capture_output=True, text=True)
    compile_s = time.perf_counter() - start
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit {proc.returncode}"}
    rep = out.with_suffix(".json")
    subprocess.run([systole, "report", str(npu), "--json", str(rep), "-q"], check=True,
                   capture_output=True)
    d = json.loads(rep.read_text())
    tune = next((line for line in proc.stderr.splitlines() if line.startswith("tune:")), "")
    return {"cycles": d["total_cycles"], "bound": d["model_bound"]["cycles"],
            "ratio": d["model_bound"]["cycles_over_bound"], "util": d["mac_utilization"],
            "dram_bytes": d["roofline"]["dram_bytes"], "compile_s": compile_s, "tune": tune}


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def perf_table(names, zoo_dir, hws, systole, work, baseline=None, tune_budget=2000, tune=True):
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in names:
        onnx = zoo_dir / name / f"{name}_int8_qdq.onnx"
        if not onnx.is_file():
            continue
        for hw in hws:
            row = {"model": name, "hw": hw}
            row["default"] = measure(systole, onnx, hw, work / f"{name}-{hw}-default")
            if tune:
                row["tuned"] = measure(systole, onnx, hw, work / f"{name}-{hw}-tuned",
                                       [f"--tune={tune_budget}", "--tune-cache", "none"])
            if baseline:
                row["baseline"] = measure(baseline, onnx, hw, work / f"{name}-{hw}-baseline")
            rows.append(row)
            print(describe(row), flush=True)
    print()
    head = (f"{'model':26} {'preset':13} {'variant':9} {'cycles':>10} {'bound':>10} {'x bound':>8} "
            f"{'MAC util':>8} {'DRAM bytes':>11} {'compile s':>9}")
    print(head)
    for row in rows:
        for variant in ("baseline", "default", "tuned"):
            m = row.get(variant)
            if m is None:
                continue
            if "error" in m:
                print(f"{row['model']:26} {row['hw']:13} {variant:9} {m['error']}")
                continue
            print(f"{row['model']:26} {row['hw']:13} {variant:9} {m['cycles']:>10} {m['bound']:>10.0f} "
                  f"{m['ratio']:>8.2f} {m['util'] * 100:>7.1f}% {m['dram_bytes']:>11} "
                  f"{m['compile_s']:>9.2f}")
    for hw in hws:
        cnn = [r for r in rows if r["hw"] == hw and r["model"] not in TRANSFORMERS]
        parts = []
        for variant in ("baseline", "default", "tuned"):
            vals = [r[variant].get("ratio") for r in cnn if variant in r]
            if vals:
                parts.append(f"{variant} {geomean(vals):.3f}")
        slower = [r["model"] for r in cnn
                  if "cycles" in r.get("tuned", {}) and "cycles" in r["default"]
                  and r["tuned"]["cycles"] > r["default"]["cycles"]]
        print(f"{hw}: geomean cycles / bound over {len(cnn)} CNNs: " + ", ".join(parts)
              + (f"; --tune slower than default on: {', '.join(slower) or 'none'}" if tune else ""))
    return rows


def describe(row):
    parts = []
    for variant in ("baseline", "default", "tuned"):
        m = row.get(variant)
        if m is None:
            continue
        parts.append(f"{variant} " + (m["error"] if "error" in m else
                                      f"{m['cycles']} cycles x{m['ratio']:.2f} {m['compile_s']:.1f} s"))
    return f"{row['model']} {row['hw']}: " + "; ".join(parts)
