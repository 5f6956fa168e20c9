// RUN: systole-opt %s --npu-partition --npu-fuse-residual --split-input-file | FileCheck %s

!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-128>
!w = !quant.uniform<i8:f32, 0.01>
!u = !quant.uniform<u8:f32, 0.1:128>

// Identity shortcut: the conv's result (lhs) is read only by the add and
// the shortcut is the block's input, so the conv applies the add.
// CHECK-LABEL: func @identity
// CHECK: graph.add {{.*}}npu.residual_of = 0 : i64
func.func @identity(%x: tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y> {
  %wi = arith.constant dense<1> : tensor<3x3x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<3x3x8x8xi8>) -> tensor<3x3x8x8x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<3x3x8x8x!w>) -> tensor<1x4x4x8x!x>
  %a = graph.add %c, %x : (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y>
  return %a : tensor<1x4x4x8x!y>
}

// -----

!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-128>
!w = !quant.uniform<i8:f32, 0.01>
!u = !quant.uniform<u8:f32, 0.1:128>

// Projection shortcut: both operands are single-use convs; the later one
// (%m, the rhs) applies the add, when %s already exists.
// CHECK-LABEL: func @projection
// CHECK: graph.add {{.*}}npu.residual_of = 1 : i64
func.func @projection(%x: tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y> {
  %wi = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x8x8xi8>) -> tensor<1x1x8x8x!w>
  %s = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %m = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %a = graph.add %s, %m : (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y>
  return %a : tensor<1x4x4x8x!y>
}

// -----

!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-128>
!w = !quant.uniform<i8:f32, 0.01>
!u = !quant.uniform<u8:f32, 0.1:128>

// Not fused: the conv's result has a second reader (the return); the other
// operand of the second add is computed after its conv; a per-channel
// broadcast; a uint8 result (a host add, with its dequantize/quantize).
// CHECK-LABEL: func @not_fused
// CHECK-NOT: npu.residual_of
// CHECK: return
func.func @not_fused(%x: tensor<1x4x4x8x!x>, %v: tensor<1x1x1x8x!x>) -> (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!y>, tensor<1x4x4x8x!y>, tensor<1x4x4x8x!y>, tensor<1x4x4x8x!u>) {
  %wi = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x8x8xi8>) -> tensor<1x1x8x8x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %a = graph.add %c, %x : (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y>
  %d = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %late = graph.add %x, %x : (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!x>
  %b = graph.add %d, %late : (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y>
  %e = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %f = graph.add %e, %v : (tensor<1x4x4x8x!x>, tensor<1x1x1x8x!x>) -> tensor<1x4x4x8x!y>
  %g = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %h = graph.add %g, %x : (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!u>
  return %c, %a, %b, %f, %h : tensor<1x4x4x8x!x>, tensor<1x4x4x8x!y>, tensor<1x4x4x8x!y>, tensor<1x4x4x8x!y>, tensor<1x4x4x8x!u>
}
