// npu-concat-copy at the instruction level: a channel concat that is not
// written in place (here its inputs are the function's arguments, not
// convolution results) is a layer of VLUT copies: each input's tile is
// loaded, looked up in that input's table Q_out(DQ_i(c)) (its 256 bytes
// loaded from the constant pool) and stored into the input's channel
// slice of the concat's buffer.
// RUN: systole-opt %s --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s

// x: 4x4 pixels x 4 channels (scale 0.5, zero point 1), y: 4x4 x 2 (0.25,
// -2), concatenated into 6 channels (1.0, 3). Plan (asserted): one tile of
// 16 pixel rows. DRAM: x at 0 (64 bytes), y at 64 (32 bytes, 64-byte
// aligned), the concat's 96 bytes at 128 (arena 256). Constant pool from
// 4096 (the arena rounded up to 4096): x's table at 4096, y's at 4352
// (+256). x's copy: LOAD of its 16 pixels x 4 channels, contiguous on
// both sides, as one run n0 = 64, VLUT n0 = 4, n1 = 16 through x's table,
// STORE n0 = 4 by n1 = 16 at channel 0 of the concat (128) with the
// concat's pixel stride s1 = 6 (not contiguous in DRAM: not merged); y's:
// LOAD from 64 as one run n0 = 32 (16 pixels x 2 channels), VLUT n0 = 2,
// STORE n0 = 2 at channel 4 (128 + 4 = 132), s1 = 6. (x's tile sits at
// scratchpad address 0: its LOAD's sram_addr and its VLUT's a_addr are
// the elided default.)
// CHECK-LABEL: func.func @main
// CHECK: graph.concat {{.*}}npu.dram = 128 : i64, npu.placement = #npu<placement npu>, npu.tile = #npu.tile<channels = 4, {{.*}}rows = 16>
// CHECK-LABEL: npu.program "tiny-4x4"
// CHECK-NEXT: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.concat"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, n0 = 64, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[TX:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[LX:[0-9]+]], dram_addr = 4096, n0 = 256, n1 = 1, n2 = 1, n3 = 1, s1 = 256, t1 = 256}
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[Y:[0-9]+]], dram_addr = 64, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[TY:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[LY:[0-9]+]], dram_addr = 4352, n0 = 256, n1 = 1, n2 = 1, n3 = 1, s1 = 256, t1 = 256}
// CHECK-NEXT: %[[VX:.*]] = npu.vlut pop_prev %[[TX]] push_next {lut_addr = [[LX]], o_addr = [[OX:[0-9]+]], n0 = 4, n1 = 16, a_s1 = 4, o_s1 = 4}
// CHECK-NEXT: npu.store pop_prev %[[VX]] {sram = sp, elem_bytes = 1, sram_addr = [[OX]], dram_addr = 128, n0 = 4, n1 = 16, n2 = 1, n3 = 1, s1 = 6, t1 = 4}
// CHECK-NEXT: %[[VY:.*]] = npu.vlut pop_prev %[[TY]] push_next {a_addr = [[Y]], lut_addr = [[LY]], o_addr = [[OY:[0-9]+]], n0 = 2, n1 = 16, a_s1 = 2, o_s1 = 2}
// CHECK-NEXT: npu.store pop_prev %[[VY]] {sram = sp, elem_bytes = 1, sram_addr = [[OY]], dram_addr = 132, n0 = 2, n1 = 16, n2 = 1, n3 = 1, s1 = 6, t1 = 2}
// CHECK-NEXT: npu.end
!a = !quant.uniform<i8:f32, 0.5:1>
!b = !quant.uniform<i8:f32, 0.25:-2>
!o = !quant.uniform<i8:f32, 1.0:3>
func.func @main(%x: tensor<1x4x4x4x!a>, %y: tensor<1x4x4x2x!b>) -> tensor<1x4x4x6x!o> {
  %dx = graph.dequantize %x : tensor<1x4x4x4x!a> -> tensor<1x4x4x4xf32>
  %dy = graph.dequantize %y : tensor<1x4x4x2x!b> -> tensor<1x4x4x2xf32>
  %c = graph.concat %dx, %dy {axis = 3 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x6xf32>
  %q = graph.quantize %c : tensor<1x4x4x6xf32> -> tensor<1x4x4x6x!o>
  return %q : tensor<1x4x4x6x!o>
}
