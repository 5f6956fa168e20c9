#!/usr/bin/env python3
"""The estimate (timing only, no values) agrees with the cycle-accurate
SystemC model within 2% in total cycles on every model of the zoo
(digits, ResNet-18, ResNet-50, MobileNetV2), and reports the same actions."""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from sweeplib import fail, run  # noqa: E402

systole, models, cache, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
cases = [(f"{models}/digits/digits_int8_qdq.onnx", hw)
         for hw in ("tiny-4x4", "rtl-8x8", "default-32x32", "datacenter-128x128")]
cases += [(f"{cache}/{m}/{m}_int8_qdq.onnx", "default-32x32")
          for m in ("resnet18", "resnet50", "mobilenet_v2")]
cases += [(f"{cache}/mobilenet_v2/mobilenet_v2_int8_qop.onnx", "rtl-8x8")]
worst = 0.0
for onnx, hw in cases:
    if not os.path.exists(onnx):
        fail(f"missing {onnx}: run tools/setup.sh (model zoo)")
    name = os.path.basename(onnx).replace(".onnx", "") + "." + hw
    npu = f"{work}/{name}.npu"
    run([systole, "compile", onnx, "-o", npu, "--hw", hw, "-q"])
    rep = {}
    for mode in ("cycle", "estimate"):
        t = time.time()
        run([systole, "report", npu, "--mode", mode, "--json", f"{work}/{name}.{mode}.json", "-q"])
        rep[mode] = json.load(open(f"{work}/{name}.{mode}.json"))
        rep[mode]["wall"] = time.time() - t
    c, e = rep["cycle"]["total_cycles"], rep["estimate"]["total_cycles"]
    err = abs(e - c) / c
    worst = max(worst, err)
    print(f"{name}: cycle {c}, estimate {e}, error {100 * err:.3f}% "
          f"(wall {rep['cycle']['wall']:.2f} s vs {rep['estimate']['wall']:.2f} s)")
    if err > 0.02:
        fail(f"{name}: estimate {e} vs cycle {c} differs by {100 * err:.2f}% (> 2%)")
    if rep["cycle"]["macs"] != rep["estimate"]["macs"] or \
            rep["cycle"]["energy_pj"]["total"] != rep["estimate"]["energy_pj"]["total"]:
        fail(f"{name}: action counts or energy differ between estimate and cycle")
    if len(rep["cycle"]["layers"]) != len(rep["estimate"]["layers"]):
        fail(f"{name}: layer counts differ")
print(f"PASS: worst estimate error {100 * worst:.3f}% over {len(cases)} model/config pairs")
