// RUN: systole-opt %s --split-input-file --npu-schedule-pipeline | FileCheck %s
// RUN: systole-opt %s --split-input-file --npu-schedule-pipeline | systole-opt --split-input-file | FileCheck %s
// The pipeline protocol (lib/Dialect/NPU/Transforms/Pipeline.cpp) on
// hand-written items. tiny-4x4 has queues.token_depth 4: lookahead d = 2
// (double buffering) and at most 2 load stages per item.

// Three items of one load, one compute, one store: the order is
// L0 L1 C0 S0 L2 C1 S1 C2 S2. L2 reuses L0's slot, so it pops the cmp->ld
// token C0 pushes; C2 reuses C0's output slot, so it pops the st->cmp token
// S0 pushes; each item's last load pushes ld->cmp, popped by its compute,
// which pushes cmp->st for its store.
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "three"
// CHECK-NEXT: %[[L0:.*]] = npu.load push_next {sram = sp, elem_bytes = 1, n0 = 16,
// CHECK-NEXT: %[[L1:.*]] = npu.load push_next {{.*}}dram_addr = 16,
// CHECK-NEXT: %[[C0L:.*]], %[[C0S:.*]] = npu.requant pop_prev %[[L0]] push_prev push_next {{.*}}o_addr = 12288,
// CHECK-NEXT: %[[S0:.*]] = npu.store pop_prev %[[C0S]] push_prev {{.*}}dram_addr = 1024,
// CHECK-NEXT: %[[L2:.*]] = npu.load pop_next %[[C0L]] push_next {{.*}}dram_addr = 32,
// CHECK-NEXT: %[[C1S:.*]] = npu.requant pop_prev %[[L1]] push_next {{.*}}o_addr = 12304,
// CHECK-NEXT: npu.store pop_prev %[[C1S]] {{.*}}dram_addr = 1040,
// CHECK-NEXT: %[[C2S:.*]] = npu.requant pop_prev %[[L2]] pop_next %[[S0]] push_next {{.*}}o_addr = 12320,
// CHECK-NEXT: npu.store pop_prev %[[C2S]] {{.*}}dram_addr = 1056,
// CHECK-NEXT: npu.end
npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "three" {
      npu.item loads {
        npu.load {sram = sp, elem_bytes = 1, sram_addr = 0, dram_addr = 0, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12288, dram_addr = 1024, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
      npu.item loads {
        npu.load {sram = sp, elem_bytes = 1, sram_addr = 16, dram_addr = 16, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, c_addr = 16, o_addr = 12304, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12304, dram_addr = 1040, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
      npu.item loads {
        npu.load {sram = sp, elem_bytes = 1, sram_addr = 32, dram_addr = 32, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, c_addr = 32, o_addr = 12320, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12320, dram_addr = 1056, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
    }
  }
}

// -----

// Two layers: a compute FENCE between them pops the st->cmp token of the
// first layer's last store and pushes the cmp->ld token the second layer's
// first load pops. The second layer's weight load (DRAM 4096, inside the
// constant pool [4096, 8192), into scratchpad 8192 the first layer never
// touches) is hoisted right after the first layer's loads; its activation
// load stays behind the barrier.
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "first"
// CHECK-NEXT: %[[L0:.*]] = npu.load push_next {{.*}}n0 = 16,
// CHECK-NEXT: npu.load {{{.*}}sram_addr = 8192, dram_addr = 4096,
// CHECK-NEXT: %[[C0S:.*]] = npu.requant pop_prev %[[L0]] push_next
// CHECK-NEXT: %[[S0:.*]] = npu.store pop_prev %[[C0S]] push_prev {{.*}}dram_addr = 1024,
// CHECK-NEXT: npu.layer_start "second" {hoisted = 1 : i64, hoisted_bytes = 16 : i64}
// CHECK-NEXT: %[[F:.*]] = npu.fence pop_next %[[S0]] push_prev {queue = compute}
// CHECK-NEXT: %[[L1:.*]] = npu.load pop_next %[[F]] push_next {{.*}}sram_addr = 64, dram_addr = 1024,
// CHECK-NEXT: %[[C1S:.*]] = npu.requant pop_prev %[[L1]] push_next
// CHECK-NEXT: npu.store pop_prev %[[C1S]] {{.*}}dram_addr = 2048,
// CHECK-NEXT: npu.end
npu.program "tiny-4x4" attributes {constants = array<i64: 4096, 8192>} {
  npu.segment 0 "npu0" {
    npu.layer "first" {
      npu.item loads {
        npu.load {sram = sp, elem_bytes = 1, sram_addr = 0, dram_addr = 0, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12288, dram_addr = 1024, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
    }
    npu.layer "second" {
      npu.item loads {
        npu.load {sram = sp, elem_bytes = 1, sram_addr = 8192, dram_addr = 4096, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
        npu.load {sram = sp, elem_bytes = 1, sram_addr = 64, dram_addr = 1024, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12352, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12352, dram_addr = 2048, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
    }
  }
}

// -----

// A layer that keeps its output on chip stores nothing: the FENCE after it
// pops no token (it waits for the post-processor instead). Without a
// constant range nothing is hoisted. The second layer's item has two load
// stages (load_need): its first REQUANT waits only for the first load.
// CHECK-LABEL: npu.segment 0 "npu0"
// CHECK-NEXT: npu.layer_start "kept"
// CHECK-NEXT: %[[L0:.*]] = npu.load push_next
// CHECK-NEXT: npu.requant pop_prev %[[L0]] {
// CHECK-NEXT: npu.layer_start "staged"
// CHECK-NEXT: %[[F:.*]] = npu.fence push_prev {queue = compute}
// CHECK-NEXT: %[[A:.*]] = npu.load pop_next %[[F]] push_next {{.*}}dram_addr = 1024,
// CHECK-NEXT: %[[B:.*]] = npu.load push_next {{.*}}dram_addr = 1040,
// CHECK-NEXT: npu.requant pop_prev %[[A]] {
// CHECK-NEXT: %[[CS:.*]] = npu.requant pop_prev %[[B]] push_next
// CHECK-NEXT: npu.store pop_prev %[[CS]]
// CHECK-NEXT: npu.end
npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "kept" {
      npu.item keep loads {
        npu.load {sram = sp, elem_bytes = 1, sram_addr = 0, dram_addr = 0, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
      }
    }
    npu.layer "staged" {
      npu.item {load_need = array<i64: 0, 1>} loads {
        npu.load {sram = sp, elem_bytes = 1, sram_addr = 64, dram_addr = 1024, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
        npu.load {sram = sp, elem_bytes = 1, sram_addr = 80, dram_addr = 1040, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12352, o_stride = 4, m = 4, n = 4}
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, c_addr = 16, o_addr = 12368, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12352, dram_addr = 2048, n0 = 32, n1 = 1, n2 = 1, n3 = 1}
      }
    }
  }
}
