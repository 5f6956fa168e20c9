// RUN: systole-opt %s --npu-partition --npu-fold-tables --npu-fuse-gate --split-input-file --mlir-print-elementsattrs-with-hex-if-larger=-1 | FileCheck %s

!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!y = !quant.uniform<i8:f32, 0.5:3>

// x * f(x) with f = neg, x and f(x) at scale 1, zero point 0, the product
// at scale 0.5, zero point 3: one table of x, entry c + 128 =
// clamp(rne(c * f(c) * 2) + 3) with f(c) = -c (127 for c = -128), so
// (hand-derived) -128 for |c| >= 9, then -125, -95, -69, -47, -29, -15, -5,
// 1 for |c| = 8 ... 1 and 3 for c = 0; the chain and the mul are gone.
// CHECK-LABEL: func @gate
// CHECK: %[[X:.*]] = graph.conv2d
// CHECK-NOT: graph.dequantize
// CHECK: %[[T:.*]] = graph.table %[[X]] {npu.placement = #npu<placement npu>, table = dense<[-128, -128,
// CHECK-SAME: -128, -125, -95, -69, -47, -29, -15, -5, 1, 3, 1, -5, -15, -29, -47, -69, -95, -125, -128,
// CHECK-NOT: graph.mul
// CHECK-NOT: graph.quantize
// CHECK: return %[[T]]
func.func @gate(%x: tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y> {
  %wi = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x8x8xi8>) -> tensor<1x1x8x8x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %d = graph.dequantize %c : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %n = graph.unary "neg" %d : tensor<1x4x4x8xf32>
  %q = graph.quantize %n : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!x>
  %m = graph.mul %c, %q : (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y>
  return %m : tensor<1x4x4x8x!y>
}

// -----

!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!y = !quant.uniform<i8:f32, 0.5:3>

// The mul in NCHW (both operands through the same transpose, f's chain
// after the dequantize, f(x) the mul's first operand): the table is made
// in the conv's NHWC layout and the transpose back to NHWC cancels.
// CHECK-LABEL: func @gate_nchw
// CHECK: %[[X:.*]] = graph.conv2d
// CHECK-NEXT: %[[T:.*]] = graph.table %[[X]] {npu.placement = #npu<placement npu>, table = dense<[-128, -128,
// CHECK-SAME: -128, -125, -95, -69, -47, -29, -15, -5, 1, 3, 1, -5, -15, -29, -47, -69, -95, -125, -128,
// CHECK-NOT: graph.transpose
// CHECK-NOT: graph.mul
// CHECK: return %[[T]]
func.func @gate_nchw(%x: tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y> {
  %wi = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x8x8xi8>) -> tensor<1x1x8x8x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %ct = graph.transpose %c {perm = array<i64: 0, 3, 1, 2>} : tensor<1x4x4x8x!x> -> tensor<1x8x4x4x!x>
  %d = graph.dequantize %c : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %dt = graph.transpose %d {perm = array<i64: 0, 3, 1, 2>} : tensor<1x4x4x8xf32> -> tensor<1x8x4x4xf32>
  %n = graph.unary "neg" %dt : tensor<1x8x4x4xf32>
  %q = graph.quantize %n : tensor<1x8x4x4xf32> -> tensor<1x8x4x4x!x>
  %m = graph.mul %q, %ct : (tensor<1x8x4x4x!x>, tensor<1x8x4x4x!x>) -> tensor<1x8x4x4x!y>
  %back = graph.transpose %m {perm = array<i64: 0, 2, 3, 1>} : tensor<1x8x4x4x!y> -> tensor<1x4x4x8x!y>
  return %back : tensor<1x4x4x8x!y>
}

// -----

!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!y = !quant.uniform<i8:f32, 0.5:3>

// Not folded: x has a third reader (the function's result), so it is
// stored anyway; f stays on the host, the mul on the NPU.
// CHECK-LABEL: func @third_reader
// CHECK-NOT: graph.table
// CHECK: graph.unary "neg"
// CHECK: graph.mul
func.func @third_reader(%x: tensor<1x4x4x8x!x>) -> (tensor<1x4x4x8x!y>, tensor<1x4x4x8x!x>) {
  %wi = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x8x8xi8>) -> tensor<1x1x8x8x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %d = graph.dequantize %c : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %n = graph.unary "neg" %d : tensor<1x4x4x8xf32>
  %q = graph.quantize %n : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!x>
  %m = graph.mul %c, %q : (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y>
  return %m, %c : tensor<1x4x4x8x!y>, tensor<1x4x4x8x!x>
}

// -----

!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!y = !quant.uniform<i8:f32, 0.5:3>

// x itself a chain of the conv (a BatchNorm's affine steps in PaddleOCR;
// here neg): npu-fold-tables makes it a table of the conv, and the gate
// composes with it into one table of the conv. x = -c (127 for c = -128),
// then the entries above at x: symmetric in c, so the same list, and
// -128 for c = -128 (x = 127).
// CHECK-LABEL: func @gate_after_table
// CHECK: %[[X:.*]] = graph.conv2d
// CHECK-NEXT: %[[T:.*]] = graph.table %[[X]] {npu.placement = #npu<placement npu>, table = dense<[-128, -128,
// CHECK-SAME: -128, -125, -95, -69, -47, -29, -15, -5, 1, 3, 1, -5, -15, -29, -47, -69, -95, -125, -128,
// CHECK-NOT: graph.table
// CHECK: return %[[T]]
func.func @gate_after_table(%x: tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y> {
  %wi = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x8x8xi8>) -> tensor<1x1x8x8x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %d0 = graph.dequantize %c : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %n0 = graph.unary "neg" %d0 : tensor<1x4x4x8xf32>
  %xq = graph.quantize %n0 : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!x>
  %d = graph.dequantize %xq : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %n = graph.unary "neg" %d : tensor<1x4x4x8xf32>
  %q = graph.quantize %n : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!x>
  %m = graph.mul %xq, %q : (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y>
  return %m : tensor<1x4x4x8x!y>
}

// -----

!x = !quant.uniform<u8:f32, 1.0:128>
!w = !quant.uniform<i8:f32, 0.01>
!y = !quant.uniform<u8:f32, 0.5:131>

// uint8 (ORT's default activation type): codes 0..255, the uint8
// QLinearMul kernel's arithmetic with the stored zero points. x = c - 128,
// f(x) = -x (code 256 - c, 255 for c = 0), entry c = clamp(rne(-2 x^2) +
// 131, 0, 255): 0 for |x| >= 9, then 3, 33, 59, 81, 99, 113, 123, 129 for
// |x| = 8 ... 1 and 131 for x = 0 (129 and 131 print as the i8 bytes -127
// and -125).
// CHECK-LABEL: func @gate_uint8
// CHECK: %[[X:.*]] = graph.conv2d
// CHECK-NEXT: %[[T:.*]] = graph.table %[[X]] {npu.placement = #npu<placement npu>, table = dense<[0, 0,
// CHECK-SAME: 0, 3, 33, 59, 81, 99, 113, 123, -127, -125, -127, 123, 113, 99, 81, 59, 33, 3, 0,
// CHECK-NOT: graph.mul
// CHECK: return %[[T]]
func.func @gate_uint8(%x: tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y> {
  %wi = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x8x8xi8>) -> tensor<1x1x8x8x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %d = graph.dequantize %c : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %n = graph.unary "neg" %d : tensor<1x4x4x8xf32>
  %q = graph.quantize %n : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!x>
  %m = graph.mul %c, %q : (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y>
  return %m : tensor<1x4x4x8x!y>
}

// -----

!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!y = !quant.uniform<i8:f32, 0.5:3>

// x a per-channel chain of the conv (a bias Add that the exporter kept
// apart from its MatMul, as ViT's MLP: MatMul -> Add(bias) -> GELU), bias
// 0 in every channel but channel 1, where it is 200: one [8, 256] table of
// the conv. Row 0 is @gate's; row 1 is x = min(c + 200, 127) >= 72, so
// x * -x saturates to -128 for every code (hand-derived); rows 2-7 are
// row 0 again. Not a REQUANT table (one per tensor): a table layer.
// CHECK-LABEL: func @gate_after_bias
// CHECK: %[[X:.*]] = graph.conv2d
// CHECK: %[[T:.*]] = graph.table %[[X]] {npu.placement = #npu<placement npu>, table = dense<{{\[\[}}-128, -128,
// CHECK-SAME: -128, -125, -95, -69, -47, -29, -15, -5, 1, 3, 1, -5, -15, -29, -47, -69, -95, -125, -128,
// CHECK-SAME: -128], {{\[-128(, -128){255}\]}}, [-128, -128,
// CHECK-SAME: tensor<8x256xi8>
// CHECK-NOT: graph.add
// CHECK-NOT: graph.mul
// CHECK: return %[[T]]
func.func @gate_after_bias(%x: tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y> {
  %wi = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x8x8xi8>) -> tensor<1x1x8x8x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %d0 = graph.dequantize %c : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %b = arith.constant dense<[0.0, 200.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]> : tensor<8xf32>
  %a = graph.add %d0, %b : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %xq = graph.quantize %a : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!x>
  %d = graph.dequantize %xq : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %n = graph.unary "neg" %d : tensor<1x4x4x8xf32>
  %q = graph.quantize %n : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!x>
  %m = graph.mul %xq, %q : (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y>
  return %m : tensor<1x4x4x8x!y>
}

// -----

!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!y = !quant.uniform<i8:f32, 0.5:3>

// The same with a zero bias in every channel: the rows are equal, one
// [256] table (@gate's), which the conv's REQUANT applies.
// CHECK-LABEL: func @gate_after_zero_bias
// CHECK: %[[X:.*]] = graph.conv2d
// CHECK: %[[T:.*]] = graph.table %[[X]] {npu.placement = #npu<placement npu>, table = dense<[-128, -128,
// CHECK-SAME: -128, -125, -95, -69, -47, -29, -15, -5, 1, 3, 1, -5, -15, -29, -47, -69, -95, -125, -128,
// CHECK-SAME: tensor<256xi8>
// CHECK: return %[[T]]
func.func @gate_after_zero_bias(%x: tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y> {
  %wi = arith.constant dense<1> : tensor<1x1x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x8x8xi8>) -> tensor<1x1x8x8x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x8x!x>, tensor<1x1x8x8x!w>) -> tensor<1x4x4x8x!x>
  %d0 = graph.dequantize %c : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %b = arith.constant dense<0.0> : tensor<8xf32>
  %a = graph.add %d0, %b : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %xq = graph.quantize %a : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!x>
  %d = graph.dequantize %xq : tensor<1x4x4x8x!x> -> tensor<1x4x4x8xf32>
  %n = graph.unary "neg" %d : tensor<1x4x4x8xf32>
  %q = graph.quantize %n : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!x>
  %m = graph.mul %xq, %q : (tensor<1x4x4x8x!x>, tensor<1x4x4x8x!x>) -> tensor<1x4x4x8x!y>
  return %m : tensor<1x4x4x8x!y>
}
