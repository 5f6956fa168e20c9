// npu-plan-cascades at the instruction level: the full pipeline (which runs
// the pass) against the same pipeline without it. A kept output is written
// by the producer's REQUANTs straight into the consumer's input image in
// the scratchpad: no STORE of it, no LOAD of it, and the consumer's
// MATMULs read the image in place.
// RUN: systole-opt %s --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s --check-prefix=KEPT
// RUN: systole-opt %s --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s --check-prefix=KEPT-NONE
// RUN: systole-opt %s --pass-pipeline='builtin.module(func.func(graph-fold-qdq,canonicalize,graph-fold-pad,graph-to-nhwc,graph-fold-constants,graph-drop-padding-taps,canonicalize,cse,npu-partition,npu-fold-tables,npu-fuse-gate,npu-fold-tables,npu-concat-in-place,npu-concat-copy,npu-fold-tables{standalone=1},npu-fuse-residual,npu-plan-tiles{hw=tiny-4x4},npu-allocate-dram),convert-graph-to-npu{hw=tiny-4x4},npu.program(npu-schedule-pipeline))' | FileCheck %s --check-prefix=STORED

// Two 1x1 convs, a then b, of 4x4x4 tensors (zero point -3) on the 4x4
// array: each is two items of two rows (asserted plans), M = 8, K = N = 4.
// DRAM: x at 0, a at 64 (+32 for item 1), b at 128 (+32).
//
// Kept (the pass's cost model keeps a's output for b): b's input image is
// 4 rows x 4 pixels x 4 channels = 64 bytes (no padding) at the far end of
// the 16384-byte scratchpad, 16384 - 64 = 16320; a's item 0 (rows 0-1)
// REQUANTs into it at 16320 and item 1 (rows 2-3) at 16320 + 2 x 16 =
// 16352, pushing no token (nothing is stored). The barrier is a compute
// FENCE that pops no store token (it waits for the post-processor). b's
// items load only their biases and scales (ACC) and their MATMULs read A
// at the same addresses.
// KEPT: graph.conv2d %arg0{{.*}}npu.keep_output{{.*}}npu.tile = #npu.tile<n = 4, {{.*}}rows = 2>
// KEPT: graph.conv2d {{.*}}npu.input_on_chip{{.*}}npu.tile = #npu.tile<n = 4, {{.*}}rows = 2>
// KEPT-LABEL: npu.program "tiny-4x4"
// KEPT: npu.matmul {{.*}}a_zp = -3, {{.*}}m = 8, k = 4, n = 4,
// KEPT-NEXT: npu.requant {bias, zp = -3, lo = -128, hi = 127, {{.*}}o_addr = 16320, o_stride = 4, m = 8, n = 4,
// KEPT-NEXT: npu.matmul {{.*}}a_zp = -3, {{.*}}m = 8, k = 4, n = 4,
// KEPT-NEXT: npu.requant {bias, zp = -3, lo = -128, hi = 127, {{.*}}o_addr = 16352, o_stride = 4, m = 8, n = 4,
// KEPT-NEXT: npu.layer_start "graph.conv2d" {hoisted = 1 : i64, hoisted_bytes = 16 : i64}
// KEPT-NEXT: %[[F:.*]] = npu.fence push_prev {queue = compute}
// KEPT-NEXT: npu.load pop_next %[[F]] {sram = acc,
// KEPT-NEXT: npu.load push_next {sram = acc,
// KEPT-NEXT: npu.load {sram = acc,
// KEPT-NEXT: npu.load push_next {sram = acc,
// KEPT-NEXT: npu.matmul {{.*}}a_zp = -3, a_addr = 16320, {{.*}}m = 8, k = 4, n = 4,
// KEPT-NEXT: %[[R0:.*]] = npu.requant push_next
// KEPT-NEXT: npu.store pop_prev %[[R0]] {{.*}}dram_addr = 128, n0 = 32, n1 = 1,
// KEPT-NEXT: npu.matmul {{.*}}a_zp = -3, a_addr = 16352, {{.*}}m = 8, k = 4, n = 4,
// KEPT-NEXT: %[[R1:.*]] = npu.requant push_next
// KEPT-NEXT: npu.store pop_prev %[[R1]] {{.*}}dram_addr = 160, n0 = 32, n1 = 1,
// KEPT-NEXT: npu.end
// a's tiles (DRAM 64 and 96) are neither stored nor loaded.
// KEPT-NONE-NOT: npu.store {{.*}}dram_addr = {{64|96}},
// KEPT-NONE-NOT: npu.load {{.*}}dram_addr = {{64|96}},

// Without the pass: a's REQUANTs push to the store queue and a's tiles are
// stored at 64 and 96; the barrier FENCE pops the last store's token; b
// loads them back (two image rows of 16 bytes, unpadded and contiguous:
// one run, n0 = 32; the padding value b's input zero point -3) before its
// MATMULs.
// STORED-LABEL: npu.program "tiny-4x4"
// STORED: %[[R0:.*]] = npu.requant push_next {bias, zp = -3, {{.*}}m = 8, n = 4,
// STORED-NEXT: npu.store pop_prev %[[R0]] {{.*}}dram_addr = 64, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// STORED: %[[R1:.*]] = npu.requant push_next {bias, zp = -3, {{.*}}m = 8, n = 4,
// STORED-NEXT: %[[S:.*]] = npu.store pop_prev %[[R1]] push_prev {{.*}}dram_addr = 96, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// STORED-NEXT: npu.layer_start "graph.conv2d" {hoisted = 1 : i64, hoisted_bytes = 16 : i64}
// STORED-NEXT: %[[F:.*]] = npu.fence pop_next %[[S]] push_prev {queue = compute}
// STORED-NEXT: npu.load pop_next %[[F]] {sram = sp, elem_bytes = 1, pad_value = -3, sram_addr = [[I0:[0-9]+]], dram_addr = 64, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// STORED: npu.load {sram = sp, elem_bytes = 1, pad_value = -3, sram_addr = [[I1:[0-9]+]], dram_addr = 96, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// STORED: npu.matmul {{.*}}a_zp = -3, a_addr = [[I0]], {{.*}}m = 8, k = 4, n = 4,
// STORED: npu.store {{.*}}dram_addr = 128, n0 = 32, n1 = 1,
// STORED: npu.matmul {{.*}}a_zp = -3, a_addr = [[I1]], {{.*}}m = 8, k = 4, n = 4,
// STORED: npu.store {{.*}}dram_addr = 160, n0 = 32, n1 = 1,
// STORED-NEXT: npu.end
!x = !quant.uniform<i8:f32, 0.05:-3>
!w = !quant.uniform<i8:f32, 0.01>
func.func @main(%x: tensor<1x4x4x4x!x>) -> tensor<1x4x4x4x!x> {
  %wi = arith.constant dense<1> : tensor<1x1x4x4xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x4x4xi8>) -> tensor<1x1x4x4x!w>
  %a = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x4x!x>, tensor<1x1x4x4x!w>) -> tensor<1x4x4x4x!x>
  %b = graph.conv2d %a, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x4x!x>, tensor<1x1x4x4x!w>) -> tensor<1x4x4x4x!x>
  return %b : tensor<1x4x4x4x!x>
}
