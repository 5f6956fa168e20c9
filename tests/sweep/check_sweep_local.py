#!/usr/bin/env python3
"""A small sweep on the digits model with the local executor: every point
has a result, the estimate's cycles match a cycle-accurate run of one point,
an interrupted sweep resumes without redoing finished points and gives the
same CSV, and headless Chromium lays out the Pareto page."""
import csv
import glob
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from sweeplib import body_attr, fail, render_dom, run  # noqa: E402

systole, models, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
model = f"{models}/digits/digits_int8_qdq.onnx"
args = ["--model", model, "--array", "8x8,16x16,32x32", "--sram", "64K,256K",
        "--dram-bw", "8,32", "-j", "2"]
out = f"{work}/sweep"
r = run([systole, "sweep", *args, "--out", out])
print(r.stdout + r.stderr)
rows = list(csv.DictReader(open(f"{out}/sweep.csv")))
if len(rows) != 12 or any(x["status"] != "ok" for x in rows):
    fail(f"expected 12 ok points, got {[(x['index'], x['status']) for x in rows]}")
if not any(x["pareto"] == "1" for x in rows):
    fail("empty Pareto front")
first = open(f"{out}/sweep.csv").read()

# Resume: drop three results as if the sweep had been interrupted.
for i in (1, 5, 10):
    os.remove(f"{out}/points/{i:04d}.json")
r = run([systole, "sweep", *args, "--out", out])
if "3 to run (9 already done)" not in r.stderr:
    fail("resume did not run exactly the 3 missing points:\n" + r.stderr)
if open(f"{out}/sweep.csv").read() != first:
    fail("the resumed sweep's CSV differs from the first run's")
# A different sweep in the same directory is refused.
import subprocess
bad = subprocess.run([systole, "sweep", *args[:-4], "--dram-bw", "16", "--out", out],
                     capture_output=True, text=True)
if bad.returncode == 0 or "different sweep" not in bad.stderr:
    fail("a different sweep in the same --out was not refused")

# The estimate of a point equals the cycle model on the same binary.
cfg = f"{out}/points/0004.hw.json"
run([systole, "compile", model, "-o", f"{work}/p4.npu", "--hw", cfg, "-q"])
run([systole, "report", f"{work}/p4.npu", "--mode", "cycle", "--json", f"{work}/p4.json", "-q"])
cyc = json.load(open(f"{work}/p4.json"))["total_cycles"]
if int(rows[4]["cycles"]) != cyc:
    fail(f"point 4: sweep (estimate) {rows[4]['cycles']} cycles, cycle model {cyc}")

dom = render_dom(f"{out}/sweep.html")
charts, points = body_attr(dom, "data-rendered-charts"), body_attr(dom, "data-rendered-points")
pareto = body_attr(dom, "data-rendered-pareto")
print(f"chromium: {charts} charts, {points} points, {pareto} Pareto markers")
if charts != 2 or points != 24 or pareto != 2 * sum(x["pareto"] == "1" for x in rows):
    fail("the sweep page's charts were not laid out as expected")
print("PASS")
