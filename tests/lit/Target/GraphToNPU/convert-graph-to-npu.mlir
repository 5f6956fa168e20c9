// RUN: systole-opt %s --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s

// A 1x1 convolution of a 4x4 image with 4 channels into 4 channels on the
// 4x4 array, as code generation writes it: the K = 4 weight rows of N = 4
// columns (16 bytes) into the scratchpad once, then per item of two image
// rows (M = 8 pixels) the rows with the input zero point as padding value,
// a WS MATMUL (a_zp = the input zero point -3, K = 4, N = 4), a REQUANT
// with the bias to the output zero point -128 (the fused ReLU's lower
// clamp), and a STORE of 8 x 4 = 32 bytes; the two items cover the 16
// pixels (DRAM offsets 64 and 96 of the 64-byte output), the second item's
// loads double-buffered into the other half (4096) of the scratchpad.
// CHECK-LABEL: npu.program "tiny-4x4"
// CHECK-NEXT: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.conv2d"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, pad_value = -3, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[W:[0-9]+]], dram_addr = {{[0-9]+}}, n0 = 16, n1 = 1, n2 = 1, n3 = 1, s1 = 16, t1 = 16}
// CHECK-NEXT: npu.load {sram = acc, elem_bytes = 4, sram_addr = [[BIAS:[0-9]+]], dram_addr = {{[0-9]+}}, n0 = 4, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[T0:.*]] = npu.load push_next {sram = acc, elem_bytes = 4, sram_addr = [[SCALE:[0-9]+]], dram_addr = {{[0-9]+}}, n0 = 4, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, pad_value = -3, sram_addr = 4096, dram_addr = 32, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.load {sram = acc,
// CHECK-NEXT: %[[T1:.*]] = npu.load push_next {sram = acc,
// CHECK-NEXT: npu.matmul pop_prev %[[T0]] {dataflow = ws, preload, a_zp = -3, {{.*}}, m = 8, k = 4, n = 4, b_addr = [[W]], c_stride = 4}
// CHECK-NEXT: %[[S0:.*]] = npu.requant push_next {bias, zp = -128, lo = -128, hi = 127, c_stride = 4, scale_addr = [[SCALE]], o_addr = [[OUT:[0-9]+]], o_stride = 4, m = 8, n = 4, bias_addr = [[BIAS]]}
// CHECK-NEXT: npu.store pop_prev %[[S0]] {sram = sp, elem_bytes = 1, sram_addr = [[OUT]], dram_addr = 64, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.matmul pop_prev %[[T1]] {dataflow = ws, preload, a_zp = -3, a_addr = 4096, {{.*}}, m = 8, k = 4, n = 4, b_addr = [[W]],
// CHECK-NEXT: %[[S1:.*]] = npu.requant push_next
// CHECK-NEXT: npu.store pop_prev %[[S1]] {sram = sp, elem_bytes = 1, sram_addr = {{[0-9]+}}, dram_addr = 96, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.end
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-128>
!w = !quant.uniform<i8:f32, 0.01>
!b = !quant.uniform<i32:f32, 5.0e-4>
func.func @main(%x: tensor<1x4x4x4x!x>) -> tensor<1x4x4x4x!y> {
  %wi = arith.constant dense<1> : tensor<1x1x4x4xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x4x4xi8>) -> tensor<1x1x4x4x!w>
  %bi = arith.constant dense<[10, -10, 1, 2]> : tensor<4xi32>
  %b = "quant.scast"(%bi) : (tensor<4xi32>) -> tensor<4x!b>
  %c = graph.conv2d %x, %w, %b {act_min = -128 : i64, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x4x!x>, tensor<1x1x4x4x!w>, tensor<4x!b>) -> tensor<1x4x4x4x!y>
  return %c : tensor<1x4x4x4x!y>
}
