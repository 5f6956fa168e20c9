#!/usr/bin/env bash
# Yosys synthesis of the systolic PE array (rtl/npu_pe.sv, npu_pe_array.sv) at
# several array sizes: generic gate counts after `synth` + ABC to a small
# gate library, and an area estimate in NAND2 gate equivalents (GE) and um^2
# (GE x the NAND2 area of a 45 nm library, Nangate FreePDK45 NAND2_X1 =
# 0.798 um^2). Writes a JSON table the co-design sweep can read.
#   usage: tools/rtl/synth_pe_array.sh OUT.json [SIZES...]   (default 2 4 8)
# DOUBLE_BUF=1 in the environment synthesizes the double-buffered PE of
# array.matmul_inflight > 1 (shadow weight, switch bit, travelling zero
# point); its entries carry "double_buf": 1.
set -euo pipefail
command -v yosys >/dev/null || { echo "yosys not found: install the Debian package 'yosys'" >&2; exit 1; }
out=${1:?usage: synth_pe_array.sh OUT.json [SIZES...]}
shift
sizes=${*:-2 4 8}
dbuf=${DOUBLE_BUF:-0}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Gate-equivalent weights (NAND2 = 1) of the ABC target library, typical of
# standard-cell libraries; flip-flops as 4.5 GE (Nangate DFF_X1 / NAND2_X1).
declare -A ge=([NOT]=0.67 [AND]=1.33 [NAND]=1 [OR]=1.33 [NOR]=1 [XOR]=2 [XNOR]=2 [ANDNOT]=1.33 [ORNOT]=1.33 [MUX]=2.33 [DFF]=4.5)
echo "[" > "$out"
first=1
for n in $sizes; do
  log=$tmp/synth_$n.log
  yosys -q -l "$log" -p "
    read_verilog -sv $root/rtl/npu_pe.sv $root/rtl/npu_pe_array.sv
    chparam -set ROWS $n -set COLS $n -set DOUBLE_BUF $dbuf npu_pe_array
    synth -flatten -top npu_pe_array
    abc -g AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT,MUX
    opt_clean
    tee -o $tmp/stat_$n.txt stat" >/dev/null
  cells=0; area=0; detail=""
  while read -r count name; do
    kind=${name#\$_}; kind=${kind%_}
    case $kind in DFF*|SDFF*|ADFF*|DFFE*|SDFFE*|SDFFCE*) w=${ge[DFF]}; kind=DFF ;; *) w=${ge[$kind]:-1} ;; esac
    cells=$((cells + count))
    area=$(awk -v a="$area" -v c="$count" -v w="$w" 'BEGIN{printf "%.2f", a + c*w}')
    detail="$detail\"$name\": $count, "
  done < <(awk '/Number of cells:/{on=1; next} on && NF==2 && $1 ~ /^\$_/ {print $2, $1}' "$tmp/stat_$n.txt")
  um2=$(awk -v g="$area" 'BEGIN{printf "%.1f", g*0.798}')
  [ $first = 1 ] || echo "," >> "$out"
  first=0
  printf '  {"rows": %d, "cols": %d, "pes": %d, "double_buf": %d, "cells": %d, "area_ge": %s, "area_um2_45nm": %s, "cells_by_type": {%s}}' \
    "$n" "$n" $((n*n)) "$dbuf" "$cells" "$area" "$um2" "${detail%, }" >> "$out"
  echo "pe array ${n}x${n} (double_buf $dbuf): $cells cells, $area GE, $um2 um^2 (45 nm)" >&2
done
echo "" >> "$out"
echo "]" >> "$out"
