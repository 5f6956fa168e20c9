// RUN: systole-opt %s --graph-fold-pad --split-input-file --mlir-print-local-scope | FileCheck %s

// TensorFlow's "SAME" padding of a stride-2 conv: one more row and column
// at the bottom and right, a Pad of 0.0 = the zero point 3. The conv reads
// the Pad's input with pads [top, left, bottom, right] = [1, 0, 2, 1] (its
// own [1, 0, 1, 0] plus the Pad's H and W amounts).
// CHECK-LABEL: func @same_padding
// CHECK-NOT: graph.pad
// CHECK: graph.conv2d %arg0, %arg1 {{{.*}}pads = array<i64: 1, 0, 2, 1>{{.*}}}
!q = !quant.uniform<i8:f32, 0.5:3>
!w = !quant.uniform<i8:f32, 0.25>
func.func @same_padding(%x: tensor<1x2x6x6x!q>, %w: tensor<4x2x3x3x!w>) -> tensor<1x4x4x3x!q> {
  %p = graph.pad %x {pads = array<i64: 0, 0, 0, 0, 0, 0, 1, 1>, value = 3.0 : f64} : tensor<1x2x6x6x!q> -> tensor<1x2x7x7x!q>
  %c = graph.conv2d %p, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 0, 1, 0>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x2x7x7x!q>, tensor<4x2x3x3x!w>) -> tensor<1x4x4x3x!q>
  return %c : tensor<1x4x4x3x!q>
}

// -----

// A pad of another value (1.0 stored as 5, not the zero point) and a pad of
// the channels stay.
// CHECK-LABEL: func @kept
// CHECK: graph.pad
// CHECK: graph.conv2d {{.*}}pads = array<i64: 0, 0, 0, 0>
// CHECK: graph.pad
// CHECK: graph.conv2d {{.*}}pads = array<i64: 0, 0, 0, 0>
!q = !quant.uniform<i8:f32, 0.5:3>
!w = !quant.uniform<i8:f32, 0.25>
func.func @kept(%x: tensor<1x2x6x6x!q>, %w: tensor<4x2x3x3x!w>, %w3: tensor<4x3x3x3x!w>) -> (tensor<1x4x5x5x!q>, tensor<1x4x4x4x!q>) {
  %p = graph.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 0, 0>, value = 5.0 : f64} : tensor<1x2x6x6x!q> -> tensor<1x2x7x7x!q>
  %c = graph.conv2d %p, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x2x7x7x!q>, tensor<4x2x3x3x!w>) -> tensor<1x4x5x5x!q>
  %p2 = graph.pad %x {pads = array<i64: 0, 1, 0, 0, 0, 0, 0, 0>, value = 3.0 : f64} : tensor<1x2x6x6x!q> -> tensor<1x3x6x6x!q>
  %c2 = graph.conv2d %p2, %w3 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x3x6x6x!q>, tensor<4x3x3x3x!w>) -> tensor<1x4x4x4x!q>
  return %c, %c2 : tensor<1x4x5x5x!q>, tensor<1x4x4x4x!q>
}

// -----

// Padding as wide as the kernel (3 columns on the left of a 3x3 kernel:
// some outputs would read only padding) is left to the Pad.
// CHECK-LABEL: func @too_wide
// CHECK: graph.pad
// CHECK: graph.conv2d {{.*}}pads = array<i64: 0, 1, 0, 0>
!q = !quant.uniform<i8:f32, 0.5:3>
!w = !quant.uniform<i8:f32, 0.25>
func.func @too_wide(%x: tensor<1x2x6x6x!q>, %w: tensor<4x2x3x3x!w>) -> tensor<1x4x4x7x!q> {
  %p = graph.pad %x {pads = array<i64: 0, 0, 0, 2, 0, 0, 0, 0>, value = 3.0 : f64} : tensor<1x2x6x6x!q> -> tensor<1x2x6x8x!q>
  %c = graph.conv2d %p, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 1, 0, 0>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x2x6x8x!q>, tensor<4x2x3x3x!w>) -> tensor<1x4x4x7x!q>
  return %c : tensor<1x4x4x7x!q>
}
