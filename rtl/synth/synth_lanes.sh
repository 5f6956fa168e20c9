#!/usr/bin/env bash
# Yosys synthesis of the post-processor and vector-unit lanes
# (rtl/npu_requant_lane.sv, npu_vector_lane.sv, npu_pool_lane.sv with the
# binary32 units of rtl/npu_fp32_*_pkg.sv): proves the fp32 datapath is
# synthesizable integer logic (no `real`) and gives its size. Same flow and
# gate-equivalent weights as tools/rtl/synth_pe_array.sh (synth -flatten,
# ABC to a generic gate library, NAND2 = 1 GE, 45 nm NAND2_X1 = 0.798 um^2).
# The lanes are combinational (one element per evaluation, no pipeline
# registers yet), so the counts are logic only. `-noshare`: Yosys 0.23's
# SAT-based SHARE pass ran > 20 min and > 4 GB on the vector lane without
# finishing (the lanes have no mutually exclusive operators worth sharing:
# the VADD/VMUL fma chain is shared by construction).
#   usage: rtl/synth/synth_lanes.sh OUT.json [LANES...]
#          (default npu_requant_lane npu_vector_lane npu_pool_lane)
set -euo pipefail
command -v yosys >/dev/null || { echo "yosys not found: install the Debian package 'yosys'" >&2; exit 1; }
out=${1:?usage: synth_lanes.sh OUT.json [LANES...]}
shift
lanes=${*:-npu_requant_lane npu_vector_lane npu_pool_lane}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
srcs=""
for f in core itof toint add mul fma div cmp; do srcs="$srcs $root/rtl/npu_fp32_${f}_pkg.sv"; done
srcs="$srcs $root/rtl/npu_postproc_pkg.sv"
declare -A ge=([NOT]=0.67 [AND]=1.33 [NAND]=1 [OR]=1.33 [NOR]=1 [XOR]=2 [XNOR]=2 [ANDNOT]=1.33 [ORNOT]=1.33 [MUX]=2.33 [DFF]=4.5)
echo "[" > "$out"
first=1
for lane in $lanes; do
  log=$tmp/synth_$lane.log
  start=$(date +%s)
  yosys -q -l "$log" -p "
    read_verilog -sv $srcs $root/rtl/$lane.sv
    synth -flatten -noshare -top $lane
    abc -g AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT,MUX
    opt_clean
    tee -o $tmp/stat_$lane.txt stat" >/dev/null
  secs=$(( $(date +%s) - start ))
  if grep -q '\$_DFF\|\$_SDFF\|\$_DLATCH' "$tmp/stat_$lane.txt"; then
    echo "$lane: unexpected storage cells in a combinational lane" >&2; exit 1
  fi
  cells=0; area=0; detail=""
  while read -r count name; do
    kind=${name#\$_}; kind=${kind%_}
    w=${ge[$kind]:-1}
    cells=$((cells + count))
    area=$(awk -v a="$area" -v c="$count" -v w="$w" 'BEGIN{printf "%.2f", a + c*w}')
    detail="$detail\"$name\": $count, "
  done < <(awk '/Number of cells:/{on=1; next} on && NF==2 && $1 ~ /^\$_/ {print $2, $1}' "$tmp/stat_$lane.txt")
  um2=$(awk -v g="$area" 'BEGIN{printf "%.1f", g*0.798}')
  [ $first = 1 ] || echo "," >> "$out"
  first=0
  printf '  {"module": "%s", "cells": %d, "area_ge": %s, "area_um2_45nm": %s, "yosys_seconds": %d, "cells_by_type": {%s}}' \
    "$lane" "$cells" "$area" "$um2" "$secs" "${detail%, }" >> "$out"
  echo "$lane: $cells cells, $area GE, $um2 um^2 (45 nm), ${secs} s" >&2
done
echo "" >> "$out"
echo "]" >> "$out"
