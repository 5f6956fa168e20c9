// npu-concat-copy along an axis other than the last: the concat is rows of
// the dims before the axis, each the inputs' runs of the dims after it side
// by side. Hand-derived on tiny-4x4: x [1, 2, 2, 4] (scale 0.5, zero point
// 1) and y [1, 1, 2, 4] (0.25, -2) along H into [1, 3, 2, 4] (1.0, 3): one
// row (N = 1) of x's 2 * 2 * 4 = 16 bytes then y's 8. DRAM: x at 0, y at
// 64, the result at 128; x's table at 4096, y's at 4352 (constant pool).
// x's copy: LOAD 16 bytes, VLUT n0 = 16 through x's table, STORE at 128;
// y's: LOAD 8 bytes from 64, VLUT n0 = 8, STORE at 128 + 16 = 144.
// RUN: systole-opt %s --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s

// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.concat"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, n0 = 16, n1 = 1, n2 = 1, n3 = 1
// CHECK-NEXT: npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[TX:[0-9]+]], dram_addr = 4096, n0 = 256
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[SY:[0-9]+]], dram_addr = 64, n0 = 8, n1 = 1
// CHECK-NEXT: npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[TY:[0-9]+]], dram_addr = 4352, n0 = 256
// CHECK-NEXT: npu.vlut pop_prev %{{.*}} push_next {lut_addr = [[TX]], o_addr = {{[0-9]+}}, n0 = 16, n1 = 1, a_s1 = 16, o_s1 = 16}
// CHECK-NEXT: npu.store {{.*}}dram_addr = 128, n0 = 16, n1 = 1
// CHECK-NEXT: npu.vlut pop_prev %{{.*}} push_next {a_addr = [[SY]], lut_addr = [[TY]], o_addr = {{[0-9]+}}, n0 = 8, n1 = 1, a_s1 = 8, o_s1 = 8}
// CHECK-NEXT: npu.store {{.*}}dram_addr = 144, n0 = 8, n1 = 1
// CHECK-NEXT: npu.end
!a = !quant.uniform<i8:f32, 0.5:1>
!b = !quant.uniform<i8:f32, 0.25:-2>
!o = !quant.uniform<i8:f32, 1.0:3>
func.func @main(%x: tensor<1x2x2x4x!a>, %y: tensor<1x1x2x4x!b>) -> tensor<1x3x2x4x!o> {
  %dx = graph.dequantize %x : tensor<1x2x2x4x!a> -> tensor<1x2x2x4xf32>
  %dy = graph.dequantize %y : tensor<1x1x2x4x!b> -> tensor<1x1x2x4xf32>
  %c = graph.concat %dx, %dy {axis = 1 : i64} : (tensor<1x2x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x3x2x4xf32>
  %q = graph.quantize %c : tensor<1x3x2x4xf32> -> tensor<1x3x2x4x!o>
  return %q : tensor<1x3x2x4x!o>
}
