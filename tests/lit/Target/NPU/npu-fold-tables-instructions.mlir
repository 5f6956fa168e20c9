// npu-fold-tables at the instruction level: a dequantize -> f -> quantize
// chain after an NPU convolution is a 256-byte table that the
// convolution's REQUANT applies (`lut`, `lut_addr`), loaded from the
// constant pool; no layer of its own. When the chain cannot fold into the
// REQUANT (the conv's result has another reader), the pipeline's last,
// standalone run of the pass makes it a VLUT layer instead (compare
// npu-fold-tables-standalone-instructions.mlir).
// RUN: systole-opt %s --split-input-file --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s
// No -errors twin: the pass's only diagnostic ("cannot compute the
// activation table") reports a failure to compile or load the host code
// of a chain that npu-partition already placed on the host; no input
// tried (math ops the host lowers, graph.host bodies, dead chain members)
// triggers it.

// A 1x1 conv of the 4x4x4 input x (scale 1, zero point 0) into 4 channels
// at x's parameters, then neg into y (scale 0.5, zero point 3): entry
// c + 128 of the table is clamp(rne(-c / 0.5) + 3) (npu-fold-tables.mlir
// checks such entries; here only how the table is used).
//
// The plan (npu-plan-tiles' choice, asserted first) is one item of all 4
// rows: M = 4 rows x 4 pixels = 16, K = Cin = 4, N = Cout = 4.
// DRAM: x at 0; the table's result aliases the conv's buffer: 64 (arena
// 128). The constant pool starts at the arena rounded up to 4096, each
// constant 64-byte aligned, in the order the generator adds them: the
// 4 x 4 weights (16 bytes) at 4096, the 4 int32 biases at 4160, the 4 fp32
// scales at 4224, the table at 4288.
// The REQUANT writes the conv's own codes (zero point 0: elided) and maps
// them through the table at lut_addr = the slot the 256-byte LOAD filled.
// CHECK-LABEL: func.func @main
// CHECK: graph.conv2d {{.*}}npu.tile = #npu.tile<n = 4, {{.*}}rows = 4>
// CHECK: graph.table
// CHECK-LABEL: npu.program "tiny-4x4"
// CHECK-NEXT: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.conv2d"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, n0 = 64, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[W:[0-9]+]], dram_addr = 4096, n0 = 16,
// CHECK-NEXT: npu.load {sram = acc, elem_bytes = 4, sram_addr = [[BIAS:[0-9]+]], dram_addr = 4160, n0 = 4,
// CHECK-NEXT: npu.load {sram = acc, elem_bytes = 4, sram_addr = [[SCALE:[0-9]+]], dram_addr = 4224, n0 = 4,
// CHECK-NEXT: %[[T:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[LUT:[0-9]+]], dram_addr = 4288, n0 = 256, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.matmul pop_prev %[[T]] {dataflow = ws, preload, {{.*}}m = 16, k = 4, n = 4, b_addr = [[W]], c_stride = 4}
// CHECK-NEXT: %[[R:.*]] = npu.requant push_next {lut, bias, lo = -128, hi = 127, c_stride = 4, scale_addr = [[SCALE]], o_addr = [[O:[0-9]+]], o_stride = 4, lut_addr = [[LUT]], m = 16, n = 4, bias_addr = [[BIAS]]}
// CHECK-NEXT: npu.store pop_prev %[[R]] {sram = sp, elem_bytes = 1, sram_addr = [[O]], dram_addr = 64, n0 = 64, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.end
!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!y = !quant.uniform<i8:f32, 0.5:3>
func.func @main(%x: tensor<1x4x4x4x!x>) -> tensor<1x4x4x4x!y> {
  %wi = arith.constant dense<1> : tensor<1x1x4x4xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x4x4xi8>) -> tensor<1x1x4x4x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x4x!x>, tensor<1x1x4x4x!w>) -> tensor<1x4x4x4x!x>
  %d = graph.dequantize %c : tensor<1x4x4x4x!x> -> tensor<1x4x4x4xf32>
  %n = graph.unary "neg" %d : tensor<1x4x4x4xf32>
  %q = graph.quantize %n : tensor<1x4x4x4xf32> -> tensor<1x4x4x4x!y>
  return %q : tensor<1x4x4x4x!y>
}

// -----

// The same chain with the conv's result also returned: the REQUANT cannot
// apply the table (the plain codes are stored too), so it has no `lut`
// and the table is a VLUT layer after a barrier: it loads the conv's
// stored result (64 bytes at 64: 16 pixels x 4 channels, contiguous, as
// one run), looks every byte up in the same 256-byte table (4288: the
// pool's order is the same) and stores at the table's own buffer, 128
// (allocated while the returned conv result is live).
// The plan: two items of two rows (M = 8).
// CHECK-LABEL: func.func @main
// CHECK: graph.conv2d {{.*}}npu.tile = #npu.tile<n = 4, {{.*}}rows = 2>
// CHECK-LABEL: npu.program "tiny-4x4"
// CHECK: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[LUT:[0-9]+]], dram_addr = 4288, n0 = 256, n1 = 1, n2 = 1, n3 = 1, s1 = 256, t1 = 256}
// CHECK: %[[R0:.*]] = npu.requant push_next {bias, lo = -128, hi = 127, {{.*}}o_addr = [[O0:[0-9]+]], o_stride = 4, m = 8, n = 4,
// CHECK-NEXT: npu.store pop_prev %[[R0]] {sram = sp, elem_bytes = 1, sram_addr = [[O0]], dram_addr = 64, n0 = 32, n1 = 1,
// CHECK: %[[R1:.*]] = npu.requant push_next {bias, lo = -128, hi = 127, {{.*}}o_addr = [[O1:[0-9]+]], o_stride = 4, m = 8, n = 4,
// CHECK-NEXT: %[[S:.*]] = npu.store pop_prev %[[R1]] push_prev {sram = sp, elem_bytes = 1, sram_addr = [[O1]], dram_addr = 96, n0 = 32, n1 = 1,
// CHECK-NEXT: npu.layer_start "graph.table" {hoisted = 1 : i64, hoisted_bytes = 256 : i64}
// CHECK-NEXT: %[[F:.*]] = npu.fence pop_next %[[S]] push_prev {queue = compute}
// CHECK-NEXT: %[[A:.*]] = npu.load pop_next %[[F]] push_next {sram = sp, elem_bytes = 1, sram_addr = [[IN:[0-9]+]], dram_addr = 64, n0 = 64, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: %[[V:.*]] = npu.vlut pop_prev %[[A]] push_next {a_addr = [[IN]], lut_addr = [[LUT]], o_addr = [[OUT:[0-9]+]], n0 = 4, n1 = 16, a_s1 = 4, o_s1 = 4}
// CHECK-NEXT: npu.store pop_prev %[[V]] {sram = sp, elem_bytes = 1, sram_addr = [[OUT]], dram_addr = 128, n0 = 64, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.end
!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!y = !quant.uniform<i8:f32, 0.5:3>
func.func @main(%x: tensor<1x4x4x4x!x>) -> (tensor<1x4x4x4x!y>, tensor<1x4x4x4x!x>) {
  %wi = arith.constant dense<1> : tensor<1x1x4x4xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x4x4xi8>) -> tensor<1x1x4x4x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x4x!x>, tensor<1x1x4x4x!w>) -> tensor<1x4x4x4x!x>
  %d = graph.dequantize %c : tensor<1x4x4x4x!x> -> tensor<1x4x4x4xf32>
  %n = graph.unary "neg" %d : tensor<1x4x4x4xf32>
  %q = graph.quantize %n : tensor<1x4x4x4xf32> -> tensor<1x4x4x4x!y>
  return %q, %c : tensor<1x4x4x4x!y>, tensor<1x4x4x4x!x>
}
