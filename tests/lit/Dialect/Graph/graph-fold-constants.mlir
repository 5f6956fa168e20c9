// RUN: systole-opt %s --graph-fold-constants --split-input-file | FileCheck %s

!w = !quant.uniform<i8:f32:0, {0.5, 0.25}>

// A transposed per-axis weight becomes a new constant whose scales follow the
// axis (0 -> 1).
// CHECK-LABEL: func @transpose_weight
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi8>
// CHECK: %[[Q:.*]] = "quant.scast"(%[[C]]) : (tensor<3x2xi8>) -> tensor<3x2x!quant.uniform<i8:f32:1, {5.000000e-01,2.500000e-01}>>
// CHECK-NOT: graph.transpose
// CHECK: return %[[Q]]
!wt = !quant.uniform<i8:f32:1, {0.5, 0.25}>
func.func @transpose_weight() -> tensor<3x2x!wt> {
  %c = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
  %q = "quant.scast"(%c) : (tensor<2x3xi8>) -> tensor<2x3x!w>
  %t = graph.transpose %q {perm = array<i64: 1, 0>} : tensor<2x3x!w> -> tensor<3x2x!wt>
  return %t : tensor<3x2x!wt>
}

// -----

// Flattening an NHWC map through a transpose to NCHW is absorbed into the
// rows of the matmul weight: row (c, h, w) of W moves to row (h, w, c).
// x is [1, H=1, W=2, C=2]; NCHW flatten order is (c0w0, c0w1, c1w0, c1w1),
// NHWC order is (w0c0, w0c1, w1c0, w1c1): rows 0, 2, 1, 3 of W.
// CHECK-LABEL: func @flatten_into_weights
// CHECK: %[[W:.*]] = arith.constant dense<{{\[}}[1.000000e+01], [3.000000e+01], [2.000000e+01], [4.000000e+01]]> : tensor<4x1xf32>
// CHECK: %[[R:.*]] = graph.reshape %arg0 : tensor<1x1x2x2xf32> -> tensor<1x4xf32>
// CHECK: graph.matmul %[[R]], %[[W]]
func.func @flatten_into_weights(%x: tensor<1x1x2x2xf32>) -> tensor<1x1xf32> {
  %w = arith.constant dense<[[10.0], [20.0], [30.0], [40.0]]> : tensor<4x1xf32>
  %t = graph.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x1x2x2xf32> -> tensor<1x2x1x2xf32>
  %f = graph.reshape %t : tensor<1x2x1x2xf32> -> tensor<1x4xf32>
  %y = graph.matmul %f, %w : (tensor<1x4xf32>, tensor<4x1xf32>) -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}

// -----

// A dequantized constant FoldQDQ left (weights of a host op) becomes float32:
// float(q - zp) * scale per axis 0: row 0 (scale 0.5, zp 1): (3-1)*0.5 = 1,
// (-1-1)*0.5 = -1; row 1 (scale 0.25, zp -2): (2+2)*0.25 = 1, (6+2)*0.25 = 2.
// CHECK-LABEL: func.func @dequantize_constant
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[1.000000e+00, -1.000000e+00], [1.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT: graph.dequantize
// CHECK: return %[[C]]
func.func @dequantize_constant() -> tensor<2x2xf32> {
  %c = arith.constant dense<[[3, -1], [2, 6]]> : tensor<2x2xi8>
  %q = "quant.scast"(%c) : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32:0, {5.000000e-01:1, 2.500000e-01:-2}>>
  %f = graph.dequantize %q : tensor<2x2x!quant.uniform<i8:f32:0, {5.000000e-01:1, 2.500000e-01:-2}>> -> tensor<2x2xf32>
  return %f : tensor<2x2xf32>
}

// -----

// The transpose of a splat constant (an untrained all-zero head) folds.
// CHECK-LABEL: func.func @transpose_splat
// CHECK-NOT: graph.transpose
// CHECK: arith.constant dense<0> : tensor<3x2xi8>
func.func @transpose_splat() -> tensor<3x2x!quant.uniform<i8:f32, 1.000000e+00>> {
  %c = arith.constant dense<0> : tensor<2x3xi8>
  %q = "quant.scast"(%c) : (tensor<2x3xi8>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e+00>>
  %t = graph.transpose %q {perm = array<i64: 1, 0>} : tensor<2x3x!quant.uniform<i8:f32, 1.000000e+00>> -> tensor<3x2x!quant.uniform<i8:f32, 1.000000e+00>>
  return %t : tensor<3x2x!quant.uniform<i8:f32, 1.000000e+00>>
}

// -----

// A 1-D convolution's per-output-channel weight [O, I, K] as [O, I, 1, K]:
// the dims up to the quantized axis 0 are unchanged, so the reshape folds
// and the scales keep their axis.
// CHECK-LABEL: func @reshape_per_axis_weight
// CHECK: %[[C:.*]] = arith.constant dense<{{\[\[\[\[}}1, 2]]], {{\[\[\[}}3, 4]]]]> : tensor<2x1x1x2xi8>
// CHECK: %[[Q:.*]] = "quant.scast"(%[[C]]) : (tensor<2x1x1x2xi8>) -> tensor<2x1x1x2x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>
// CHECK-NOT: graph.reshape
// CHECK: return %[[Q]]
!pa = !quant.uniform<i8:f32:0, {0.5, 0.25}>
func.func @reshape_per_axis_weight() -> tensor<2x1x1x2x!pa> {
  %c = arith.constant dense<[[[1, 2]], [[3, 4]]]> : tensor<2x1x2xi8>
  %q = "quant.scast"(%c) : (tensor<2x1x2xi8>) -> tensor<2x1x2x!pa>
  %r = graph.reshape %q : tensor<2x1x2x!pa> -> tensor<2x1x1x2x!pa>
  return %r : tensor<2x1x1x2x!pa>
}

// -----

// A reshape that changes the quantized axis' dim (axis 0: 2 -> 3) has no
// per-axis meaning: kept.
// CHECK-LABEL: func @reshape_per_axis_moved
// CHECK: graph.reshape
!pb = !quant.uniform<i8:f32:0, {0.5, 0.25}>
func.func @reshape_per_axis_moved() -> tensor<3x2x!pb> {
  %c = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
  %q = "quant.scast"(%c) : (tensor<2x3xi8>) -> tensor<2x3x!pb>
  %r = graph.reshape %q : tensor<2x3x!pb> -> tensor<3x2x!pb>
  return %r : tensor<3x2x!pb>
}
