// A QLinearAdd/QLinearMul whose constant operand broadcasts along other
// dims than the last (Swin's shifted-window mask: one [49, 49] block per
// window, shared by its heads) runs on the NPU: each item loads the
// constant rows its tile reads, once each, and runs one VADD/VMUL per run
// of output rows that read consecutive rows (or one row) of it.
// RUN: systole-opt %s --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s
// RUN: systole-opt %S/Inputs/broadcast-constant-mul.mlir --systole-npu-pipeline=hw=tiny-4x4 --npu-plan-tiles="hw=tiny-4x4 force-plan=rows=2" --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s --check-prefix=ROWS2

// [2, 3, 4] + [2, 1, 4]: output rows 0-2 read the mask's row 0 (4 bytes at
// the pool's 4096), rows 3-5 its row 1 (4100). The planner's 3-row tiles
// make one run per item, B read with an outer stride of 0 (b_s1 absent).
// QLinearAdd's constants: ratio_a = 0.5 / 0.5 = 1, ratio_b = 0.25 / 0.5 =
// 0.5, fixed = -1 - (1 * 2 + 0.5 * 0) = -3.
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.add"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[M0:[0-9]+]], dram_addr = 4096, n0 = 4, n1 = 1
// CHECK-NEXT: %[[A0:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, n0 = 12, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[M1:[0-9]+]], dram_addr = 4100, n0 = 4, n1 = 1
// CHECK-NEXT: %[[A1:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[X1:[0-9]+]], dram_addr = 12, n0 = 12, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[C0:.*]] = npu.vadd pop_prev %[[A0]] push_next {mode = fma, lo = -128, hi = 127, b_addr = [[M0]], o_addr = [[O0:[0-9]+]], n0 = 4, n1 = 3, a_s1 = 4, o_s1 = 4, ratio_a = 1.000000e+00, ratio_b = 5.000000e-01, fixed = -3.000000e+00}
// CHECK-NEXT: npu.store pop_prev %[[C0]] {sram = sp, elem_bytes = 1, sram_addr = [[O0]], dram_addr = 64, n0 = 12
// CHECK-NEXT: %[[C1:.*]] = npu.vadd pop_prev %[[A1]] push_next {mode = fma, lo = -128, hi = 127, a_addr = [[X1]], b_addr = [[M1]], o_addr = [[O1:[0-9]+]], n0 = 4, n1 = 3, a_s1 = 4, o_s1 = 4, ratio_a = 1.000000e+00, ratio_b = 5.000000e-01, fixed = -3.000000e+00}
// CHECK-NEXT: npu.store pop_prev %[[C1]] {sram = sp, elem_bytes = 1, sram_addr = [[O1]], dram_addr = 76, n0 = 12
// CHECK-NEXT: npu.end
!x = !quant.uniform<i8:f32, 0.5:2>
!m = !quant.uniform<i8:f32, 0.25:0>
!y = !quant.uniform<i8:f32, 0.5:-1>
func.func @main(%x: tensor<2x3x4x!x>) -> tensor<2x3x4x!y> {
  %k = arith.constant dense<[[[1, -2, 3, -4]], [[5, 6, -7, 8]]]> : tensor<2x1x4xi8>
  %m = "quant.scast"(%k) : (tensor<2x1x4xi8>) -> tensor<2x1x4x!m>
  %a = graph.add %x, %m : (tensor<2x3x4x!x>, tensor<2x1x4x!m>) -> tensor<2x3x4x!y>
  return %a : tensor<2x3x4x!y>
}

// The constant first, [3, 4] x [2, 3, 4] with a 2-row plan (forced): item
// 0 (rows 0-1) reads constant rows 0-1 (8 bytes at the pool's 4096) as A
// with a_s1 = 4; item 1 (rows 2-3) reads rows 2 and 0: two runs, two VMULs
// (rows 2 and 0 loaded once each, 4 bytes from 4104 and 4096).
// ROWS2-LABEL: npu.segment 0 "npu0"
// ROWS2-NEXT: npu.layer_start "graph.mul"
// ROWS2-NEXT: npu.load {sram = sp, elem_bytes = 1, dram_addr = 4096, n0 = 8, n1 = 1
// ROWS2-NEXT: %[[B0:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[X0:[0-9]+]], n0 = 8, n1 = 1
// ROWS2-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[R2:[0-9]+]], dram_addr = 4104, n0 = 4, n1 = 1
// ROWS2-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[R0:[0-9]+]], dram_addr = 4096, n0 = 4, n1 = 1
// ROWS2-NEXT: %[[B1:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[X1:[0-9]+]], dram_addr = 8, n0 = 8, n1 = 1
// ROWS2-NEXT: npu.vmul pop_prev %[[B0]] {{.*}}b_addr = [[X0]], o_addr = {{[0-9]+}}, n0 = 4, n1 = 2, a_s1 = 4, b_s1 = 4, o_s1 = 4
// ROWS2: npu.vmul pop_prev %[[B1]] {{.*}}a_addr = [[R2]], b_addr = [[X1]], o_addr = {{[0-9]+}}, n0 = 4, n1 = 1, a_s1 = 4, b_s1 = 4, o_s1 = 4
// ROWS2-NEXT: npu.vmul push_next {{.*}}a_addr = [[R0]], b_addr = {{[0-9]+}}, o_addr = {{[0-9]+}}, n0 = 4, n1 = 1, a_s1 = 4, b_s1 = 4, o_s1 = 4
