// RUN: systole-opt %s --npu-partition --npu-allocate-dram | FileCheck %s

!f = !quant.uniform<i8:f32, 0.05:-3>
// 256-byte activations: %a is dead after %b is computed, so %c reuses its
// buffer; the reshape aliases its input; the returned value stays pinned.
// CHECK-LABEL: func @reuse
// CHECK-SAME: npu.dram = 0
// CHECK-SAME: npu.dram_size = 768 : i64
// CHECK: %[[A:.*]] = graph.add %arg0, %arg0 {npu.dram = 256 : i64
// CHECK: %[[B:.*]] = graph.add %[[A]], %[[A]] {npu.dram = 512 : i64
// CHECK: %[[C:.*]] = graph.add %[[B]], %[[B]] {npu.dram = 256 : i64
// CHECK: graph.reshape %[[C]] {npu.dram = 256 : i64
func.func @reuse(%x: tensor<1x4x8x8x!f>) -> tensor<1x256x!f> {
  %a = graph.add %x, %x : (tensor<1x4x8x8x!f>, tensor<1x4x8x8x!f>) -> tensor<1x4x8x8x!f>
  %b = graph.add %a, %a : (tensor<1x4x8x8x!f>, tensor<1x4x8x8x!f>) -> tensor<1x4x8x8x!f>
  %c = graph.add %b, %b : (tensor<1x4x8x8x!f>, tensor<1x4x8x8x!f>) -> tensor<1x4x8x8x!f>
  %r = graph.reshape %c : tensor<1x4x8x8x!f> -> tensor<1x256x!f>
  return %r : tensor<1x256x!f>
}
