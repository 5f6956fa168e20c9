// RUN: systole-opt %s --npu-partition --npu-concat-in-place --npu-concat-copy --split-input-file | FileCheck %s

// A channel concat whose inputs are also read elsewhere (DenseNet reuses
// every feature map): not in place, but a quantized graph.concat of the
// int8 inputs on the NPU (copies through Q(DQ_i(c)) tables at lowering).
// The dequantize read by the other reader stays; the other goes.
// CHECK-LABEL: func @reused_input
// CHECK: %[[D:.*]] = graph.dequantize %arg0
// CHECK: %[[C:.*]] = graph.concat %arg0, %arg1 {axis = 3 : i64, npu.placement = #npu<placement npu>} : (tensor<1x2x2x4x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<1x2x2x3x!quant.uniform<i8:f32, 2.500000e-01:-2>>) -> tensor<1x2x2x7x!quant.uniform<i8:f32, 1.000000e+00:3>>
// CHECK-NOT: graph.dequantize %arg1
// CHECK-NOT: graph.quantize
// CHECK: return %[[C]], %[[D]]
!a = !quant.uniform<i8:f32, 0.5:1>
!b = !quant.uniform<i8:f32, 0.25:-2>
!o = !quant.uniform<i8:f32, 1.0:3>
func.func @reused_input(%x: tensor<1x2x2x4x!a>, %y: tensor<1x2x2x3x!b>) -> (tensor<1x2x2x7x!o>, tensor<1x2x2x4xf32>) {
  %dx = graph.dequantize %x : tensor<1x2x2x4x!a> -> tensor<1x2x2x4xf32>
  %dy = graph.dequantize %y : tensor<1x2x2x3x!b> -> tensor<1x2x2x3xf32>
  %c = graph.concat %dx, %dy {axis = 3 : i64} : (tensor<1x2x2x4xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x7xf32>
  %q = graph.quantize %c : tensor<1x2x2x7xf32> -> tensor<1x2x2x7x!o>
  return %q, %dx : tensor<1x2x2x7x!o>, tensor<1x2x2x4xf32>
}

// -----

// Along another axis (Swin's roll: Slice + Concat along H or W) the same:
// a quantized concat on the NPU, copying rows of the dims after the axis.
// CHECK-LABEL: func @height_concat
// CHECK: %[[C:.*]] = graph.concat %arg0, %arg1 {axis = 1 : i64, npu.placement = #npu<placement npu>} : (tensor<1x2x2x4x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<1x2x2x4x!quant.uniform<i8:f32, 5.000000e-01:1>>) -> tensor<1x4x2x4x!quant.uniform<i8:f32, 1.000000e+00:3>>
// CHECK-NOT: graph.quantize
// CHECK: return %[[C]]
!a2 = !quant.uniform<i8:f32, 0.5:1>
!o2 = !quant.uniform<i8:f32, 1.0:3>
func.func @height_concat(%x: tensor<1x2x2x4x!a2>, %y: tensor<1x2x2x4x!a2>) -> tensor<1x4x2x4x!o2> {
  %dx = graph.dequantize %x : tensor<1x2x2x4x!a2> -> tensor<1x2x2x4xf32>
  %dy = graph.dequantize %y : tensor<1x2x2x4x!a2> -> tensor<1x2x2x4xf32>
  %c = graph.concat %dx, %dy {axis = 1 : i64} : (tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>) -> tensor<1x4x2x4xf32>
  %q = graph.quantize %c : tensor<1x4x2x4xf32> -> tensor<1x4x2x4x!o2>
  return %q : tensor<1x4x2x4x!o2>
}
