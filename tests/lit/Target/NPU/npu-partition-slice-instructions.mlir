// A contiguous run of the last dimension of an int8 tensor (a Q/K/V split)
// runs on the NPU as a copy: one strided LOAD of the run of each row, the
// identity table, one packed STORE. Hand-derived: [1, 4, 12] -> channels
// [4, 8): rows of 12 bytes, the run starts at byte 4, 4 bytes of each of
// the 4 rows (n0 = 4, n1 = 4, s1 = 12) packed in SP (t1 = 4); the result's
// 4 rows of 4 bytes are contiguous, stored as one 16-byte run at the
// slice's DRAM offset (after the 48-byte input, 64-byte aligned).
// RUN: systole-opt %s --split-input-file --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s

// CHECK: graph.slice %arg0 {npu.dram = 64 : i64, npu.placement = #npu<placement npu>
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.slice"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, dram_addr = 4, n0 = 4, n1 = 4, n2 = 1, n3 = 1, s1 = 12, t1 = 4}
// CHECK-NEXT: npu.load push_next {{.*}}n0 = 256, n1 = 1
// CHECK-NEXT: npu.vlut {{.*}}n0 = 4, n1 = 4, a_s1 = 4, o_s1 = 4}
// CHECK-NEXT: npu.store {{.*}}dram_addr = 64, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.end
!q = !quant.uniform<i8:f32, 0.05:-3>
func.func @main(%x: tensor<1x4x12x!q>) -> tensor<1x4x4x!q> {
  %s = graph.slice %x {offsets = array<i64: 0, 0, 4>, strides = array<i64: 1, 1, 1>} : tensor<1x4x12x!q> -> tensor<1x4x4x!q>
  return %s : tensor<1x4x4x!q>
}

// -----

// A slice of a middle dimension (Swin's roll, a Gather of one index) is
// whole rows: [1, 4, 12] -> rows [1, 3): one block of 2 rows of 12 bytes
// from input row 1 (DRAM 12), contiguous on both sides (one 24-byte run),
// stored at 64.
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.slice"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, dram_addr = 12, n0 = 24, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.load push_next {{.*}}n0 = 256, n1 = 1
// CHECK-NEXT: npu.vlut {{.*}}n0 = 12, n1 = 2, a_s1 = 12, o_s1 = 12}
// CHECK-NEXT: npu.store {{.*}}dram_addr = 64, n0 = 24, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.end
!q = !quant.uniform<i8:f32, 0.05:-3>
func.func @main(%x: tensor<1x4x12x!q>) -> tensor<1x2x12x!q> {
  %s = graph.slice %x {offsets = array<i64: 0, 1, 0>, strides = array<i64: 1, 1, 1>} : tensor<1x4x12x!q> -> tensor<1x2x12x!q>
  return %s : tensor<1x2x12x!q>
}

// -----

// A strided cut with rows inside it (Swin's patch merging, x[:, 1::2] of
// [1, 4, 4, 8]): a block per kept H index, its 4 rows of 8 bytes
// contiguous: block 0 from input row 4 (DRAM 32), block 1 from row 12
// (DRAM 96), stored at the output (DRAM 128) + 0 and + 32.
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "graph.slice"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, dram_addr = 32, n0 = 32, n1 = 1
// CHECK-NEXT: npu.load push_next {{.*}}n0 = 256, n1 = 1
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[S1:[0-9]+]], dram_addr = 96, n0 = 32, n1 = 1
// CHECK-NEXT: npu.load push_next {{.*}}n0 = 256, n1 = 1
// CHECK-NEXT: npu.vlut pop_prev %{{.*}} push_next {lut_addr = {{[0-9]+}}, o_addr = {{[0-9]+}}, n0 = 8, n1 = 4
// CHECK-NEXT: npu.store {{.*}}dram_addr = 128, n0 = 32, n1 = 1
// CHECK-NEXT: npu.vlut pop_prev %{{.*}} push_next {a_addr = [[S1]], {{.*}}n0 = 8, n1 = 4
// CHECK-NEXT: npu.store {{.*}}dram_addr = 160, n0 = 32, n1 = 1
!q = !quant.uniform<i8:f32, 0.05:-3>
func.func @main(%x: tensor<1x4x4x8x!q>) -> tensor<1x2x4x8x!q> {
  %s = graph.slice %x {offsets = array<i64: 0, 1, 0, 0>, strides = array<i64: 1, 2, 1, 1>} : tensor<1x4x4x8x!q> -> tensor<1x2x4x8x!q>
  return %s : tensor<1x2x4x8x!q>
}

// -----

// A slice that cuts two dims is no rows of one block: the host slices it in
// float, between a dequantize and a quantize, and says why.
// CHECK-LABEL: func.func @main
// CHECK: graph.dequantize %arg0 {{.*}}npu.placement = #npu<placement host>
// CHECK: graph.slice {{.*}}npu.host_reason = "Slice on the NPU cuts one dimension (a stride only on a dim of whole rows) (runs in float)", npu.placement = #npu<placement host>
// CHECK: graph.quantize {{.*}}npu.placement = #npu<placement host>
!q = !quant.uniform<i8:f32, 0.05:-3>
func.func @main(%x: tensor<1x4x12x!q>) -> tensor<1x2x4x!q> {
  %s = graph.slice %x {offsets = array<i64: 0, 1, 4>, strides = array<i64: 1, 1, 1>} : tensor<1x4x12x!q> -> tensor<1x2x4x!q>
  return %s : tensor<1x2x4x!q>
}
