// RUN: systole-opt %s --npu-partition | FileCheck %s

!f = !quant.uniform<i8:f32, 0.05:-3>
// Quantize/dequantize at the boundary run on the host; the add on the NPU.
// CHECK-LABEL: func @boundary
// CHECK: graph.quantize {{.*}}npu.placement = "host"
// CHECK: graph.add {{.*}}npu.placement = "npu"
// CHECK: graph.dequantize {{.*}}npu.placement = "host"
func.func @boundary(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %q = graph.quantize %x : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!f>
  %a = graph.add %q, %q : (tensor<1x4x4x8x!f>, tensor<1x4x4x8x!f>) -> tensor<1x4x4x8x!f>
  %d = graph.dequantize %a : tensor<1x4x4x8x!f> -> tensor<1x4x4x8xf32>
  return %d : tensor<1x4x4x8xf32>
}
