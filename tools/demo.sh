#!/usr/bin/env bash
# The main job: set up (idempotent), compile the bundled int8 digits model
# for the default NPU, simulate it cycle-accurately on the 360 held-out
# images, and report accuracy (NPU vs float vs ONNX Runtime int8), cycles,
# utilization and the per-layer breakdown.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SYSTOLE_BUILD_DIR:-$ROOT/build}"
HW="${1:-default-32x32}"
# Only the CLI: the model zoo, ONNX Runtime and the RTL are built by the
# test command, the digits model and its references are committed.
SYSTOLE_SETUP=demo "$ROOT/tools/setup.sh"

SYSTOLE="$BUILD/bin/systole"
DIGITS="$ROOT/models/digits"
OUT="$BUILD/demo"
mkdir -p "$OUT"
N=$(/usr/bin/python3 -c "import numpy as np; print(np.load('$DIGITS/heldout/images.npy').shape[0])")

echo
echo "== compile: digits int8 (QDQ), batch $N, for $HW"
"$SYSTOLE" compile "$DIGITS/digits_int8_qdq.onnx" --input-shape "input=${N}x1x8x8" \
  --hw "$HW" -o "$OUT/digits.npu" --report "$OUT/compile.json"

echo
echo "== simulate: cycle-accurate SystemC model"
"$SYSTOLE" run "$OUT/digits.npu" --input "input=$DIGITS/heldout/images.npy" \
  --out-dir "$OUT/outputs" --backend cycle --report "$OUT/run.json" \
  --trace "$OUT/trace.json"

echo
echo "== accuracy on $N held-out digits"
/usr/bin/python3 - "$DIGITS" "$OUT" <<'PY'
import json, sys
import numpy as np
digits, out = sys.argv[1:3]
labels = np.load(f"{digits}/heldout/labels.npy")
logits = np.load(f"{out}/outputs/output.npy")
npu = float((logits.argmax(axis=1) == labels).mean())
acc = json.load(open(f"{digits}/manifest.json"))["accuracy"]
print(f"  float32 (ONNX Runtime)      {acc['ort_fp32']:.4f}")
print(f"  int8 QDQ (ONNX Runtime)     {acc['ort_int8_qdq']:.4f}")
print(f"  int8 on the Systole NPU     {npu:.4f}")
run = json.load(open(f"{out}/run.json"))
print(f"  total cycles {run['total_cycles']}; report {out}/run.json, "
      f"trace {out}/trace.json (open in ui.perfetto.dev)")
PY
