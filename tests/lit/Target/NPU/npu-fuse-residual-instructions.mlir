// npu-fuse-residual at the instruction level: the full pipeline (which runs
// the pass) against the same pipeline without it (as `systole compile
// --no-fusion` leaves the add a layer of its own; npu-plan-cascades is kept
// in both so that only this pass differs).
// RUN: systole-opt %s --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s --check-prefix=FUSED
// RUN: systole-opt %s --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s --check-prefix=FUSED-NONE
// RUN: systole-opt %s --pass-pipeline='builtin.module(func.func(graph-fold-qdq,canonicalize,graph-fold-pad,graph-to-nhwc,graph-fold-constants,graph-drop-padding-taps,canonicalize,cse,npu-partition,npu-fold-tables,npu-fuse-gate,npu-fold-tables,npu-concat-in-place,npu-concat-copy,npu-fold-tables{standalone=1},npu-plan-tiles{hw=tiny-4x4},npu-plan-cascades{hw=tiny-4x4},npu-allocate-dram),convert-graph-to-npu{hw=tiny-4x4},npu.program(npu-schedule-pipeline))' | FileCheck %s --check-prefix=UNFUSED

// A 1x1 convolution of the 4x4x4 input (x: scale 0.05, zero point -3; 64
// bytes) into 4 channels at x's parameters, plus the identity shortcut x,
// into y (scale 0.1, zero point -128). K = Cin = 4, N = Cout = 4; the
// plans (npu-plan-tiles' choice, asserted): fused, one item of all 4
// image rows, M = 4 rows x 4 pixels = 16 (64 bytes); unfused, the conv is
// two items of two image rows, M = 8, 8 pixels x 4 channels = 32 bytes
// each, at DRAM offsets +0 and +32 of their tensor. Every tile is
// contiguous on both sides, so each LOAD and STORE is one run (n1 = 1).
//
// The add's VADD constants (QLinearAdd as MLAS computes them, docs/isa.md):
// ratio_a = 0.05 / 0.1 = 0.5 (exact in fp32: 0.05f and 0.1f have the same
// mantissa), ratio_b = 0.5, fixed = zp_y - (ratio_a * zp_conv + ratio_b *
// zp_x) = -128 - (-1.5 - 1.5) = -125; no activation: lo/hi = -128/127.
//
// DRAM (npu-allocate-dram, 64-byte aligned first fit): x at 0 (pinned
// input); fused, the add's result aliases the conv's buffer, allocated
// while x is live: 64 (arena 128 bytes). Unfused, the conv's result at 64
// and the add's (allocated while both its operands are live) at 128.

// Fused: the item loads the shortcut's tile (x's 16 pixels x 4 channels,
// one run of n0 = 64 bytes at DRAM 0, so its dram_addr is the elided
// default) beside the conv's input, and right after the conv's REQUANT
// (output zero point -3: the conv's own result type) the VADD adds it in
// place (a_addr = o_addr = the REQUANT's output slot, b_addr = the shortcut
// slot); the sum is stored at the add's offset 64.
// FUSED-LABEL: func.func @main
// FUSED: graph.conv2d {{.*}}npu.tile = #npu.tile<n = 4, {{.*}}rows = 4>
// FUSED-LABEL: npu.program "tiny-4x4"
// FUSED-NEXT: npu.segment 0 "npu0"
// FUSED-NEXT: npu.layer_start "graph.conv2d + add"
// FUSED: %[[SC:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[B:[0-9]+]], n0 = 64, n1 = 1, n2 = 1, n3 = 1}
// FUSED-NEXT: npu.matmul pop_prev %[[SC]] {dataflow = ws, preload, a_zp = -3, {{.*}}, m = 16, k = 4, n = 4,
// FUSED-NEXT: npu.requant {bias, zp = -3, lo = -128, hi = 127, {{.*}}o_addr = [[O:[0-9]+]], o_stride = 4, m = 16, n = 4,
// FUSED-NEXT: %[[V:.*]] = npu.vadd push_next {mode = fma, {{.*}}lo = -128, hi = 127, a_addr = [[O]], b_addr = [[B]], o_addr = [[O]], n0 = 4, n1 = 16, a_s1 = 4, b_s1 = 4, o_s1 = 4, ratio_a = 5.000000e-01, ratio_b = 5.000000e-01, fixed = -1.250000e+02}
// FUSED-NEXT: npu.store pop_prev %[[V]] {sram = sp, elem_bytes = 1, sram_addr = [[O]], dram_addr = 64, n0 = 64, n1 = 1, n2 = 1, n3 = 1}
// FUSED-NEXT: npu.end
// No add layer: exactly the VADD above, and the conv's int8 result never
// goes through DRAM: no REQUANT pushes a token to the store queue (only
// the VADD does), no LOAD from the conv's buffer (64, or 96 where a
// second two-row tile would start), and no barrier (one layer).
// FUSED-NONE-NOT: npu.requant push_next
// FUSED-NONE-NOT: npu.load {{.*}}dram_addr = 64,
// FUSED-NONE-NOT: npu.load {{.*}}dram_addr = 96,
// FUSED-NONE-NOT: npu.fence

// Unfused: the conv's items store their REQUANT's output at 64 and 96; the
// add is a layer of its own after a barrier (the store -> compute -> load
// FENCE), which loads the conv's result back (DRAM 64 and 96) and x (0 and
// 32) into two slots, VADDs them into a third slot (not in place) and
// stores the sum at the add's own buffer, 128 and 160.
// UNFUSED-LABEL: func.func @main
// UNFUSED: graph.conv2d {{.*}}npu.tile = #npu.tile<n = 4, {{.*}}rows = 2>
// UNFUSED-LABEL: npu.program "tiny-4x4"
// UNFUSED: npu.matmul {{.*}}m = 8, k = 4, n = 4,
// UNFUSED-NEXT: %[[R0:.*]] = npu.requant push_next {bias, zp = -3, lo = -128, hi = 127, {{.*}}o_addr = [[O0:[0-9]+]], o_stride = 4, m = 8, n = 4,
// UNFUSED-NEXT: npu.store pop_prev %[[R0]] {sram = sp, elem_bytes = 1, sram_addr = [[O0]], dram_addr = 64, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// UNFUSED: npu.matmul {{.*}}m = 8, k = 4, n = 4,
// UNFUSED-NEXT: %[[R1:.*]] = npu.requant push_next {bias, zp = -3, lo = -128, hi = 127, {{.*}}o_addr = [[O1:[0-9]+]], o_stride = 4, m = 8, n = 4,
// UNFUSED-NEXT: %[[S2C:.*]] = npu.store pop_prev %[[R1]] push_prev {sram = sp, elem_bytes = 1, sram_addr = [[O1]], dram_addr = 96, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// UNFUSED-NEXT: npu.layer_start "graph.add"
// UNFUSED-NEXT: %[[C2L:.*]] = npu.fence pop_next %[[S2C]] push_prev {queue = compute}
// UNFUSED-NEXT: npu.load pop_next %[[C2L]] {sram = sp, elem_bytes = 1, sram_addr = [[A0:[0-9]+]], dram_addr = 64, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// UNFUSED-NEXT: %[[L0:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[X0:[0-9]+]], n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// UNFUSED-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[A1:[0-9]+]], dram_addr = 96, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// UNFUSED-NEXT: %[[L1:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[X1:[0-9]+]], dram_addr = 32, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// UNFUSED-NEXT: %[[V0:.*]] = npu.vadd pop_prev %[[L0]] push_next {mode = fma, lo = -128, hi = 127, a_addr = [[A0]], b_addr = [[X0]], o_addr = [[S0:[0-9]+]], n0 = 4, n1 = 8, a_s1 = 4, b_s1 = 4, o_s1 = 4, ratio_a = 5.000000e-01, ratio_b = 5.000000e-01, fixed = -1.250000e+02}
// UNFUSED-NEXT: npu.store pop_prev %[[V0]] {sram = sp, elem_bytes = 1, sram_addr = [[S0]], dram_addr = 128, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// UNFUSED-NEXT: %[[V1:.*]] = npu.vadd pop_prev %[[L1]] push_next {mode = fma, lo = -128, hi = 127, a_addr = [[A1]], b_addr = [[X1]], o_addr = [[S1:[0-9]+]], n0 = 4, n1 = 8, a_s1 = 4, b_s1 = 4, o_s1 = 4, ratio_a = 5.000000e-01, ratio_b = 5.000000e-01, fixed = -1.250000e+02}
// UNFUSED-NEXT: npu.store pop_prev %[[V1]] {sram = sp, elem_bytes = 1, sram_addr = [[S1]], dram_addr = 160, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// UNFUSED-NEXT: npu.end
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-128>
!w = !quant.uniform<i8:f32, 0.01>
func.func @main(%x: tensor<1x4x4x4x!x>) -> tensor<1x4x4x4x!y> {
  %wi = arith.constant dense<1> : tensor<1x1x4x4xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x4x4xi8>) -> tensor<1x1x4x4x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x4x!x>, tensor<1x1x4x4x!w>) -> tensor<1x4x4x4x!x>
  %a = graph.add %c, %x : (tensor<1x4x4x4x!x>, tensor<1x4x4x4x!x>) -> tensor<1x4x4x4x!y>
  return %a : tensor<1x4x4x4x!y>
}
