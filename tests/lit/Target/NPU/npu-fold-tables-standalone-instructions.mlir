// npu-fold-tables=standalone=1 at the instruction level: a chain no REQUANT
// can apply (after an add; one table per channel) is a VLUT layer of its
// own: its table(s) LOADed from the constant pool, a barrier after the
// producer's layer, then per row tile a LOAD of the producer's stored
// result, a VLUT through the table slot and a STORE.
// RUN: systole-opt %s --split-input-file --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s

// neg after an int8 add, every type at scale 1 and zero point 0; the add's
// result is also returned, so the table cannot run in the add's layer (as
// it does when it is the add's only reader, fusedTable). The add
// is a VADD layer (ratio_a = ratio_b = 1 / 1 = 1, fixed = 0 - (0 + 0) = 0,
// elided as the default) of two items of 8 pixels x 4 channels. DRAM: x at
// 0, y at 64, the add at 128, the table's result at 192 (allocated while
// the add's is live): arena 256, so the constant pool starts at 4096 and
// the table, its only constant, is there: 256 bytes. The VLUT layer
// (asserted plan: one tile of 16 pixel rows x 4 channels) reads the add's
// 64 bytes (contiguous: one run, n0 = 64), looks them up as n0 = 4
// channels by n1 = 16 rows (strides 4) and writes them at 192 (one run).
// CHECK-LABEL: func.func @main
// CHECK: graph.table {{.*}}npu.tile = #npu.tile<channels = 4, {{.*}}rows = 16>
// CHECK-LABEL: npu.program "tiny-4x4"
// CHECK: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[LUT:[0-9]+]], dram_addr = 4096, n0 = 256, n1 = 1, n2 = 1, n3 = 1, s1 = 256, t1 = 256}
// CHECK: npu.vadd {{.*}}ratio_a = 1.000000e+00, ratio_b = 1.000000e+00}
// CHECK-NEXT: npu.store {{.*}}dram_addr = 128, n0 = 32, n1 = 1,
// CHECK-NEXT: npu.vadd {{.*}}ratio_a = 1.000000e+00, ratio_b = 1.000000e+00}
// CHECK-NEXT: %[[S:.*]] = npu.store {{.*}}dram_addr = 160, n0 = 32, n1 = 1,
// CHECK-NEXT: npu.layer_start "graph.table" {hoisted = 1 : i64, hoisted_bytes = 256 : i64}
// CHECK-NEXT: %[[F:.*]] = npu.fence pop_next %[[S]] push_prev {queue = compute}
// CHECK-NEXT: %[[A:.*]] = npu.load pop_next %[[F]] push_next {sram = sp, elem_bytes = 1, sram_addr = [[IN:[0-9]+]], dram_addr = 128, n0 = 64, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[V:.*]] = npu.vlut pop_prev %[[A]] push_next {a_addr = [[IN]], lut_addr = [[LUT]], o_addr = [[OUT:[0-9]+]], n0 = 4, n1 = 16, a_s1 = 4, o_s1 = 4}
// CHECK-NEXT: npu.store pop_prev %[[V]] {sram = sp, elem_bytes = 1, sram_addr = [[OUT]], dram_addr = 192, n0 = 64, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.end
!one = !quant.uniform<i8:f32, 1.0>
func.func @main(%x: tensor<1x4x4x4x!one>, %y: tensor<1x4x4x4x!one>) -> (tensor<1x4x4x4x!one>, tensor<1x4x4x4x!one>) {
  %a = graph.add %x, %y : (tensor<1x4x4x4x!one>, tensor<1x4x4x4x!one>) -> tensor<1x4x4x4x!one>
  %d = graph.dequantize %a : tensor<1x4x4x4x!one> -> tensor<1x4x4x4xf32>
  %n = graph.unary "neg" %d : tensor<1x4x4x4xf32>
  %q = graph.quantize %n : tensor<1x4x4x4xf32> -> tensor<1x4x4x4x!one>
  return %q, %a : tensor<1x4x4x4x!one>, tensor<1x4x4x4x!one>
}

// -----

// A per-channel scale ([1, 2] along the last dim) after a 4x4 by 4x2
// matmul: one table per channel, [2, 256], not a REQUANT table. The matmul
// (M = 4 rows fit the 4 array rows: output-stationary, a_zp = x's 1,
// K = 4, N = 2) stores its 4 x 2 codes (one run of 8 bytes); the VLUT
// layer loads both tables in one LOAD of one run of 2 x 256 = 512 bytes
// (n0 = 512), loads the 8 codes as one run and looks column i up in table
// i (`per_column`), n0 = 2 columns by n1 = 4 rows, strides 2, storing one
// run of 8 bytes. DRAM: x at 0 (16 bytes, 64 aligned), the matmul
// at 64, the table's result at 128; arena 192, so the pool starts at 4096:
// the 4 x 2 weights at 4096, 2 biases at 4160, 2 scales at 4224, the
// tables at 4288.
// CHECK-LABEL: func.func @main
// CHECK: graph.table {{.*}}npu.tile = #npu.tile<channels = 2, {{.*}}rows = 4>
// CHECK-LABEL: npu.program "tiny-4x4"
// CHECK: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[LUT:[0-9]+]], dram_addr = 4288, n0 = 512, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.matmul {{.*}}{dataflow = os, a_zp = 1, {{.*}}m = 4, k = 4, n = 2,
// CHECK-NEXT: npu.requant push_next {bias, lo = -128, hi = 127, {{.*}}m = 4, n = 2,
// CHECK-NEXT: %[[S:.*]] = npu.store {{.*}}dram_addr = 64, n0 = 8, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.layer_start "graph.table" {hoisted = 1 : i64, hoisted_bytes = 512 : i64}
// CHECK-NEXT: %[[F:.*]] = npu.fence pop_next %[[S]] push_prev {queue = compute}
// CHECK-NEXT: %[[A:.*]] = npu.load pop_next %[[F]] push_next {sram = sp, elem_bytes = 1, sram_addr = [[IN:[0-9]+]], dram_addr = 64, n0 = 8, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[V:.*]] = npu.vlut pop_prev %[[A]] push_next {per_column, a_addr = [[IN]], lut_addr = [[LUT]], o_addr = [[OUT:[0-9]+]], n0 = 2, n1 = 4, a_s1 = 2, o_s1 = 2}
// CHECK-NEXT: npu.store pop_prev %[[V]] {sram = sp, elem_bytes = 1, sram_addr = [[OUT]], dram_addr = 128, n0 = 8, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.end
!a = !quant.uniform<i8:f32, 0.5:1>
!w = !quant.uniform<i8:f32, 0.25>
!one2 = !quant.uniform<i8:f32, 1.0>
func.func @main(%x: tensor<4x4x!a>) -> tensor<4x2x!one2> {
  %c = arith.constant dense<1> : tensor<4x2xi8>
  %w = "quant.scast"(%c) : (tensor<4x2xi8>) -> tensor<4x2x!w>
  %m = graph.matmul %x, %w : (tensor<4x4x!a>, tensor<4x2x!w>) -> tensor<4x2x!one2>
  %d = graph.dequantize %m : tensor<4x2x!one2> -> tensor<4x2xf32>
  %s = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %p = graph.mul %d, %s : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %q = graph.quantize %p : tensor<4x2xf32> -> tensor<4x2x!one2>
  return %q : tensor<4x2x!one2>
}
