// npu-concat-in-place at the instruction level: each convolution feeding
// the channel concat applies its part's requantization table in REQUANT
// and stores its tiles straight into its channel slice of the concat's
// buffer; the concat itself costs no instruction.
// RUN: systole-opt %s --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s

// Two 1x1 convs of the 4x4x4 input x (scale 1) into 4 channels each, a at
// scale 0.5 and b at scale 1, concatenated into 8 channels at scale 1.
// Plans (asserted): one item of the 4 rows each, M = 16, K = N = 4.
// DRAM: x at 0; the concat's 4x4x8 = 128 bytes at 64, taken when conv a
// runs (arena 192); a's slice starts at channel 0 (64), b's at channel 4
// (64 + 4 = 68). Each STORE writes n0 = 4 channels of n1 = 16 pixels with
// a DRAM pixel stride s1 = 8, the concat's channel count, from a dense
// tile (t1 = 4).
// Constant pool from 4096 (the arena rounded up to 4096), 64-byte aligned
// in the order generated: a's weights (16 bytes) 4096, biases 4160, scales
// 4224, table 4288 (256 bytes, to 4544); b's weights 4544, biases 4608,
// scales 4672, table 4736. Each REQUANT applies its own table (a: the
// codes halved, Q(DQ_a(c)); b: the identity, still a table), both with
// zero point 0 (elided).
// CHECK-LABEL: func.func @main
// CHECK: graph.conv2d {{.*}}npu.tile = #npu.tile<n = 4, {{.*}}rows = 4>
// CHECK: graph.conv2d {{.*}}npu.tile = #npu.tile<n = 4, {{.*}}rows = 4>
// CHECK: graph.concat {{.*}}npu.dram = 64 : i64, npu.in_place
// CHECK-LABEL: npu.program "tiny-4x4"
// CHECK: npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[TA:[0-9]+]], dram_addr = 4288, n0 = 256,
// CHECK: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[TB:[0-9]+]], dram_addr = 4736, n0 = 256,
// CHECK: npu.matmul {{.*}}m = 16, k = 4, n = 4,
// CHECK-NEXT: %[[RA:.*]] = npu.requant push_next {lut, bias, lo = -128, hi = 127, {{.*}}o_addr = [[OA:[0-9]+]], o_stride = 4, lut_addr = [[TA]], m = 16, n = 4,
// CHECK-NEXT: %[[SA:.*]] = npu.store pop_prev %[[RA]] push_prev {sram = sp, elem_bytes = 1, sram_addr = [[OA]], dram_addr = 64, n0 = 4, n1 = 16, n2 = 1, n3 = 1, s1 = 8, t1 = 4}
// CHECK-NEXT: npu.layer_start "graph.conv2d" {hoisted = 2 : i64, hoisted_bytes = 272 : i64}
// CHECK-NEXT: npu.fence pop_next %[[SA]] push_prev {queue = compute}
// CHECK: npu.matmul {{.*}}m = 16, k = 4, n = 4,
// CHECK-NEXT: %[[RB:.*]] = npu.requant push_next {lut, bias, lo = -128, hi = 127, {{.*}}o_addr = [[OB:[0-9]+]], o_stride = 4, lut_addr = [[TB]], m = 16, n = 4,
// CHECK-NEXT: npu.store pop_prev %[[RB]] {sram = sp, elem_bytes = 1, sram_addr = [[OB]], dram_addr = 68, n0 = 4, n1 = 16, n2 = 1, n3 = 1, s1 = 8, t1 = 4}
// CHECK-NEXT: npu.end
// CHECK-NEXT: }
// CHECK-NEXT: }
!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!a = !quant.uniform<i8:f32, 0.5>
!o = !quant.uniform<i8:f32, 1.0>
func.func @main(%x: tensor<1x4x4x4x!x>) -> tensor<1x4x4x8x!o> {
  %wi = arith.constant dense<1> : tensor<1x1x4x4xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x4x4xi8>) -> tensor<1x1x4x4x!w>
  %ca = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x4x!x>, tensor<1x1x4x4x!w>) -> tensor<1x4x4x4x!a>
  %cb = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x4x!x>, tensor<1x1x4x4x!w>) -> tensor<1x4x4x4x!x>
  %da = graph.dequantize %ca : tensor<1x4x4x4x!a> -> tensor<1x4x4x4xf32>
  %db = graph.dequantize %cb : tensor<1x4x4x4x!x> -> tensor<1x4x4x4xf32>
  %c = graph.concat %da, %db {axis = 3 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x8xf32>
  %q = graph.quantize %c : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!o>
  return %q : tensor<1x4x4x8x!o>
}
