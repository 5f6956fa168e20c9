// npu-partition at the instruction level: ops placed on the NPU are the
// instructions of NPU segments; an op kept on the host yields none, and the
// program is split into NPU segments around it (code generation numbers
// segments in program order, host segments included).
// RUN: systole-opt %s --split-input-file --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s

// Three int8 adds of 4x4x4 tensors (64 bytes: on the 4x4 preset each add
// is two items of 8 pixels x 4 channels, 32 bytes, at DRAM +0 and +32,
// each tile contiguous: one LOAD or STORE run, n0 = 32);
// the middle one broadcasts r along W only (1x4x1x4), which the vector
// unit cannot do: npu-partition runs it on the host in float, between a
// builtin dequantize of each operand and a builtin quantize back.
//
// Segments: 0 = the first add (NPU); 1 = dequantize of its result, 2 =
// dequantize of r (builtin host kernels), 3 = the float add (compiled host
// code), 4 = the quantize (builtin); 5 = the last add (NPU). Only 0 and 5
// are NPU segments with instructions; 1 to 4 are none of the npu.program.
//
// VADD constants: the first add, 0.05 + 0.05 -> 0.05 (zero points -3):
// ratio_a = ratio_b = 0.05 / 0.05 = 1, fixed = -3 - (1 * -3 + 1 * -3) = 3;
// the last, 0.05 + 0.05 -> 0.1 (zero point 2): ratio 0.5, fixed =
// 2 - (0.5 * -3 + 0.5 * -3) = 5. Each add stores its two tiles at its own
// offset (npu.dram) +0 and +32; the last add loads the host quantize's
// result (its npu.dram) +0 and +32, twice (it is both operands).
// CHECK-LABEL: func.func @main
// CHECK: graph.add %arg0, %arg0 {npu.dram = [[#A:]] : i64, npu.placement = #npu<placement npu>
// CHECK: graph.add {{.*}}npu.placement = #npu<placement host>} : (tensor<1x4x4x4xf32>, tensor<1x4x1x4xf32>)
// CHECK: graph.quantize {{.*}} {npu.dram = [[#Q:]] : i64, npu.placement = #npu<placement host>}
// CHECK: graph.add {{.*}} {npu.dram = [[#B:]] : i64, npu.placement = #npu<placement npu>
// CHECK-LABEL: npu.program "tiny-4x4"
// CHECK-NEXT: npu.segment 0 "npu0" {
// CHECK: npu.vadd {{.*}}ratio_a = 1.000000e+00, ratio_b = 1.000000e+00, fixed = 3.000000e+00}
// CHECK-NEXT: npu.store {{.*}}dram_addr = [[#A]], n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.vadd {{.*}}ratio_a = 1.000000e+00, ratio_b = 1.000000e+00, fixed = 3.000000e+00}
// CHECK-NEXT: npu.store {{.*}}dram_addr = [[#A+32]], n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.end
// CHECK-NEXT: }
// CHECK-NEXT: npu.segment 5 "npu5" {
// CHECK-NEXT: npu.layer_start "graph.add"
// CHECK-NEXT: npu.load {{.*}}dram_addr = [[#Q]], n0 = 32, n1 = 1,
// CHECK-NEXT: npu.load {{.*}}dram_addr = [[#Q]], n0 = 32, n1 = 1,
// CHECK-NEXT: npu.load {{.*}}dram_addr = [[#Q+32]], n0 = 32, n1 = 1,
// CHECK-NEXT: npu.load {{.*}}dram_addr = [[#Q+32]], n0 = 32, n1 = 1,
// CHECK-NEXT: npu.vadd {{.*}}ratio_a = 5.000000e-01, ratio_b = 5.000000e-01, fixed = 5.000000e+00}
// CHECK-NEXT: npu.store {{.*}}dram_addr = [[#B]], n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.vadd {{.*}}ratio_a = 5.000000e-01, ratio_b = 5.000000e-01, fixed = 5.000000e+00}
// CHECK-NEXT: npu.store {{.*}}dram_addr = [[#B+32]], n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.end
// CHECK-NEXT: }
// CHECK-NEXT: }
!f = !quant.uniform<i8:f32, 0.05:-3>
!g = !quant.uniform<i8:f32, 0.1:2>
func.func @main(%x: tensor<1x4x4x4x!f>, %r: tensor<1x4x1x4x!f>) -> tensor<1x4x4x4x!g> {
  %a = graph.add %x, %x : (tensor<1x4x4x4x!f>, tensor<1x4x4x4x!f>) -> tensor<1x4x4x4x!f>
  %h = graph.add %a, %r : (tensor<1x4x4x4x!f>, tensor<1x4x1x4x!f>) -> tensor<1x4x4x4x!f>
  %b = graph.add %h, %h : (tensor<1x4x4x4x!f>, tensor<1x4x4x4x!f>) -> tensor<1x4x4x4x!g>
  return %b : tensor<1x4x4x4x!g>
}

// -----

// The same graph with r a per-channel vector (1x1x1x4), which the vector
// unit broadcasts: all three adds are placed on the NPU, so the program is
// one segment of three layers separated by barriers (the store -> compute
// -> load FENCE after each layer's last store). The middle layer's VADD
// reads r (4 bytes loaded once per item from r's offset) with B's outer
// stride 0 (b_s1, elided: each of the 8 pixels reads the same 4 channels);
// its constants are those of the first add (same types).
// CHECK-LABEL: func.func @main
// CHECK-SAME: %arg1: tensor<1x1x1x4x{{.*}}> {npu.dram = [[#R:]] : i64}
// CHECK-LABEL: npu.program "tiny-4x4"
// CHECK-NEXT: npu.segment 0 "npu0" {
// CHECK-COUNT-2: npu.vadd {{.*}}a_s1 = 4, b_s1 = 4, o_s1 = 4, ratio_a = 1.000000e+00, ratio_b = 1.000000e+00, fixed = 3.000000e+00}
// CHECK: npu.fence {{.*}}{queue = compute}
// CHECK: npu.load {{.*}}dram_addr = [[#R]], n0 = 4, n1 = 1, n2 = 1, n3 = 1}
// CHECK: npu.load {{.*}}dram_addr = [[#R]], n0 = 4, n1 = 1, n2 = 1, n3 = 1}
// CHECK-COUNT-2: npu.vadd {{.*}}n0 = 4, n1 = 8, a_s1 = 4, o_s1 = 4, ratio_a = 1.000000e+00, ratio_b = 1.000000e+00, fixed = 3.000000e+00}
// CHECK: npu.fence {{.*}}{queue = compute}
// CHECK-COUNT-2: npu.vadd {{.*}}a_s1 = 4, b_s1 = 4, o_s1 = 4, ratio_a = 5.000000e-01, ratio_b = 5.000000e-01, fixed = 5.000000e+00}
// CHECK-NOT: npu.segment
// CHECK: npu.end
// CHECK-NEXT: }
// CHECK-NEXT: }
!f = !quant.uniform<i8:f32, 0.05:-3>
!g = !quant.uniform<i8:f32, 0.1:2>
func.func @main(%x: tensor<1x4x4x4x!f>, %r: tensor<1x1x1x4x!f>) -> tensor<1x4x4x4x!g> {
  %a = graph.add %x, %x : (tensor<1x4x4x4x!f>, tensor<1x4x4x4x!f>) -> tensor<1x4x4x4x!f>
  %h = graph.add %a, %r : (tensor<1x4x4x4x!f>, tensor<1x1x1x4x!f>) -> tensor<1x4x4x4x!f>
  %b = graph.add %h, %h : (tensor<1x4x4x4x!f>, tensor<1x4x4x4x!f>) -> tensor<1x4x4x4x!g>
  return %b : tensor<1x4x4x4x!g>
}
