// RUN: systole-opt %s | systole-opt | FileCheck %s
// RUN: systole-opt %s --mlir-print-op-generic | systole-opt | FileCheck %s

// The npu dialect's syntax round-trips: fields by name (zeros left out,
// enums always shown), flags bare, tokens as values named after their
// FIFO, a consumer fetched before its producer (graph region).

// CHECK-LABEL: npu.program "tiny-4x4"
// CHECK: npu.segment 0 "main"
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, dram_addr = 1024, n0 = 4, n1 = 6, n2 = 1, n3 = 1, s1 = 4, t1 = 4}
// CHECK-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = 64, n0 = 4, n1 = 4, n2 = 1, n3 = 1, s1 = 4, t1 = 4}
// CHECK-NEXT: %[[L2C:.*]] = npu.load push_next {sram = acc, elem_bytes = 4, sram_addr = 512, dram_addr = 64, n0 = 4, n1 = 1, n2 = 1, n3 = 1}
// CHECK-NEXT: npu.matmul pop_prev %[[L2C]] {dataflow = ws, preload, a_m_inner_stride = 4, b_stride = 4, a_m_inner = 1000, a_k_inner = 4, m = 6, k = 4, n = 4, b_addr = 64, c_stride = 4}
// CHECK-NEXT: %[[C2S:.*]] = npu.requant push_next {zp = -3, lo = -128, hi = 127, c_stride = 4, scale_addr = 512, o_addr = 128, o_stride = 4, m = 6, n = 4}
// CHECK-NEXT: npu.store pop_prev %[[C2S]] {sram = sp, elem_bytes = 1, sram_addr = 128, dram_addr = 1536, n0 = 4, n1 = 6, n2 = 1, n3 = 1, s1 = 4, t1 = 4}
// CHECK-NEXT: npu.end
npu.program "tiny-4x4" {
  npu.segment 0 "main" {
    npu.load {sram = sp, elem_bytes = 1, dram_addr = 1024, n0 = 4, n1 = 6, n2 = 1, n3 = 1, s1 = 4, t1 = 4}
    npu.load {sram = sp, elem_bytes = 1, sram_addr = 64, n0 = 4, n1 = 4, n2 = 1, n3 = 1, s1 = 4, t1 = 4}
    %t = npu.load push_next {sram = acc, elem_bytes = 4, sram_addr = 512, dram_addr = 64, n0 = 4, n1 = 1, n2 = 1, n3 = 1}
    npu.matmul pop_prev %t {dataflow = ws, preload, a_m_inner_stride = 4, b_stride = 4, a_m_inner = 1000, a_k_inner = 4, m = 6, k = 4, n = 4, b_addr = 64, c_stride = 4}
    %r = npu.requant push_next {zp = -3, lo = -128, hi = 127, c_stride = 4, scale_addr = 512, o_addr = 128, o_stride = 4, m = 6, n = 4}
    npu.store pop_prev %r {sram = sp, elem_bytes = 1, sram_addr = 128, dram_addr = 1536, n0 = 4, n1 = 6, n2 = 1, n3 = 1, s1 = 4, t1 = 4}
    npu.end
  }
  // CHECK: npu.segment 2 "after the host"
  // CHECK-NEXT: npu.fence pop_next %[[S2C:.*]] {queue = compute}
  // CHECK-NEXT: %[[S2C]] = npu.store push_prev {sram = sp, elem_bytes = 1, dram_addr = 1536, n0 = 4, n1 = 1, n2 = 1, n3 = 1}
  // CHECK-NEXT: %[[C2L:.*]], %[[C2S2:.*]] = npu.fence push_prev push_next {queue = compute}
  // CHECK-NEXT: npu.fence pop_next %[[C2L]] {queue = load}
  // CHECK-NEXT: npu.store pop_prev %[[C2S2]] {sram = sp,
  // CHECK-NEXT: npu.vadd pop_prev %[[L2C2:.*]] pop_next %[[S2C2:.*]] {mode = fma_scalar_b, b_bcast, lo = -128, hi = 127, b_addr = 4096, o_addr = 8192, n0 = 4, n1 = 1, ratio_a = 5.000000e-01, ratio_b = -2.500000e-01, fixed = 1.000000e+00}
  // CHECK-NEXT: %[[L2C2]] = npu.fence push_next {queue = load}
  // CHECK-NEXT: %[[S2C2]] = npu.fence push_prev {queue = store}
  // CHECK-NEXT: npu.end
  npu.segment 2 "after the host" {
    npu.fence pop_next %s2c {queue = compute}
    %s2c = npu.store push_prev {sram = sp, elem_bytes = 1, dram_addr = 1536, n0 = 4, n1 = 1, n2 = 1, n3 = 1}
    %a:2 = npu.fence push_prev push_next {queue = compute}
    npu.fence pop_next %a#0 {queue = load}
    npu.store pop_prev %a#1 {sram = sp, elem_bytes = 1, dram_addr = 1536, n0 = 4, n1 = 1, n2 = 1, n3 = 1}
    npu.vadd pop_prev %b pop_next %s {mode = fma_scalar_b, b_bcast, lo = -128, hi = 127, b_addr = 4096, o_addr = 8192, n0 = 4, n1 = 1, ratio_a = 0.5, ratio_b = -0.25, fixed = 1.0}
    %b = npu.fence push_next {queue = load}
    %s = npu.fence push_prev {queue = store}
    npu.end
  }
}
