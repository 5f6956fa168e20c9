#!/usr/bin/env python3
"""`systole report` writes JSON, CSV and HTML that agree with each other, and
headless Chromium lays out the HTML page's charts: the roofline plot with
one point per layer, the per-layer cycle breakdown and the energy charts."""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from sweeplib import body_attr, fail, render_dom, run  # noqa: E402

systole, models, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
npu = f"{work}/digits.npu"
run([systole, "compile", f"{models}/digits/digits_int8_qdq.onnx", "-o", npu,
     "--hw", "edge-16x16", "-q"])
run([systole, "report", npu, "--mode", "cycle", "--input",
     f"{models}/digits/inputs/input_0.npy", "--json", f"{work}/r.json",
     "--csv", f"{work}/r.csv", "--html", f"{work}/r.html"])
rep = json.load(open(f"{work}/r.json"))
rows = list(csv.DictReader(open(f"{work}/r.csv")))
layers = rep["layers"]
if not layers or len(rows) != len(layers) + 1 or rows[-1]["layer"] != "total":
    fail(f"CSV has {len(rows)} rows for {len(layers)} layers")
if int(rows[-1]["cycles"]) != rep["total_cycles"]:
    fail("CSV total cycles != JSON total cycles")
e = rep["energy_pj"]
parts = sum(e[k] for k in ("array", "vector", "scratchpad", "accumulator", "dram", "host",
                           "leakage"))
if abs(parts - e["total"]) > 1e-6 * e["total"]:
    fail("energy components do not add up to the total")
for l in layers:
    b = l["cycle_breakdown"]
    if b["compute"] + b["dma"] + b["stall"] != l["cycles"]:
        fail(f"layer {l['name']}: compute + dma + stall != cycles")
    r = l["roofline"]
    if r["achieved_ops_per_cycle"] > r["peak_ops_per_cycle"] * (1 + 1e-9):
        fail(f"layer {l['name']}: achieved above the compute ceiling")
array_layers = [l for l in layers if l["roofline"]["unit"] == "array"]
if not array_layers:
    fail("no array layer in the digits model")

html = open(f"{work}/r.html").read()
for chart in ("roofline-chart", "cycle-breakdown-chart", "energy-chart", "energy-total-chart"):
    if f'id="{chart}"' not in html:
        fail(f"{chart} missing from the HTML")
if "http://" in html.replace("http://www.w3.org/2000/svg", "") or "https://" in html:
    fail("the page is not self-contained (external URL)")
dom = render_dom(f"{work}/r.html")
charts = body_attr(dom, "data-rendered-charts")
points = body_attr(dom, "data-rendered-points")
bars = body_attr(dom, "data-rendered-bars")
expected_points = sum(1 for l in layers if l["roofline"]["intensity_ops_per_byte"] > 0
                      and l["roofline"]["achieved_ops_per_cycle"] > 0)
print(f"chromium: {charts} charts laid out, {points} layer points, {bars} bars")
if charts != 4:
    fail(f"{charts} of 4 charts have a non-empty layout")
if points != expected_points or points == 0:
    fail(f"{points} layer points drawn, expected {expected_points}")
if bars < len(layers):
    fail(f"only {bars} bars for {len(layers)} layers")
print("PASS")
