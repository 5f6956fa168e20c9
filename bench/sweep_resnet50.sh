#!/usr/bin/env bash
# The acceptance sweep of docs/sweep.md: ResNet-50 int8 on 60 points
# (5 arrays x 4 scratchpad sizes x 3 DRAM bandwidths) in estimate mode on
# all local cores (goal <= 10 min on 2 cores). Prints the wall time and the
# points per second; a rerun resumes (delete the output directory to redo).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SYSTOLE_BUILD_DIR:-$ROOT/build}"
MODEL="${MODEL:-$BUILD/cache/models/resnet50/resnet50_int8_qdq.onnx}"
OUT="${1:-$BUILD/bench/sweep_resnet50}"
JOBS="${JOBS:-$(nproc)}"
[ -f "$MODEL" ] || { echo "missing $MODEL: run tools/setup.sh" >&2; exit 1; }
rm -rf "$OUT"
s=$(date +%s.%N)
"$BUILD/bin/systole" sweep --model "$MODEL" \
  --array 8x8,16x16,32x32,64x64,128x128 --sram 256K,512K,1M,2M \
  --dram-bw 8,16,32 --mode estimate -j "$JOBS" --out "$OUT"
e=$(date +%s.%N)
/usr/bin/python3 - "$OUT" "$s" "$e" "$JOBS" <<'PY'
import csv, json, glob, sys
out, s, e, jobs = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
rows = list(csv.DictReader(open(f"{out}/sweep.csv")))
pts = [json.load(open(p)) for p in sorted(glob.glob(f"{out}/points/*[0-9].json"))]
wall = e - s
comp = sum(p["compile_seconds"] for p in pts)
sim = sum(p["simulate_seconds"] for p in pts)
ok = [r for r in rows if r["status"] == "ok"]
print(f"sweep: {len(rows)} points ({len(ok)} mapped) in {wall:.1f} s wall on {jobs} jobs, "
      f"{len(rows) / wall:.3f} points/s (goal: 60 points <= 600 s)")
print(f"  per point: compile {comp / len(pts):.2f} s, estimate + analysis {sim / len(pts):.2f} s (sums over workers)")
best = min(ok, key=lambda r: float(r["time_us"]))
print(f"  fastest: {best['array']} SP {int(best['scratchpad_bytes']) // 1024} KiB "
      f"{best['dram_bytes_per_cycle']} B/cycle: {float(best['time_us']):.0f} us; "
      f"Pareto front: {sum(r['pareto'] == '1' for r in rows)} points")
PY
