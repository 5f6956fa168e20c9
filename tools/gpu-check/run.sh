#!/bin/bash
# The GPU check: runs the PTX of --host-target gpu binaries on a CUDA GPU and
# checks it against the CPU code of the same binaries and against ONNX
# Runtime. Runs on a machine with a GPU, python3 + numpy and binutils' ld,
# from a bundle that tools/gpu-check/pack.sh made (it needs none of the
# project's Debian packages). docs/host.md "GPU form" describes the checks.
#
# usage: tools/gpu-check/run.sh BUNDLE WORK
# Exits non-zero if any check fails; without a GPU every check fails, since
# SYSTOLE_REQUIRE_GPU=1 turns the CPU fallback of a ptx segment into an error.
set -uo pipefail
bundle=$(realpath "$1")
work=$(realpath -m "$2")
repo=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
mkdir -p "$work/x"
tar -C "$work/x" -xJf "$bundle/lib.tar.xz"
tar -C "$work/x" -xJf "$bundle/models.tar.xz"
export LD_LIBRARY_PATH=$work/x/lib SYSTOLE_PRESET_DIR=$repo/isa/presets
export PATH=$PATH:$(ls -d /usr/local/cuda*/bin 2>/dev/null | tr '\n' ':')
export PYTHONUNBUFFERED=1 SYSTOLE_REQUIRE_GPU=1
systole=$work/x/lib/systole
m=$work/x/models
py=${PYTHON:-python3}
nvidia-smi -L
"$systole" --version

status=0
step() {
  echo "== $*"
  local t0=$SECONDS
  "$@" || { echo "FAILED (exit $?): $*"; status=1; }
  echo "   ($((SECONDS - t0)) s)"
}
h=$repo/tests/e2e/host
step timeout 300 "$py" "$h/check_gpu_run.py" "$systole" "$m/transformer" "$work/gpu-run"
step timeout 400 "$py" "$h/check_gpu_models.py" "$systole" "$work/models" --inputs 3 \
  "$m/vit_small" "$m/convnext_small" "$m/encoder_opset13" "$m/encoder_opset17" \
  "$m/ppocr_cls" "$m/oww_hello_deepa" "$m/encoder13_base" "$m/bert_mini"
step timeout 400 "$py" "$h/check_ptx.py" "$systole" "$work/ptx" "$m/transformer" \
  --data "$m/node"
echo "gpu-check: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
