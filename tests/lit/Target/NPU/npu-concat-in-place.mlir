// RUN: systole-opt %s --npu-partition --npu-concat-in-place --split-input-file --mlir-print-elementsattrs-with-hex-if-larger=-1 | FileCheck %s

!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!a = !quant.uniform<i8:f32, 0.5>
!o = !quant.uniform<i8:f32, 1.0>

// Two convs concatenated along channels: each gets its requantization
// table and the concat is marked in place. Hand-derived: input a (scale
// 0.5) into the output (scale 1) is rne(c / 2): -64, -64 (-63.5 to even),
// -63, -62 (-62.5), -62, -62 (-61.5), -61, -60 (-60.5), ..., 63, 64
// (63.5); input b has the output's parameters: the identity.
// CHECK-LABEL: func @in_place
// CHECK: %[[A:.*]] = graph.conv2d
// CHECK: %[[B:.*]] = graph.conv2d
// CHECK: %[[TA:.*]] = graph.table %[[A]] {npu.placement = #npu<placement npu>, table = dense<[-64, -64, -63, -62, -62, -62, -61, -60,
// CHECK-SAME: 61, 62, 62, 62, 63, 64]> : tensor<256xi8>}
// CHECK: %[[TB:.*]] = graph.table %[[B]] {npu.placement = #npu<placement npu>, table = dense<[-128, -127, -126,
// CHECK-SAME: 125, 126, 127]> : tensor<256xi8>}
// CHECK: %[[C:.*]] = graph.concat %[[TA]], %[[TB]] {axis = 3 : i64, npu.in_place, npu.placement = #npu<placement npu>}
// CHECK-NOT: graph.quantize
// CHECK: return %[[C]]
func.func @in_place(%x: tensor<1x4x4x8x!x>) -> tensor<1x4x4x16x!o> {
  %wi = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x8x8xi8>) -> tensor<1x1x8x8x!w>
  %ca = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!a>
  %cb = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %da = graph.dequantize %ca : tensor<1x4x4x8x!a> -> tensor<1x4x4x8xf32>
  %db = graph.dequantize %cb : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %c = graph.concat %da, %db {axis = 3 : i64} : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x16xf32>
  %q = graph.quantize %c : tensor<1x4x4x16xf32> -> tensor<1x4x4x16x!o>
  return %q : tensor<1x4x4x16x!o>
}

// -----

!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!o = !quant.uniform<i8:f32, 1.0>

// Not in place: an input that is not a conv's result (the function's
// argument); a conv result read twice (returned too).
// CHECK-LABEL: func @not_in_place
// CHECK-NOT: npu.in_place
// CHECK: return
func.func @not_in_place(%x: tensor<1x4x4x8x!x>) -> (tensor<1x4x4x16x!o>, tensor<1x4x4x16x!o>, tensor<1x4x4x8x!x>) {
  %wi = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x8x8xi8>) -> tensor<1x1x8x8x!w>
  %ca = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %da = graph.dequantize %ca : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %dx = graph.dequantize %x : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %c = graph.concat %da, %dx {axis = 3 : i64} : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x16xf32>
  %q = graph.quantize %c : tensor<1x4x4x16xf32> -> tensor<1x4x4x16x!o>
  %cb = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %cc = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %db = graph.dequantize %cb : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %dc = graph.dequantize %cc : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %c2 = graph.concat %db, %dc {axis = 3 : i64} : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x16xf32>
  %q2 = graph.quantize %c2 : tensor<1x4x4x16xf32> -> tensor<1x4x4x16x!o>
  return %q, %q2, %cb : tensor<1x4x4x16x!o>, tensor<1x4x4x16x!o>, tensor<1x4x4x8x!x>
}
