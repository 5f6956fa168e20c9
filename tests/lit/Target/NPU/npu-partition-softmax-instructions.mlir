// A quantized softmax over the last axis (ORT's QLinearSoftmax, a
// graph.host with the node's parameters) runs on the NPU as VSOFTMAX.
// Hand-derived: [1, 2, 3, 5] int8 -> 6 rows of 5 codes in two items of 3
// rows on tiny-4x4 (the planner's pick: the second item's load overlaps
// the first VSOFTMAX): the 256-word fp32 table into ACC word 0 once (the
// constant pool at 4096), each item's 15 input bytes as one run, VSOFTMAX
// n0 = 5, n1 = 3 with c = floor(1 / (1/256)) = 256 and the output zero
// point -128, 15 output bytes stored at 64 and 79.
// RUN: systole-opt %s --split-input-file --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s

// CHECK: graph.host "QLinearSoftmax"(%arg0) attributes {npu.dram = 64 : i64, npu.placement = #npu<placement npu>
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.host"
// CHECK-NEXT: npu.load {sram = acc, elem_bytes = 4, dram_addr = 4096, n0 = 256, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[L0:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, n0 = 15, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[L1:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[IN1:[0-9]+]], dram_addr = 15, n0 = 15, n1 = 1
// CHECK-NEXT: %[[C0:.*]] = npu.vsoftmax pop_prev %[[L0]] push_next {zp = -128, o_addr = [[OUT0:[0-9]+]], n0 = 5, n1 = 3, a_s1 = 5, o_s1 = 5, c = 2.560000e+02}
// CHECK-NEXT: npu.store pop_prev %[[C0]] {sram = sp, elem_bytes = 1, sram_addr = [[OUT0]], dram_addr = 64, n0 = 15, n1 = 1
// CHECK-NEXT: %[[C1:.*]] = npu.vsoftmax pop_prev %[[L1]] push_next {zp = -128, a_addr = [[IN1]], o_addr = [[OUT1:[0-9]+]], n0 = 5, n1 = 3
// CHECK-NEXT: npu.store pop_prev %[[C1]] {sram = sp, elem_bytes = 1, sram_addr = [[OUT1]], dram_addr = 79, n0 = 15, n1 = 1
// CHECK-NEXT: npu.end
!x = !quant.uniform<i8:f32, 0.05:3>
!y = !quant.uniform<i8:f32, 0.00390625:-128>
func.func @main(%x: tensor<1x2x3x5x!x>) -> tensor<1x2x3x5x!y> {
  %s = graph.host "QLinearSoftmax"(%x) attributes {params = {axes = array<i64: 3>, x_scale = 5.000000e-02 : f32, y_scale = 3.906250e-03 : f32, y_zero_point = -128 : i64, signed = true}} : (tensor<1x2x3x5x!x>) -> tensor<1x2x3x5x!y> {}
  return %s : tensor<1x2x3x5x!y>
}

// -----

// uint8 codes: the DMA flips them into the int8 domain, VSOFTMAX reads its
// zero point unsigned (200 = 0xc8, printed as -56) and stores the storage
// bytes unflipped. Opset < 13 axes [2, 3]: rows of 15.
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK: npu.load push_next {sram = sp, elem_bytes = 1, u8_to_i8, n0 = 30, n1 = 1
// CHECK-NEXT: npu.vsoftmax pop_prev %{{.*}} push_next {u8, zp = -56, o_addr = [[OUT:[0-9]+]], n0 = 15, n1 = 2, a_s1 = 15, o_s1 = 15, c = 1.280000e+02}
// CHECK-NEXT: npu.store pop_prev %{{.*}} {sram = sp, elem_bytes = 1, sram_addr = [[OUT]], dram_addr = 64, n0 = 30, n1 = 1
!x = !quant.uniform<u8:f32, 0.05:130>
!y = !quant.uniform<u8:f32, 0.0078125:200>
func.func @main(%x: tensor<1x2x3x5x!x>) -> tensor<1x2x3x5x!y> {
  %s = graph.host "QLinearSoftmax"(%x) attributes {params = {axes = array<i64: 2, 3>, x_scale = 5.000000e-02 : f32, y_scale = 7.812500e-03 : f32, y_zero_point = 200 : i64, signed = false}} : (tensor<1x2x3x5x!x>) -> tensor<1x2x3x5x!y> {}
  return %s : tensor<1x2x3x5x!y>
}
