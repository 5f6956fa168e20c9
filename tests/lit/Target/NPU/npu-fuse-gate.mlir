// RUN: systole-opt %s --npu-partition --npu-fold-tables --npu-fuse-gate --split-input-file --mlir-print-elementsattrs-with-hex-if-larger=-1 | FileCheck %s

!x = !quant.uniform<i8:f32, 1.0>
!w = !quant.uniform<i8:f32, 0.01>
!y = !quant.uniform<i8:f32, 0.5:3>

// x * f(x) with f = neg, every scale 1 and zero point 0: the chain becomes
// the table of x whose entry c + 128 is quantize(-c) = -c saturated
// (hand-derived: c = -128 gives 127, then 127, 126, ..., -127 for
// c = -127 ... 127), and the mul is marked as applied by the conv.
// CHECK-LABEL: func @gate
// CHECK: %[[X:.*]] = graph.conv2d
// CHECK-NOT: graph.dequantize
// CHECK: %[[T:.*]] = graph.table %[[X]] {npu.placement = "npu", table = dense<[127, 127, 126, 125,
// CHECK-SAME: -125, -126, -127]> : tensor<256xi8>}
// CHECK-NEXT: %[[M:.*]] = graph.mul %[[X]], %[[T]] {npu.gate_of = 0 : i64, npu.placement = "npu"}
// CHECK-NOT: graph.quantize
// CHECK: return %[[M]]
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
// after the dequantize): the gate is applied in the conv's NHWC layout,
// the table's operand second as in the mul, and the transpose back to NHWC
// that the next NHWC op reads cancels.
// CHECK-LABEL: func @gate_nchw
// CHECK: %[[X:.*]] = graph.conv2d
// CHECK-NEXT: %[[T:.*]] = graph.table %[[X]]
// CHECK-NEXT: %[[M:.*]] = graph.mul %[[T]], %[[X]] {npu.gate_of = 1 : i64, npu.placement = "npu"} : (tensor<1x4x4x8x
// CHECK-NOT: graph.transpose
// CHECK: return %[[M]]
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

// Not fused: x has a third reader (the function's result), so it has to be
// stored anyway; f stays on the host.
// CHECK-LABEL: func @third_reader
// CHECK-NOT: npu.gate_of
// CHECK: graph.unary "neg"
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
