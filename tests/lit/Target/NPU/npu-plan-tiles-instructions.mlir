// npu-plan-tiles at the instruction level: the plan's rows and n (npu.tile)
// are the items' sizes in the generated code, and a K split (plan entry k)
// is a group of items whose MATMULs accumulate into one tile.
// RUN: systole-opt %s --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s --check-prefix=TINY
// RUN: systole-opt %s --systole-npu-pipeline=hw=rtl-8x8 --convert-graph-to-npu=hw=rtl-8x8 --npu-schedule-pipeline | FileCheck %s --check-prefix=RTL
// RUN: systole-opt %S/Inputs/resident-band-matmul.mlir --systole-npu-pipeline=hw=%S/Inputs/small-sram.json --npu-plan-tiles="hw=%S/Inputs/small-sram.json force-plan=k=32,resident=1,rows=4" --convert-graph-to-npu=hw=%S/Inputs/small-sram.json --npu-schedule-pipeline | FileCheck %s --check-prefix=RESIDENT
// RUN: systole-opt %S/Inputs/resident-band-matmul.mlir --systole-npu-pipeline=hw=tiny-4x4 --npu-plan-tiles="hw=tiny-4x4 force-plan=n=8,os=1" --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s --check-prefix=WIDE
// RUN: systole-opt %S/Inputs/ksplit-matmul.mlir --systole-npu-pipeline=hw=%S/Inputs/small-sram.json --npu-plan-tiles="hw=%S/Inputs/small-sram.json force-plan=k=48,os=1,rows=4" --convert-graph-to-npu=hw=%S/Inputs/small-sram.json --npu-schedule-pipeline | FileCheck %s --check-prefix=KSPLIT

// A 1x1 conv of the 4x4x4 input (zero point -3) into 8 channels (zero
// point -128, ReLU). Whatever the cost model picks, an item is `rows`
// output rows of 4 pixels by `n` output channels: each of its MATMULs has
// M = rows x 4 (OW = 4) and K = Cin = 4, and at most as many columns as the
// array has (4 on tiny-4x4, 8 on rtl-8x8: an item wider than the array is
// column tiles of it); its REQUANT covers the whole item (M x n) and its
// STORE writes n channels of M pixels into the 8-channel output at the
// output's offset, 64, after the 64-byte input. An item of all n = 8
// channels is contiguous in DRAM too, so its STORE is one run of n x M
// bytes (n0 = 8M, n1 = 1); a narrower one is M runs of n bytes (n0 = n,
// n1 = M, DRAM pixel stride s1 = 8, packed t1 = n). With W = n / 8 (1 for
// a whole-width item, else 0): n0 = n x max(1, W x M) and
// n1 = max(1, (1 - W) x M).
// TINY: graph.conv2d {{.*}}npu.tile = #npu.tile<n = [[#N:]], {{.*}}rows = [[#ROWS:]]>
// TINY-LABEL: npu.program "tiny-4x4"
// TINY: npu.matmul {{.*}}a_zp = -3, {{.*}}m = [[#mul(ROWS,4)]], k = 4, n = [[#min(N,4)]],
// TINY: npu.requant push_next {bias, zp = -128, lo = -128, hi = 127, {{.*}}m = [[#mul(ROWS,4)]], n = [[#N]],
// TINY-NEXT: npu.store {{.*}}dram_addr = 64, n0 = [[#mul(N,max(1,mul(div(N,8),mul(ROWS,4))))]], n1 = [[#max(1,mul(sub(1,div(N,8)),mul(ROWS,4)))]], n2 = 1, n3 = 1{{(, s1 = 8, t1 = [0-9]+)?}}}
// RTL: graph.conv2d {{.*}}npu.tile = #npu.tile<n = [[#N:]], {{.*}}rows = [[#ROWS:]]>
// RTL-LABEL: npu.program "rtl-8x8"
// RTL: npu.matmul {{.*}}a_zp = -3, {{.*}}m = [[#mul(ROWS,4)]], k = 4, n = [[#min(N,8)]],
// RTL: npu.requant push_next {bias, zp = -128, lo = -128, hi = 127, {{.*}}m = [[#mul(ROWS,4)]], n = [[#N]],
// RTL-NEXT: npu.store {{.*}}dram_addr = 64, n0 = [[#mul(N,max(1,mul(div(N,8),mul(ROWS,4))))]], n1 = [[#max(1,mul(sub(1,div(N,8)),mul(ROWS,4)))]], n2 = 1, n3 = 1{{(, s1 = 8, t1 = [0-9]+)?}}}
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-128>
!w = !quant.uniform<i8:f32, 0.01>
func.func @main(%x: tensor<1x4x4x4x!x>) -> tensor<1x4x4x8x!y> {
  %wi = arith.constant dense<1> : tensor<1x1x4x8xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x4x8xi8>) -> tensor<1x1x4x8x!w>
  %c = graph.conv2d %x, %w {act_min = -128 : i64, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x4x!x>, tensor<1x1x4x8x!w>) -> tensor<1x4x4x8x!y>
  return %c : tensor<1x4x4x8x!y>
}

// K split (Inputs/ksplit-matmul.mlir on small-sram.json: a 4x4 array, 1024
// bytes of scratchpad). Unsplit, two 4 x 96 lhs slots (768 bytes) and the
// 96 x 4 weights (384) exceed 1024 bytes; halving K once, two 4 x 48 lhs
// chunks and two 48 x 4 weight chunks take 768 bytes: k = 48, two items
// (forced: the cost model prefers a WS split whose 2-row lhs bands stay
// for all column tiles, resident = 1, checked below).
// M = 4 rows fit the array rows: output-stationary (a_zp = the lhs zero
// point 1). Item 0 loads lhs columns 0..47 (DRAM 0: n0 = 48 of each of the
// n1 = 4 rows, DRAM row pitch s1 = 96, packed t1 = 48) and weight rows
// 0..47 (192 bytes from the constant pool at 4096, the 448-byte arena
// rounded up to 4096); item 1 columns 48..95 (DRAM 48) and rows 48..95
// (4096 + 192 = 4288). The first MATMUL overwrites the accumulator tile,
// the second accumulates into the same tile (c_addr and c_stride equal);
// only the group's last item requantizes (zero point -2) and stores the
// 4 x 4 result, at 384 (after the 384-byte lhs), as one run of 16 bytes.
// KSPLIT: graph.matmul {{.*}}npu.tile = #npu.tile<k = 48, n = 4, os = 1, {{.*}}rows = 4>
// KSPLIT: npu.segment 0 "npu0"
// KSPLIT-NEXT: npu.layer_start "graph.matmul"
// KSPLIT-NEXT: npu.load {sram = sp, elem_bytes = 1, n0 = 48, n1 = 4, n2 = 1, n3 = 1, s1 = 96, t1 = 48}
// KSPLIT-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[B0:[0-9]+]], dram_addr = 4096, n0 = 192, n1 = 1, n2 = 1, n3 = 1, s1 = 192, t1 = 192}
// KSPLIT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[A1:[0-9]+]], dram_addr = 48, n0 = 48, n1 = 4, n2 = 1, n3 = 1, s1 = 96, t1 = 48}
// KSPLIT-NEXT: npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[B1:[0-9]+]], dram_addr = 4288, n0 = 192, n1 = 1, n2 = 1, n3 = 1, s1 = 192, t1 = 192}
// KSPLIT-NEXT: npu.matmul pop_prev %{{.*}} {dataflow = os, a_zp = 1, {{.*}}m = 4, k = 48, n = 4, b_addr = [[B0]], c_stride = 4}
// KSPLIT-NEXT: npu.matmul pop_prev %{{.*}} {dataflow = os, accumulate, a_zp = 1, a_addr = [[A1]], {{.*}}m = 4, k = 48, n = 4, b_addr = [[B1]], c_stride = 4}
// KSPLIT-NEXT: %[[R:.*]] = npu.requant push_next {bias, zp = -2, lo = -128, hi = 127, {{.*}}m = 4, n = 4,
// KSPLIT-NEXT: npu.store pop_prev %[[R]] {sram = sp, elem_bytes = 1, {{.*}}dram_addr = 384, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
// KSPLIT-NEXT: npu.end

// K split with the lhs band staying (Inputs/resident-band-matmul.mlir on
// small-sram.json, plan k = 32, resident = 1, rows = 4): 8 x 64 by 64 x 8,
// so two M tiles of 4 rows, two column tiles of 4, two K chunks of 32. The
// band of M tile i (4 rows x all 64 columns) sits in lhs slot i, at 0 and
// 256 (4 x 64 bytes), chunk-major: chunk q is 4 x 32 bytes (pitch 32) at
// 128q, so the chunk being loaded and the one being multiplied never share
// bytes. Column tile 0's two items bring the band chunk by chunk (DRAM 0
// and 32 into 0 and 128 for M tile 0; DRAM 256 and 288 into 256 and 384
// for M tile 1; DRAM row pitch s1 = K = 64); column tile 1 loads no lhs.
// Each WS MATMUL takes 4 of K (the array's rows) from its chunk:
// a_k_inner = 32, a_k_offset = 0, 4, ..., 28. The 4 x 4 results go to
// DRAM 512 + 4 x column tile + 32 x M tile (row pitch 8).
// RESIDENT: graph.matmul {{.*}}npu.tile = #npu.tile<k = 32, n = 4, os = 0, {{.*}}resident = 1, rows = 4>
// RESIDENT-LABEL: npu.segment 0
// RESIDENT: npu.load {sram = sp, elem_bytes = 1, n0 = 32, n1 = 4, n2 = 1, n3 = 1, s1 = 64, t1 = 32}
// RESIDENT: npu.load {sram = sp, elem_bytes = 1, sram_addr = 128, dram_addr = 32, n0 = 32, n1 = 4, n2 = 1, n3 = 1, s1 = 64, t1 = 32}
// RESIDENT: npu.matmul {{.*}}a_addr = 128, a_m_inner_stride = 32, {{.*}}a_k_inner = 32, a_k_offset = 28, m = 4, k = 4, n = 4,
// RESIDENT: npu.store pop_prev {{.*}}dram_addr = 512, n0 = 4, n1 = 4, n2 = 1, n3 = 1, s1 = 8, t1 = 4}
// RESIDENT-NOT: n0 = 32, n1 = 4
// RESIDENT: npu.load pop_next {{.*}}sram_addr = 256, dram_addr = 256, n0 = 32, n1 = 4, n2 = 1, n3 = 1, s1 = 64, t1 = 32}
// RESIDENT-NOT: n0 = 32, n1 = 4
// RESIDENT: npu.store pop_prev {{.*}}dram_addr = 516, n0 = 4, n1 = 4,
// RESIDENT: npu.load pop_next {{.*}}sram_addr = 384, dram_addr = 288, n0 = 32, n1 = 4, n2 = 1, n3 = 1, s1 = 64, t1 = 32}
// RESIDENT: npu.matmul {{.*}}a_addr = 384, {{.*}}a_k_inner = 32, a_k_offset = 28, m = 4, k = 4, n = 4,
// RESIDENT: npu.store {{.*}}dram_addr = 544, n0 = 4, n1 = 4,
// RESIDENT-NOT: n0 = 32, n1 = 4
// RESIDENT: npu.store {{.*}}dram_addr = 548, n0 = 4, n1 = 4,
// RESIDENT-NEXT: npu.end

// A matmul item two array widths wide (Inputs/resident-band-matmul.mlir on
// tiny-4x4, plan n = 8, os = 1: all 8 output columns of 4 rows). Each
// MATMUL covers the array's 4 columns: two per item, the second reading
// weight columns 4..7 (b_addr + 4) of the item's 64 x 8 tile (b_stride 8)
// into accumulator columns 4..7 (c_addr 4, c_stride 8); one REQUANT of
// 4 x 8 and one contiguous STORE of the 32 bytes (whole output rows).
// WIDE: graph.matmul {{.*}}npu.tile = #npu.tile<n = 8, os = 1, {{.*}}rows = 4>
// WIDE: npu.matmul pop_prev %{{.*}} {dataflow = os, {{.*}}b_stride = 8, {{.*}}m = 4, k = 64, n = 4, b_addr = [[#W:]], c_stride = 8}
// WIDE-NEXT: npu.matmul {dataflow = os, {{.*}}b_stride = 8, {{.*}}m = 4, k = 64, n = 4, b_addr = [[#W+4]], c_addr = 4, c_stride = 8}
// WIDE-NEXT: npu.requant push_next {{{.*}}c_stride = 8, {{.*}}m = 4, n = 8,
// WIDE-NEXT: npu.store pop_prev %{{.*}} {sram = sp, elem_bytes = 1, sram_addr = {{[0-9]+}}, dram_addr = 512, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
