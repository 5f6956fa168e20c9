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

// A slice of a middle dimension is no run of each row: the host slices it
// in float, between a dequantize and a quantize, and says why.
// CHECK-LABEL: func.func @main
// CHECK: graph.dequantize %arg0 {{.*}}npu.placement = #npu<placement host>
// CHECK: graph.slice {{.*}}npu.host_reason = "Slice on the NPU takes a contiguous run of the last dimension only (runs in float)", npu.placement = #npu<placement host>
// CHECK: graph.quantize {{.*}}npu.placement = #npu<placement host>
!q = !quant.uniform<i8:f32, 0.05:-3>
func.func @main(%x: tensor<1x4x12x!q>) -> tensor<1x2x12x!q> {
  %s = graph.slice %x {offsets = array<i64: 0, 1, 0>, strides = array<i64: 1, 1, 1>} : tensor<1x4x12x!q> -> tensor<1x2x12x!q>
  return %s : tensor<1x2x12x!q>
}
