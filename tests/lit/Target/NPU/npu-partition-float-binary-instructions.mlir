// A quantized sub or div (graph-fold-qdq's DequantizeLinear -> Sub/Div ->
// QuantizeLinear, which ORT does not fuse) runs on the NPU as VBINARY.
// RUN: systole-opt %s --split-input-file --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline --mlir-print-elementsattrs-with-hex-if-larger=-1 | FileCheck %s

// A per-row operand (an exporter's LayerNorm: x - mean(x)), hand-derived
// on tiny-4x4 with the planner's 2-row tiles: item 0 loads rows 0-1 of x
// (16 bytes from DRAM 0) and their 2 means (from 64), item 1 row 2 (8 bytes
// from 16) and its mean (66); VBINARY reads B once per row (b_bcast, b_s1
// = 1); the results go to DRAM 128 and 144.
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.sub"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[B0:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[MB0:[0-9]+]], dram_addr = 64, n0 = 2, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[A1:[0-9]+]], dram_addr = 16, n0 = 8, n1 = 1, n2 = 1, n3 = 1, s1 = 8, t1 = 8}
// CHECK-NEXT: %[[B1:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[MB1:[0-9]+]], dram_addr = 66, n0 = 1, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[C0:.*]] = npu.vbinary pop_prev %[[B0]] push_next {op = sub, b_bcast, a_zp = -3, b_zp = 5, o_zp = -1, b_addr = [[MB0]], o_addr = [[O0:[0-9]+]], n0 = 8, n1 = 2, a_s1 = 8, b_s1 = 1, o_s1 = 8, a_scale = 5.000000e-02, b_scale = 2.000000e-02, o_scale = 1.000000e-01}
// CHECK-NEXT: npu.store pop_prev %[[C0]] {sram = sp, elem_bytes = 1, sram_addr = [[O0]], dram_addr = 128, n0 = 16
// CHECK-NEXT: %[[C1:.*]] = npu.vbinary pop_prev %[[B1]] push_next {op = sub, b_bcast, a_zp = -3, b_zp = 5, o_zp = -1, a_addr = [[A1]], b_addr = [[MB1]], o_addr = [[O1:[0-9]+]], n0 = 8, n1 = 1, a_s1 = 8, b_s1 = 1, o_s1 = 8
// CHECK-NEXT: npu.store pop_prev %[[C1]] {sram = sp, elem_bytes = 1, sram_addr = [[O1]], dram_addr = 144, n0 = 8
// CHECK-NEXT: npu.end
!x = !quant.uniform<i8:f32, 0.05:-3>
!m = !quant.uniform<i8:f32, 0.02:5>
!y = !quant.uniform<i8:f32, 0.1:-1>
func.func @main(%x: tensor<3x8x!x>, %mean: tensor<3x1x!m>) -> tensor<3x8x!y> {
  %f = graph.dequantize %x : tensor<3x8x!x> -> tensor<3x8xf32>
  %g = graph.dequantize %mean : tensor<3x1x!m> -> tensor<3x1xf32>
  %d = graph.sub %f, %g : (tensor<3x8xf32>, tensor<3x1xf32>) -> tensor<3x8xf32>
  %q = graph.quantize %d : tensor<3x8xf32> -> tensor<3x8x!y>
  return %q : tensor<3x8x!y>
}

// -----

// uint8 A and output, int8 per-channel B: each operand is shifted into the
// int8 domain on its own (A's DMA flips, zero point 130 - 128 = 2; B as
// is; the output's 200 - 128 = 72, flipped back on the store). B is read
// with an outer stride of 0 (b_s1 absent), one vector for both rows.
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.div"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, u8_to_i8, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[B:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[SB:[0-9]+]], dram_addr = 64, n0 = 8, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[C:.*]] = npu.vbinary pop_prev %[[B]] push_next {op = div, a_zp = 2, b_zp = 5, o_zp = 72, b_addr = [[SB]], o_addr = [[O:[0-9]+]], n0 = 8, n1 = 2, a_s1 = 8, o_s1 = 8, a_scale = 5.000000e-02, b_scale = 2.000000e-02, o_scale = 1.000000e-01}
// CHECK-NEXT: npu.store pop_prev %[[C]] {sram = sp, elem_bytes = 1, i8_to_u8, sram_addr = [[O]], dram_addr = 128, n0 = 16
// CHECK-NEXT: npu.end
!x = !quant.uniform<u8:f32, 0.05:130>
!s = !quant.uniform<i8:f32, 0.02:5>
!y = !quant.uniform<u8:f32, 0.1:200>
func.func @main(%x: tensor<2x8x!x>, %s: tensor<1x8x!s>) -> tensor<2x8x!y> {
  %f = graph.dequantize %x : tensor<2x8x!x> -> tensor<2x8xf32>
  %g = graph.dequantize %s : tensor<1x8x!s> -> tensor<1x8xf32>
  %d = graph.div %f, %g : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  %q = graph.quantize %d : tensor<2x8xf32> -> tensor<2x8x!y>
  return %q : tensor<2x8x!y>
}

// -----

// A broadcast VBINARY cannot address (B repeats along a middle dim) runs in
// float on the host, and says why.
// CHECK: graph.sub %{{.*}} {{{.*}}npu.host_reason = "broadcasting sub/div is supported on the NPU for a per-row, per-channel or scalar operand only (runs in float)", npu.placement = #npu<placement host>}
!x = !quant.uniform<i8:f32, 0.05:-3>
!m = !quant.uniform<i8:f32, 0.02:5>
!y = !quant.uniform<i8:f32, 0.1:-1>
func.func @main(%x: tensor<2x3x8x!x>, %m: tensor<2x1x8x!m>) -> tensor<2x3x8x!y> {
  %f = graph.dequantize %x : tensor<2x3x8x!x> -> tensor<2x3x8xf32>
  %g = graph.dequantize %m : tensor<2x1x8x!m> -> tensor<2x1x8xf32>
  %d = graph.sub %f, %g : (tensor<2x3x8xf32>, tensor<2x1x8xf32>) -> tensor<2x3x8xf32>
  %q = graph.quantize %d : tensor<2x3x8xf32> -> tensor<2x3x8x!y>
  return %q : tensor<2x3x8x!y>
}

// -----

// A table that only the division's result feeds (a LayerNorm's Div, then
// its scale: here x 2 in every channel, one [256] table) runs as a VLUT on
// the division's output tile, in place, before the one store: no layer of
// its own, and the unscaled quotient never goes to DRAM. Hand-derived
// entries: code c (scale 0.1, zero point -1) doubled and requantized to
// scale 0.2, zero point 4 is c + 5, so entry k = c + 128 is k - 123, 127
// from k = 250 on. The table is loaded once per slot (the first items);
// the store writes the table's result (DRAM 128, the graph.table's).
// CHECK-LABEL: graph.table %{{.*}} {npu.dram = 128 : i64, npu.placement = #npu<placement npu>, table = dense<[-123, -122, -121,
// CHECK-SAME: 125, 126, 127, 127, 127, 127, 127, 127]> : tensor<256xi8>}
// CHECK: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.div"
// CHECK-NOT: npu.layer_start
// CHECK: npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[LUT:[0-9]+]], dram_addr = {{[0-9]+}}, n0 = 256, n1 = 1,
// CHECK-NEXT: npu.vbinary pop_prev %{{.*}} {op = div, {{.*}}o_addr = [[O:[0-9]+]], n0 = 8, n1 = 3,
// CHECK-NEXT: npu.vlut push_next {a_addr = [[O]], lut_addr = [[LUT]], o_addr = [[O]], n0 = 8, n1 = 3, a_s1 = 8, o_s1 = 8}
// CHECK-NEXT: npu.store pop_prev %{{.*}} {sram = sp, elem_bytes = 1, sram_addr = [[O]], dram_addr = 128, n0 = 24,
// CHECK-NEXT: npu.end
!x = !quant.uniform<i8:f32, 0.05:-3>
!m = !quant.uniform<i8:f32, 0.02:5>
!y = !quant.uniform<i8:f32, 0.1:-1>
!z = !quant.uniform<i8:f32, 0.2:4>
func.func @main(%x: tensor<3x8x!x>, %mean: tensor<3x1x!m>) -> tensor<3x8x!z> {
  %f = graph.dequantize %x : tensor<3x8x!x> -> tensor<3x8xf32>
  %g = graph.dequantize %mean : tensor<3x1x!m> -> tensor<3x1xf32>
  %d = graph.div %f, %g : (tensor<3x8xf32>, tensor<3x1xf32>) -> tensor<3x8xf32>
  %q = graph.quantize %d : tensor<3x8xf32> -> tensor<3x8x!y>
  %e = graph.dequantize %q : tensor<3x8x!y> -> tensor<3x8xf32>
  %s = arith.constant dense<2.0> : tensor<8xf32>
  %p = graph.mul %e, %s : (tensor<3x8xf32>, tensor<8xf32>) -> tensor<3x8xf32>
  %r = graph.quantize %p : tensor<3x8xf32> -> tensor<3x8x!z>
  return %r : tensor<3x8x!z>
}
