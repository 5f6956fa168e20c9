#!/usr/bin/env bash
# One-shot, idempotent set-up: Debian packages, ONNX Runtime (npm), models,
# configure and build. Safe to run again; it only does what is missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SYSTOLE_BUILD_DIR:-$ROOT/build}"
ORT_VERSION=1.23.2

DEBS=(
  build-essential cmake ninja-build pkg-config git
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools clang-19 libclang-rt-19-dev
  libsystemc-dev verilator yosys
  libflatbuffers-dev flatbuffers-compiler
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  libgtest-dev
  python3 python3-numpy python3-onnx python3-torch python3-torchvision
  python3-sklearn
  python3-dev python3-pybind11 pybind11-dev python3-pytest python3-matplotlib
  nodejs
  slurm-wlm munge chromium
)

missing=()
for p in "${DEBS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: run as root (or install the packages above yourself)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# npm ships with the nodesource nodejs; Debian's nodejs needs the npm package.
if ! command -v npm >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q npm
fi

# SYSTOLE_SETUP=demo (tools/demo.sh): only what the main job needs, the
# `systole` CLI; ONNX Runtime, the rest of the build (RTL, tests) and the
# model zoo are left to the test command (tools/test.sh), which runs this
# script with everything.
SCOPE="${SYSTOLE_SETUP:-all}"
if [ "$SCOPE" != all ] && [ "$SCOPE" != demo ]; then
  echo "setup: SYSTOLE_SETUP='$SCOPE' is not 'all' or 'demo'" >&2
  exit 2
fi

# ONNX Runtime, the numerical reference: npm package, no install scripts (its
# CPU library ships inside the package), in a project-local folder.
ORT_DIR="$BUILD/ort"
if [ "$SCOPE" = all ] &&
   { [ ! -f "$ORT_DIR/node_modules/onnxruntime-node/package.json" ] ||
     ! grep -q "\"version\": \"$ORT_VERSION\"" "$ORT_DIR/node_modules/onnxruntime-node/package.json"; }; then
  echo "setup: installing onnxruntime-node@$ORT_VERSION into $ORT_DIR"
  mkdir -p "$ORT_DIR"
  npm install --ignore-scripts --no-audit --no-fund --loglevel=error \
    --prefix "$ORT_DIR" "onnxruntime-node@$ORT_VERSION"
fi

# Configure and build.
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
if [ "$SCOPE" = demo ]; then
  cmake --build "$BUILD" -j "$(nproc)" --target systole
  exit 0
fi
start=$SECONDS
cmake --build "$BUILD" -j "$(nproc)"
echo "setup: build took $((SECONDS - start)) s"

# Models and ONNX Runtime references (cached; rebuilt when the model scripts
# change). The digits model is committed, the others are generated here.
MODELS_OUT="$BUILD/cache/models"
stamp_now=$(cat "$ROOT"/models/*.py "$ROOT"/models/systole_models/*.py \
              "$ROOT"/models/systole_models/*.js \
              "$ROOT"/tools/ort/*.js | sha256sum | cut -d' ' -f1)
if [ "$(cat "$MODELS_OUT/.stamp" 2>/dev/null)" != "$stamp_now" ]; then
  echo "setup: building models and ORT references into $MODELS_OUT"
  start=$SECONDS
  SYSTOLE_ORT_DIR="$ORT_DIR" /usr/bin/python3 "$ROOT/models/build_models.py" \
    --out "$MODELS_OUT"
  echo "$stamp_now" > "$MODELS_OUT/.stamp"
  echo "setup: models took $((SECONDS - start)) s"
fi
