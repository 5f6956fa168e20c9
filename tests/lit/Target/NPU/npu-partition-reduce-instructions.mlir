// A quantized mean over trailing axes (graph-fold-qdq's DequantizeLinear ->
// ReduceMean -> QuantizeLinear) runs on the NPU as VREDUCE.
// Hand-derived on tiny-4x4 with tiles of 3 rows forced: [5, 6] int8 -> two
// items, rows 0-2 (18 bytes from DRAM 0) and rows 3-4 (12 bytes from 18);
// the second item's first row starts 3 * 6 = 18 elements into ORT's
// buffer, 18 mod 4 = phase 2; one result byte per row, stored at the
// output (DRAM 64) + 0 and + 3.
// RUN: systole-opt %s --systole-npu-pipeline=hw=tiny-4x4 --npu-plan-tiles="hw=tiny-4x4 force-plan=rows=3" --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s

// CHECK: graph.reduce "mean" %arg0 {axes = array<i64: 1>, keepdims = true, npu.dram = 64 : i64, npu.placement = #npu<placement npu>
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.reduce"
// CHECK-NEXT: %[[L0:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, n0 = 18, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[L1:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[A1:[0-9]+]], dram_addr = 18, n0 = 12, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[C0:.*]] = npu.vreduce pop_prev %[[L0]] push_next {mean, x_zp = -3, y_zp = 5, o_addr = [[O0:[0-9]+]], n0 = 6, n1 = 3, a_s1 = 6, o_s1 = 1, x_scale = 5.000000e-02, y_scale = 2.000000e-02}
// CHECK-NEXT: npu.store pop_prev %[[C0]] {sram = sp, elem_bytes = 1, sram_addr = [[O0]], dram_addr = 64, n0 = 3, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[C1:.*]] = npu.vreduce pop_prev %[[L1]] push_next {phase = 2, mean, x_zp = -3, y_zp = 5, a_addr = [[A1]], o_addr = [[O1:[0-9]+]], n0 = 6, n1 = 2, a_s1 = 6, o_s1 = 1, x_scale = 5.000000e-02, y_scale = 2.000000e-02}
// CHECK-NEXT: npu.store pop_prev %[[C1]] {sram = sp, elem_bytes = 1, sram_addr = [[O1]], dram_addr = 67, n0 = 2, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.end
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.02:5>
func.func @main(%x: tensor<5x6x!x>) -> tensor<5x1x!y> {
  %f = graph.dequantize %x : tensor<5x6x!x> -> tensor<5x6xf32>
  %m = graph.reduce "mean" %f {axes = array<i64: 1>, keepdims = true} : tensor<5x6xf32> -> tensor<5x1xf32>
  %q = graph.quantize %m : tensor<5x1xf32> -> tensor<5x1x!y>
  return %q : tensor<5x1x!y>
}
