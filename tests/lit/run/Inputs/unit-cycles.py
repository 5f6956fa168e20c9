"""Re-derives the compile report's per-unit busy cycles from `systole objdump`.

usage: unit-cycles.py OBJDUMP.txt REPORT.json
Prints "<unit> <from the report> == <from the binary>" per unit and OK, or
exits 1 naming the first disagreement.
"""
import json
import re
import sys

dump, report = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
cfg = json.loads(dump[dump.index("{"):dump.index("\n}\n") + 2])
R, latency = cfg["array"]["rows"], cfg["dram"]["latency_cycles"]
inflight = cfg["array"].get("matmul_inflight", 1)
VECTOR = {"requant", "vadd", "vmul", "vlut", "pool", "dwconv"}
units = {"array": 0, "vector": 0, "dma": 0}
for line in dump.splitlines():
    m = re.match(r"\s+(\w+)\s(.*);\s*#\d+\s+(\d+) cycles", line)
    if not m:
        continue
    op, fields, cycles = m.group(1), dict(re.findall(r"(\w+)=(\S+)", m.group(2))), int(m.group(3))
    if op in ("load", "store"):
        units["dma"] += cycles - latency
    elif op == "matmul":
        if fields.get("dataflow", "ws") == "ws" and inflight > 1:
            units["array"] += max(int(fields.get("m", 0)), R if fields.get("preload") == "1" else 0)
        else:
            units["array"] += cycles
    elif op in VECTOR:
        units["vector"] += cycles
npu = [l for l in report["layers"] if l["placement"] == "npu"]
for unit, expect in units.items():
    got = sum(l["unit_cycles"][unit] for l in npu)
    print(f"{unit} {got} == {expect}")
    if got != expect:
        sys.exit(f"FAIL: the report's {unit} cycles {got}, the binary's {expect}")
for l in npu:
    busiest = max(l["unit_cycles"].values())
    if l["unit_cycles"][l["limited_by"]] != busiest:
        sys.exit(f"FAIL: {l['name']}: limited_by {l['limited_by']} but {l['unit_cycles']}")
print("OK")
