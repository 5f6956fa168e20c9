// DequantizeLinear -> op(fp32 constant) -> QuantizeLinear (graph-fold-qdq's
// add/sub/mul/div with an fp32 second operand: Swin's relative position
// bias) runs on the NPU as VBINARY with an fp32 B in ACC (b_f32).
// RUN: systole-opt %s --split-input-file --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s

// The constant (3 rows of 4, 12 words) fits the accumulator: the first
// item loads all of it into ACC word 0 from the constant pool (4096, after
// 128 bytes of activations rounded up); the planner's 3-row tiles each
// cover the constant's rows 0-2 once (output row r reads row r mod 3), so
// each VBINARY reads B from word 0 with b_s1 = 4 words. A at 0 then 4096,
// outputs at 8192 and 12288, stored to DRAM 64 and 76.
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.add"
// CHECK-NEXT: npu.load {sram = acc, elem_bytes = 4, dram_addr = 4096, n0 = 12, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[A0:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, n0 = 12, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[A1:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = 4096, dram_addr = 12, n0 = 12, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[C0:.*]] = npu.vbinary pop_prev %[[A0]] push_next {op = add, b_f32, a_zp = 2, o_zp = -1, o_addr = 8192, n0 = 4, n1 = 3, a_s1 = 4, b_s1 = 4, o_s1 = 4, a_scale = 5.000000e-01, o_scale = 2.500000e-01}
// CHECK-NEXT: npu.store pop_prev %[[C0]] {sram = sp, elem_bytes = 1, sram_addr = 8192, dram_addr = 64, n0 = 12, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[C1:.*]] = npu.vbinary pop_prev %[[A1]] push_next {op = add, b_f32, a_zp = 2, o_zp = -1, a_addr = 4096, o_addr = 12288, n0 = 4, n1 = 3, a_s1 = 4, b_s1 = 4, o_s1 = 4, a_scale = 5.000000e-01, o_scale = 2.500000e-01}
// CHECK-NEXT: npu.store pop_prev %[[C1]] {sram = sp, elem_bytes = 1, sram_addr = 12288, dram_addr = 76, n0 = 12, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.end
!x = !quant.uniform<i8:f32, 0.5:2>
!y = !quant.uniform<i8:f32, 0.25:-1>
func.func @main(%x: tensor<2x3x4x!x>) -> tensor<2x3x4x!y> {
  %c = arith.constant dense<[[1.0, -100.0, 0.25, 0.0], [2.0, 0.5, -0.75, 3.0], [-1.0, 1.5, 0.0, -2.0]]> : tensor<3x4xf32>
  %f = graph.dequantize %x : tensor<2x3x4x!x> -> tensor<2x3x4xf32>
  %a = graph.add %f, %c : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %q = graph.quantize %a : tensor<2x3x4xf32> -> tensor<2x3x4x!y>
  return %q : tensor<2x3x4x!y>
}

// -----

// 1,200 words do not fit tiny-4x4's 1,024-word accumulator: each 2-row
// item loads the 2 constant rows it reads (400 words) into the ACC slot of
// its parity (words 0 and 400). Output rows 0-5 read constant rows 0-5
// (pool 8192 + 1600 * k bytes for rows 2k, 2k+1), rows 6-11 again rows
// 0-5: the fourth item loads from 8192 again into slot 1 (the third
// item's VBINARY and the last three follow).
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.sub"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, n0 = 400, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[B0:.*]] = npu.load push_next {sram = acc, elem_bytes = 4, dram_addr = 8192, n0 = 400, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = 4096, dram_addr = 400, n0 = 400
// CHECK-NEXT: %[[B1:.*]] = npu.load push_next {sram = acc, elem_bytes = 4, sram_addr = 400, dram_addr = 9792, n0 = 400, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: {{.*}} = npu.vbinary pop_prev %[[B0]] push_prev push_next {op = sub, b_f32, a_zp = 2, o_zp = -1, o_addr = 8192, n0 = 200, n1 = 2, a_s1 = 200, b_s1 = 200, o_s1 = 200, a_scale = 5.000000e-01, o_scale = 2.500000e-01}
// CHECK: npu.load {{.*}}{sram = sp, elem_bytes = 1, dram_addr = 800, n0 = 400
// CHECK-NEXT: npu.load push_next {sram = acc, elem_bytes = 4, dram_addr = 11392, n0 = 400
// CHECK-NEXT: npu.vbinary pop_prev %[[B1]] push_prev push_next {op = sub, b_f32, a_zp = 2, o_zp = -1, a_addr = 4096, b_addr = 400, o_addr = 12288
// CHECK: npu.load {{.*}}{sram = sp, elem_bytes = 1, sram_addr = 4096, dram_addr = 1200, n0 = 400
// CHECK-NEXT: npu.load push_next {sram = acc, elem_bytes = 4, sram_addr = 400, dram_addr = 8192, n0 = 400
// CHECK-COUNT-4: npu.vbinary
// CHECK-NOT: npu.vbinary
// CHECK: npu.end
!x = !quant.uniform<i8:f32, 0.5:2>
!y = !quant.uniform<i8:f32, 0.25:-1>
func.func @main(%x: tensor<2x6x200x!x>) -> tensor<2x6x200x!y> {
  %c = arith.constant dense<1.5> : tensor<6x200xf32>
  %f = graph.dequantize %x : tensor<2x6x200x!x> -> tensor<2x6x200xf32>
  %a = graph.sub %f, %c : (tensor<2x6x200xf32>, tensor<6x200xf32>) -> tensor<2x6x200xf32>
  %q = graph.quantize %a : tensor<2x6x200xf32> -> tensor<2x6x200x!y>
  return %q : tensor<2x6x200x!y>
}
