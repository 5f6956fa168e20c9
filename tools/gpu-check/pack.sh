#!/bin/bash
# Packs what the GPU check (tools/gpu-check/run.sh) needs into one folder, so
# that it runs on a machine with a CUDA GPU but without this project's Debian
# packages: the built `systole`, the shared libraries it loads (less the C
# and C++ runtimes, which the target machine has in newer versions), the
# models whose host code becomes PTX, and the ONNX node tests that
# tests/lit/conformance/host-float-node-tests.test pins.
#
# usage: tools/gpu-check/pack.sh BUILD_DIR OUT_DIR
#
# libicudata (31 MB of ICU tables) is replaced by a stub that only defines its
# data symbol: libxml2 links ICU, but nothing in systole converts text with
# it, and the bundle must fit the 64 MiB a GPU lease carries.
set -euo pipefail
build=$(realpath "$1")
out=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=$build/cache
rm -rf "$out"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/lib"
for f in $(ldd "$build/bin/systole" | awk '$3 ~ /^\// {print $3}'); do
  case $(basename "$f") in
  libc.so.* | libm.so.* | libstdc++.so.* | libgcc_s.so.*) continue ;;
  libicudata.so.*)
    ver=$(basename "$f" | sed 's/libicudata\.so\.//')
    printf 'const char icudt%s_dat[1024] __attribute__((aligned(16))) = {0};\n' \
      "$ver" >"$tmp/icudata.c"
    gcc -shared -fPIC -Wl,-soname,"$(basename "$f")" -o "$tmp/lib/$(basename "$f")" \
      "$tmp/icudata.c"
    ;;
  *) cp -L "$f" "$tmp/lib/" ;;
  esac
done
strip -o "$tmp/lib/systole" "$build/bin/systole"
tar -C "$tmp" -cf - lib | xz -T0 -8 >"$out/lib.tar.xz"

# Model packages: the QDQ form, its inputs and ORT's QDQ references.
mkdir -p "$tmp/models"
for m in models/transformer models/vit_small models/convnext_small \
  models/encoder_opset13 models/encoder_opset17 models/ppocr_cls \
  models/oww_hello_deepa transformers/encoder13_base transformers/bert_mini; do
  src=$cache/$m
  dst=$tmp/models/$(basename "$m")
  mkdir -p "$dst"
  (cd "$src" && cp -r --parents $(ls -d manifest.json inputs ref_qdq reference \
    ./*_int8_qdq.onnx 2>/dev/null) "$dst/")
done
nodes=/usr/share/libonnx-testdata/data/node
filter=$(sed -n "s/.*--filter '\([^']*\)'.*/\1/p" \
  "$repo/tests/lit/conformance/host-float-node-tests.test")
mkdir -p "$tmp/models/node"
for t in $(ls "$nodes" | grep -E "$filter"); do cp -r "$nodes/$t" "$tmp/models/node/"; done
tar -C "$tmp" -cf - models | xz -T0 -6 >"$out/models.tar.xz"
du -sh "$out"/*
