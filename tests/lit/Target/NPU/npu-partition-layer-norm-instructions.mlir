// A quantized layer norm (graph-fold-qdq's DequantizeLinear ->
// LayerNormalization -> QuantizeLinear) runs on the NPU as VLAYERNORM.
// Hand-derived on tiny-4x4: [3, 8] int8 -> 3 rows of 8 in one item; the
// scale (8 fp32 words) into ACC word 0 and the bias into word 8 (the
// constant pool at 4096, 64-byte aligned pieces: 4096 and 4160), the 24
// input bytes as one run, VLAYERNORM n0 = 8, n1 = 3 with the zero points
// -3 and 5, the scales and epsilon, the 24 output bytes stored at 64.
// RUN: systole-opt %s --split-input-file --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s

// CHECK: graph.layer_norm %arg0, %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 9.9999997473787516E-6 : f64, npu.dram = 64 : i64, npu.placement = #npu<placement npu>
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.layer_norm"
// CHECK-NEXT: npu.load {sram = acc, elem_bytes = 4, dram_addr = 4096, n0 = 8, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.load {sram = acc, elem_bytes = 4, sram_addr = 8, dram_addr = 4160, n0 = 8, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[L:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, n0 = 24, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[C:.*]] = npu.vlayernorm pop_prev %[[L]] push_next {bias, x_zp = -3, y_zp = 5, o_addr = [[OUT:[0-9]+]], n0 = 8, n1 = 3, a_s1 = 8, beta_addr = 8, o_s1 = 8, eps = 9.99999974E-6, x_scale = 5.000000e-02, y_scale = 2.000000e-02}
// CHECK-NEXT: npu.store pop_prev %[[C]] {sram = sp, elem_bytes = 1, sram_addr = [[OUT]], dram_addr = 64, n0 = 24, n1 = 1
// CHECK-NEXT: npu.end
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.02:5>
func.func @main(%x: tensor<3x8x!x>) -> tensor<3x8x!y> {
  %s = arith.constant dense<1.5> : tensor<8xf32>
  %b = arith.constant dense<0.25> : tensor<8xf32>
  %f = graph.dequantize %x : tensor<3x8x!x> -> tensor<3x8xf32>
  %n = graph.layer_norm %f, %s, %b {axis = 1 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<3x8xf32>
  %q = graph.quantize %n : tensor<3x8xf32> -> tensor<3x8x!y>
  return %q : tensor<3x8x!y>
}

// -----

// uint8 codes: the DMA flips them into the int8 domain (zero points 130 and
// 200 become 2 and 72) and back; no bias: no beta load.
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.layer_norm"
// CHECK-NEXT: npu.load {sram = acc, elem_bytes = 4, dram_addr = 4096, n0 = 8
// CHECK-NEXT: npu.load push_next {sram = sp, elem_bytes = 1, u8_to_i8, n0 = 24
// CHECK-NEXT: npu.vlayernorm pop_prev %{{.*}} push_next {x_zp = 2, y_zp = 72, o_addr = [[OUT:[0-9]+]], n0 = 8, n1 = 3
// CHECK-NEXT: npu.store pop_prev %{{.*}} {sram = sp, elem_bytes = 1, i8_to_u8, sram_addr = [[OUT]], dram_addr = 64, n0 = 24
!x = !quant.uniform<u8:f32, 0.05:130>
!y = !quant.uniform<u8:f32, 0.02:200>
func.func @main(%x: tensor<3x8x!x>) -> tensor<3x8x!y> {
  %s = arith.constant dense<1.5> : tensor<8xf32>
  %f = graph.dequantize %x : tensor<3x8x!x> -> tensor<3x8xf32>
  %n = graph.layer_norm %f, %s {axis = 1 : i64, epsilon = 1.0E-5 : f64} : (tensor<3x8xf32>, tensor<8xf32>) -> tensor<3x8xf32>
  %q = graph.quantize %n : tensor<3x8xf32> -> tensor<3x8x!y>
  return %q : tensor<3x8x!y>
}
