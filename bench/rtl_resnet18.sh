#!/usr/bin/env bash
# ResNet-18 int8 end to end through the Verilated RTL on a 16x16 config
# (edge-16x16): wall time and RTL cycles per second (goal <= 5 min), plus the
# same run on the SystemC model: outputs and total cycles must be identical.
# Needs edge-16x16 among the verilated configs of the build:
#   cmake -B BUILD -DSYSTOLE_RTL_CONFIGS="tiny-4x4;rtl-8x8;edge-16x16"
#   ninja -C BUILD systole
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SYSTOLE_BUILD_DIR:-$ROOT/build}"
MODELS="${SYSTOLE_MODEL_CACHE:-$BUILD/cache/models}"
HW="${1:-edge-16x16}"
FORM="${2:-qdq}"
MODEL="$MODELS/resnet18/resnet18_int8_${FORM}.onnx"
OUT="$BUILD/bench/rtl_resnet18"
mkdir -p "$OUT"
[ -f "$MODEL" ] || { echo "missing $MODEL: run tools/setup.sh" >&2; exit 1; }
INPUT="$MODELS/resnet18/inputs/input_0.npy"

"$BUILD/bin/systole" compile "$MODEL" --hw "$HW" -o "$OUT/r18.npu" -q
for be in cycle rtl; do
  s=$(date +%s.%N)
  taskset -c 0 "$BUILD/bin/systole" run "$OUT/r18.npu" --input "$INPUT" \
    --out-dir "$OUT/$be" --backend "$be" --report "$OUT/$be.report.json" -q
  e=$(date +%s.%N)
  echo "$be: wall $(echo "$e - $s" | bc) s" | tee "$OUT/$be.wall"
done
python3 - "$OUT" <<'PY'
import filecmp, json, os, sys
out = sys.argv[1]
rep = {b: json.load(open(os.path.join(out, b + ".report.json"))) for b in ("cycle", "rtl")}
cyc = {b: rep[b]["total_cycles"] for b in rep}
wall = float(open(os.path.join(out, "rtl.wall")).read().split()[2])
outs = sorted(f for f in os.listdir(os.path.join(out, "cycle")) if f.endswith(".npy"))
same = bool(outs) and all(filecmp.cmp(os.path.join(out, "cycle", f), os.path.join(out, "rtl", f), shallow=False) for f in outs)
print(f"RTL: {cyc['rtl']} cycles in {wall:.1f} s wall = {cyc['rtl'] / wall / 1e3:.1f} k cycles/s (goal: <= 300 s)")
print(f"cycles equal to the SystemC model: {cyc['rtl'] == cyc['cycle']}; outputs identical: {same}")
PY
