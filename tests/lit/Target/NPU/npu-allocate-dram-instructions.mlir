// npu-allocate-dram at the instruction level: every STORE of a layer and
// every LOAD of it by the next layer use the DRAM offset the pass assigned
// (npu.dram), tile by tile; with reuse a dead buffer is written again.
// RUN: systole-opt %s --systole-npu-pipeline=hw=tiny-4x4 --convert-graph-to-npu=hw=tiny-4x4 --npu-schedule-pipeline | FileCheck %s --check-prefix=REUSE
// The pipeline with the pass's reuse off (`systole compile --no-dram-reuse`
// also turns fusion off; nothing fuses here):
// RUN: systole-opt %s --pass-pipeline='builtin.module(func.func(graph-fold-qdq,canonicalize,graph-fold-pad,graph-to-nhwc,graph-fold-constants,graph-drop-padding-taps,canonicalize,cse,npu-partition,npu-fold-tables,npu-fuse-gate,npu-fold-tables,npu-concat-in-place,npu-concat-copy,npu-fold-tables{standalone=1},npu-fuse-residual,npu-plan-tiles{hw=tiny-4x4},npu-plan-cascades{hw=tiny-4x4},npu-allocate-dram{reuse=0}),convert-graph-to-npu{hw=tiny-4x4},npu.program(npu-schedule-pipeline))' | FileCheck %s --check-prefix=NOREUSE

// Three int8 adds a = x + x, b = a + a, c = b + b of 4x4x4 tensors (64
// bytes each; 64-byte aligned first fit). x is the pinned input at 0; a at
// 64; b at 128 (a is still live: b reads it); then a dies, so c (pinned as
// the result) takes a's buffer, 64: arena 192. Without reuse c gets 192:
// arena 256. Each add is two items of 8 pixels x 4 channels (32 bytes):
// its STOREs write its offset +0 and +32, the next add LOADs the same two
// tiles, once per operand (both operands are the same tensor), and every
// tile, 8 pixels x 4 channels contiguous on both sides, is one run of
// n0 = 32 bytes (n1 = 1).
// REUSE-LABEL: func.func @main
// REUSE-SAME: {npu.dram = 0 : i64}
// REUSE-SAME: npu.dram_size = 192 : i64
// REUSE: graph.add %arg0, %arg0 {npu.dram = [[#A:==64]] : i64
// REUSE: graph.add {{.*}} {npu.dram = [[#B:==128]] : i64
// REUSE: graph.add {{.*}} {npu.dram = [[#C:==64]] : i64
// REUSE-LABEL: npu.program "tiny-4x4"
// x's second tile (its first is at DRAM 0: dram_addr elided).
// REUSE: npu.load {{.*}}dram_addr = 32, n0 = 32, n1 = 1,
// REUSE: npu.store {{.*}}dram_addr = [[#A]], n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// REUSE: npu.store {{.*}}dram_addr = [[#A+32]], n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// REUSE-NEXT: npu.layer_start "graph.add"
// REUSE-NEXT: npu.fence
// REUSE-NEXT: npu.load {{.*}}dram_addr = [[#A]], n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// REUSE-NEXT: npu.load {{.*}}dram_addr = [[#A]], n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// REUSE-NEXT: npu.load {{.*}}dram_addr = [[#A+32]], n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// REUSE-NEXT: npu.load {{.*}}dram_addr = [[#A+32]], n0 = 32, n1 = 1, n2 = 1, n3 = 1}
// REUSE: npu.store {{.*}}dram_addr = [[#B]], n0 = 32, n1 = 1,
// REUSE: npu.store {{.*}}dram_addr = [[#B+32]], n0 = 32, n1 = 1,
// REUSE-NEXT: npu.layer_start "graph.add"
// REUSE-NEXT: npu.fence
// REUSE-NEXT: npu.load {{.*}}dram_addr = [[#B]], n0 = 32, n1 = 1,
// REUSE-NEXT: npu.load {{.*}}dram_addr = [[#B]], n0 = 32, n1 = 1,
// REUSE-NEXT: npu.load {{.*}}dram_addr = [[#B+32]], n0 = 32, n1 = 1,
// REUSE-NEXT: npu.load {{.*}}dram_addr = [[#B+32]], n0 = 32, n1 = 1,
// REUSE: npu.store {{.*}}dram_addr = [[#C]], n0 = 32, n1 = 1,
// REUSE: npu.store {{.*}}dram_addr = [[#C+32]], n0 = 32, n1 = 1,
// REUSE-NEXT: npu.end
// NOREUSE-LABEL: func.func @main
// NOREUSE-SAME: npu.dram_size = 256 : i64
// NOREUSE: graph.add {{.*}} {npu.dram = [[#C:==192]] : i64
// NOREUSE-LABEL: npu.program "tiny-4x4"
// NOREUSE: npu.fence
// NOREUSE: npu.fence
// NOREUSE: npu.store {{.*}}dram_addr = [[#C]], n0 = 32, n1 = 1,
// NOREUSE: npu.store {{.*}}dram_addr = [[#C+32]], n0 = 32, n1 = 1,
// NOREUSE-NEXT: npu.end
!f = !quant.uniform<i8:f32, 0.05:-3>
func.func @main(%x: tensor<1x4x4x4x!f>) -> tensor<1x4x4x4x!f> {
  %a = graph.add %x, %x : (tensor<1x4x4x4x!f>, tensor<1x4x4x4x!f>) -> tensor<1x4x4x4x!f>
  %b = graph.add %a, %a : (tensor<1x4x4x4x!f>, tensor<1x4x4x4x!f>) -> tensor<1x4x4x4x!f>
  %c = graph.add %b, %b : (tensor<1x4x4x4x!f>, tensor<1x4x4x4x!f>) -> tensor<1x4x4x4x!f>
  return %c : tensor<1x4x4x4x!f>
}
