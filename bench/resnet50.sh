#!/usr/bin/env bash
# ResNet-50 int8 on a preset (default 32x32): compile time (goal <= 5 s),
# cycle-accurate simulation with values on one core (goal <= 60 s), and
# simulated cycles over the model bound (rt::modelBound, docs/energy.md):
# max(MACs / (rows*cols), compulsory bytes / bytes_per_cycle), compulsory =
# the model's inputs, constants and outputs moved once. The bound is the one
# `systole compile` and `systole report` print, read from `systole run
# --report` (model_bound); also printed: the bound with the bytes the program
# really moves.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SYSTOLE_BUILD_DIR:-$ROOT/build}"
HW="${1:-default-32x32}"
FORM="${2:-qdq}"
MODEL="$BUILD/cache/models/resnet50/resnet50_int8_${FORM}.onnx"
OUT="$BUILD/bench/resnet50"
mkdir -p "$OUT"
[ -f "$MODEL" ] || { echo "missing $MODEL: run tools/setup.sh" >&2; exit 1; }

best=""
for i in 1 2 3; do
  s=$(date +%s.%N)
  taskset -c 0 "$BUILD/bin/systole" compile "$MODEL" --hw "$HW" -o "$OUT/r50.npu" \
    --report "$OUT/compile.json" -q 2>/dev/null
  e=$(date +%s.%N)
  t=$(echo "$e - $s" | bc)
  if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
done
echo "compile: best of 3 wall ${best} s (goal <= 5 s)"

taskset -c 0 "$BUILD/bin/systole" run "$OUT/r50.npu" \
  --input "input=$BUILD/cache/models/resnet50/inputs/input_0.npy" \
  --out-dir "$OUT/out" --backend cycle --report "$OUT/run.json" >/dev/null 2>&1
/usr/bin/python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
run = json.load(open(f"{out}/run.json"))
comp = json.load(open(f"{out}/compile.json"))
bw = comp["dram_bytes_per_cycle"]
bound = run["model_bound"]
roof = bound["cycles"]
moved = (run["dram"]["read_bytes"] + run["dram"]["write_bytes"]) / bw
cycles = run["total_cycles"]
print(f"simulate: cycle-accurate with values, wall {run['wall_seconds']:.2f} s "
      f"(goal <= 60 s), {cycles} cycles, {cycles / run['wall_seconds'] / 1e6:.2f} M cycles/s")
print(f"bound: {roof:.0f} cycles = max({bound['macs']} MACs / {bound['pes']} PEs, "
      f"{bound['compulsory_bytes']} compulsory bytes / {bw} B/cycle), "
      f"{bound['limited_by']}-bound; {cycles} cycles / bound = "
      f"{bound['cycles_over_bound']:.2f}")
print(f"  also: bytes actually moved {moved:.0f} cycles; MAC utilization "
      f"{run['mac_utilization'] * 100:.1f}%")
PY
