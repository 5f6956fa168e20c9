// RUN: systole-opt %s --graph-drop-padding-taps --split-input-file | FileCheck %s

// An ASPP branch on a 6x6 map: with dilation 12 and padding 12, output o
// reads rows o - 12, o and o + 12; only the centre tap ever lands in
// [0, 6), so the filter keeps tap (1, 1) (HWIO elements 8 and 9, values 9
// and 10), the padding drops to 0 and the dilation to 1. The model's
// kernel window (9 taps) stays on the op for MAC counts.
// CHECK-LABEL: func @aspp_branch
// CHECK: %[[C:.*]] = arith.constant dense<{{\[\[\[}}[9], [10]]]]> : tensor<1x1x2x1xi8>
// CHECK: %[[W:.*]] = "quant.scast"(%[[C]]) : (tensor<1x1x2x1xi8>) -> tensor<1x1x2x1x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK: graph.conv2d %arg0, %[[W]] {dilations = array<i64: 1, 1>, graph.model_window = 9 : i64, group = 1 : i64, layout = #graph<layout nhwc>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK-SAME: -> tensor<1x6x6x1x!quant.uniform<i8:f32, 2.500000e-01:-3>>
!x = !quant.uniform<i8:f32, 0.05:3>
!w = !quant.uniform<i8:f32, 0.5>
!y = !quant.uniform<i8:f32, 0.25:-3>
func.func @aspp_branch(%x: tensor<1x6x6x2x!x>) -> tensor<1x6x6x1x!y> {
  %c = arith.constant dense<[[[[1], [2]], [[3], [4]], [[5], [6]]], [[[7], [8]], [[9], [10]], [[11], [12]]], [[[13], [14]], [[15], [16]], [[17], [18]]]]> : tensor<3x3x2x1xi8>
  %w = "quant.scast"(%c) : (tensor<3x3x2x1xi8>) -> tensor<3x3x2x1x!w>
  %y = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 12, 12>, pads = array<i64: 12, 12, 12, 12>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x6x6x2x!x>, tensor<3x3x2x1x!w>) -> tensor<1x6x6x1x!y>
  return %y : tensor<1x6x6x1x!y>
}

// -----

// One-sided: H = 3, pads top 2 / bottom 0, dilation 2, one output row that
// reads rows -2, 0 and 2. Tap row 0 only reads padding: rows 1 and 2 of
// the OIHW filter stay (values 4..9), the top padding shrinks by one
// dilation step to 0, the dilation stays 2 (two taps remain). W (5 wide,
// kernel 3, padding 1) uses every tap and is unchanged.
// CHECK-LABEL: func @one_sided
// CHECK: %[[C:.*]] = arith.constant dense<{{\[\[\[}}[4, 5, 6], [7, 8, 9]]]]> : tensor<1x1x2x3xi8>
// CHECK: graph.conv2d %arg0, %{{.*}} {dilations = array<i64: 2, 1>, graph.model_window = 9 : i64, group = 1 : i64, layout = #graph<layout nchw>, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>}
// CHECK-SAME: -> tensor<1x1x1x5xi32>
!x2 = !quant.uniform<i8:f32, 0.05:3>
!w2 = !quant.uniform<i8:f32, 0.5>
func.func @one_sided(%x: tensor<1x1x3x5x!x2>) -> tensor<1x1x1x5xi32> {
  %c = arith.constant dense<[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]> : tensor<1x1x3x3xi8>
  %w = "quant.scast"(%c) : (tensor<1x1x3x3xi8>) -> tensor<1x1x3x3x!w2>
  %y = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 2, 1>, pads = array<i64: 2, 1, 0, 1>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x1x3x5x!x2>, tensor<1x1x3x3x!w2>) -> tensor<1x1x1x5xi32>
  return %y : tensor<1x1x1x5xi32>
}

// -----

// Every tap reaches the input (a 3x3 kernel, dilation 2, on 5x5): kept.
// A float convolution is never rewritten (its padding is 0.0, and dropping
// 0.0 * w terms could change the sign of a zero sum).
// CHECK-LABEL: func @kept
// CHECK: graph.conv2d %arg0, %{{.*}} {dilations = array<i64: 2, 2>, {{.*}}pads = array<i64: 2, 2, 2, 2>
// CHECK: graph.conv2d %arg1, %{{.*}} {dilations = array<i64: 12, 12>, {{.*}}pads = array<i64: 12, 12, 12, 12>
!x3 = !quant.uniform<i8:f32, 0.05:3>
!w3 = !quant.uniform<i8:f32, 0.5>
func.func @kept(%x: tensor<1x1x5x5x!x3>, %f: tensor<1x1x6x6xf32>) -> (tensor<1x1x5x5xi32>, tensor<1x1x6x6xf32>) {
  %c = arith.constant dense<1> : tensor<1x1x3x3xi8>
  %w = "quant.scast"(%c) : (tensor<1x1x3x3xi8>) -> tensor<1x1x3x3x!w3>
  %y = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x1x5x5x!x3>, tensor<1x1x3x3x!w3>) -> tensor<1x1x5x5xi32>
  %wf = arith.constant dense<1.0> : tensor<1x1x3x3xf32>
  %z = graph.conv2d %f, %wf {strides = array<i64: 1, 1>, dilations = array<i64: 12, 12>, pads = array<i64: 12, 12, 12, 12>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x1x6x6xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x6x6xf32>
  return %y, %z : tensor<1x1x5x5xi32>, tensor<1x1x6x6xf32>
}

// -----

// Stride 2 on a 1-pixel map with padding 1: output 0 reads rows -1, 0, 1
// (only tap 1). A splat filter stays a splat.
// CHECK-LABEL: func @splat_stride
// CHECK: arith.constant dense<7> : tensor<1x1x1x1xi8>
// CHECK: graph.conv2d %arg0, %{{.*}} {dilations = array<i64: 1, 1>, graph.model_window = 9 : i64, group = 1 : i64, layout = #graph<layout nchw>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
!x4 = !quant.uniform<i8:f32, 0.05:3>
!w4 = !quant.uniform<i8:f32, 0.5>
func.func @splat_stride(%x: tensor<1x1x1x1x!x4>) -> tensor<1x1x1x1xi32> {
  %c = arith.constant dense<7> : tensor<1x1x3x3xi8>
  %w = "quant.scast"(%c) : (tensor<1x1x3x3xi8>) -> tensor<1x1x3x3x!w4>
  %y = graph.conv2d %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x1x1x1x!x4>, tensor<1x1x3x3x!w4>) -> tensor<1x1x1x1xi32>
  return %y : tensor<1x1x1x1xi32>
}
