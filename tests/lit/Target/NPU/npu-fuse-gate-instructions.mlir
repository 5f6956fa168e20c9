// npu-fuse-gate at the instruction level: x * f(x) after an NPU conv is one
// table of x that the conv's REQUANT applies (`lut`, `lut_addr` = the slot
// of a 256-byte LOAD from the constant pool): one layer, no VMUL. When x has
// a third reader the gate is not folded: f is a VLUT layer of its own and
// the product a VMUL layer.
// RUN: systole-opt %s --split-input-file --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s
// No -errors twin: the pass's only diagnostic ("cannot compute the
// activation table") reports a failure to compile or load the host code
// of a chain that npu-partition already placed on the host; no input
// tried (math ops the host lowers, graph.host bodies, dead chain members)
// triggers it.

// A 1x1 conv of the 4x4x4 input into x (4 channels, scale 1, zero point 0),
// f = neg at x's parameters, the product y at scale 0.5, zero point 3
// (npu-fuse-gate.mlir checks the table's entries). Plan (asserted): one
// item of the 4 rows, M = 16, K = 4, N = 4. DRAM: input at 0, the table's
// result aliases the conv's buffer: 64 (arena 128). Constant pool from
// 4096 (the arena rounded up to 4096), 64-byte aligned in order: weights
// 4096, biases 4160, scales 4224, the table 4288. The REQUANT writes x's
// codes (zero point 0, elided) through the table, and its 64 bytes are
// stored at 64 (16 pixels x 4 channels, contiguous: one run, n0 = 64).
// CHECK-LABEL: func.func @main
// CHECK: graph.conv2d {{.*}}npu.tile = #npu.tile<n = 4, {{.*}}rows = 4>
// CHECK-LABEL: npu.program "tiny-4x4"
// CHECK: %[[T:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, sram_addr = [[LUT:[0-9]+]], dram_addr = 4288, n0 = 256, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.matmul pop_prev %[[T]] {dataflow = ws, preload, {{.*}}m = 16, k = 4, n = 4,
// CHECK-NEXT: %[[R:.*]] = npu.requant push_next {lut, bias, lo = -128, hi = 127, {{.*}}o_addr = [[O:[0-9]+]], o_stride = 4, lut_addr = [[LUT]], m = 16, n = 4,
// CHECK-NEXT: npu.store pop_prev %[[R]] {sram = sp, elem_bytes = 1, sram_addr = [[O]], dram_addr = 64, n0 = 64, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.end
// CHECK-NEXT: }
// CHECK-NEXT: }
!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!y = !quant.uniform<i8:f32, 0.5:3>
func.func @main(%x: tensor<1x4x4x4x!x>) -> tensor<1x4x4x4x!y> {
  %wi = arith.constant dense<1> : tensor<1x1x4x4xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x4x4xi8>) -> tensor<1x1x4x4x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x4x!x>, tensor<1x1x4x4x!w>) -> tensor<1x4x4x4x!x>
  %d = graph.dequantize %c : tensor<1x4x4x4x!x> -> tensor<1x4x4x4xf32>
  %n = graph.unary "neg" %d : tensor<1x4x4x4xf32>
  %q = graph.quantize %n : tensor<1x4x4x4xf32> -> tensor<1x4x4x4x!x>
  %m = graph.mul %c, %q : (tensor<1x4x4x4x!x>, tensor<1x4x4x4x!x>) -> tensor<1x4x4x4x!y>
  return %m : tensor<1x4x4x4x!y>
}

// -----

// x also returned: not folded. Three layers: the conv stores x (at 64,
// REQUANT without `lut`), the VLUT layer stores f(x) (at 128), and the
// VMUL layer multiplies the two tiles of x (64, 96) by those of f(x) (128,
// 160) with QLinearMul's constants: a_zp = b_zp = 0 (elided), o_zp = 3,
// ratio = 1 * 1 / 0.5 = 2; the product at 192 (+32), allocated while the
// returned x is live.
// CHECK-LABEL: npu.program "tiny-4x4"
// CHECK: npu.requant push_next {bias, lo = -128, hi = 127,
// CHECK: npu.requant push_next {bias, lo = -128, hi = 127,
// CHECK: npu.fence
// CHECK: npu.load {{.*}}dram_addr = 64, n0 = 64, n1 = 1,
// CHECK-NEXT: npu.vlut
// CHECK-NEXT: npu.store {{.*}}dram_addr = 128, n0 = 64, n1 = 1,
// CHECK-NEXT: npu.layer_start "graph.mul"
// CHECK-NEXT: npu.fence
// CHECK-NEXT: npu.load {{.*}}dram_addr = 64, n0 = 32, n1 = 1,
// CHECK-NEXT: npu.load {{.*}}dram_addr = 128, n0 = 32, n1 = 1,
// CHECK-NEXT: npu.load {{.*}}dram_addr = 96, n0 = 32, n1 = 1,
// CHECK-NEXT: npu.load {{.*}}dram_addr = 160, n0 = 32, n1 = 1,
// CHECK-NEXT: npu.vmul {{.*}}{lo = -128, hi = 127, o_zp = 3, {{.*}}n0 = 4, n1 = 8, a_s1 = 4, b_s1 = 4, o_s1 = 4, ratio = 2.000000e+00}
// CHECK-NEXT: npu.store {{.*}}dram_addr = 192, n0 = 32, n1 = 1,
// CHECK-NEXT: npu.vmul {{.*}}{lo = -128, hi = 127, o_zp = 3, {{.*}}n0 = 4, n1 = 8, a_s1 = 4, b_s1 = 4, o_s1 = 4, ratio = 2.000000e+00}
// CHECK-NEXT: npu.store {{.*}}dram_addr = 224, n0 = 32, n1 = 1,
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
  %q = graph.quantize %n : tensor<1x4x4x4xf32> -> tensor<1x4x4x4x!x>
  %m = graph.mul %c, %q : (tensor<1x4x4x4x!x>, tensor<1x4x4x4x!x>) -> tensor<1x4x4x4x!y>
  return %m, %c : tensor<1x4x4x4x!y>, tensor<1x4x4x4x!x>
}
