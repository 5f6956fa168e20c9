// An 8-bit transpose that keeps the innermost dim (attention's head split,
// Swin's window partition) runs on the NPU as a strided DMA copy: per item
// a LOAD of the input's C-byte runs in output order, the identity VLUT, a
// contiguous STORE. Hand-derived: [1, 3, 2, 4] with perm (0, 2, 1, 3) ->
// [1, 2, 3, 4]: size-1 dims dropped, output dims (2 [input stride 4], 3
// [stride 8]) around runs of C = 4; one item of 2 x 3 runs (n0 = 4, n1 = 3
// with DRAM stride 8, n2 = 2 with stride 4; packed in SP: t1 = 4, t2 =
// 12), 6 rows of 4 through the table, 24 bytes stored at 64.
// RUN: systole-opt %s --split-input-file --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s

// CHECK: graph.transpose %arg0 {npu.dram = 64 : i64, npu.placement = #npu<placement npu>
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.transpose"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, n0 = 4, n1 = 3, n2 = 2, n3 = 1, s1 = 8, s2 = 4, t1 = 4, t2 = 12}
// CHECK-NEXT: npu.load push_next {{.*}}n0 = 256, n1 = 1
// CHECK-NEXT: npu.vlut {{.*}}n0 = 4, n1 = 6, a_s1 = 4, o_s1 = 4}
// CHECK-NEXT: npu.store {{.*}}dram_addr = 64, n0 = 24, n1 = 1, n2 = 1, n3 = 1
// CHECK-NEXT: npu.end
!q = !quant.uniform<i8:f32, 0.05:-3>
func.func @main(%x: tensor<1x3x2x4x!q>) -> tensor<1x2x3x4x!q> {
  %t = graph.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x2x4x!q> -> tensor<1x2x3x4x!q>
  return %t : tensor<1x2x3x4x!q>
}

// -----

// A transpose that moves the innermost dim (K^T) is no run copy: the
// host's builtin transpose.
// CHECK-LABEL: func.func @main
// CHECK: graph.transpose %arg0 {npu.dram = 64 : i64, npu.placement = #npu<placement host>
!q = !quant.uniform<i8:f32, 0.05:-3>
func.func @main(%x: tensor<2x3x4x!q>) -> tensor<2x4x3x!q> {
  %t = graph.transpose %x {perm = array<i64: 0, 2, 1>} : tensor<2x3x4x!q> -> tensor<2x4x3x!q>
  return %t : tensor<2x4x3x!q>
}
