// RUN: systole-opt %s --npu-partition --npu-fold-tables --split-input-file --mlir-print-elementsattrs-with-hex-if-larger=-1 | FileCheck %s

// A matmul's int8 result read only by dequantize -> neg -> quantize: the
// chain becomes a graph.table on the NPU. Scales 1 and zero points 0, so
// entry c + 128 is quantize(-c) = -c, saturated: c = -128 gives 127, then
// 127, 126, ..., -127 for c = -127 ... 127 (hand-derived).
// CHECK-LABEL: func @neg_table
// CHECK: %[[M:.*]] = graph.matmul
// CHECK-NOT: graph.dequantize
// CHECK: %[[T:.*]] = graph.table %[[M]] {npu.placement = #npu<placement npu>, table = dense<[127, 127, 126, 125,
// CHECK-SAME: -125, -126, -127]> : tensor<256xi8>}
// CHECK-NOT: graph.unary
// CHECK-NOT: graph.quantize
// CHECK: return %[[T]]
!a = !quant.uniform<i8:f32, 0.5:1>
!w = !quant.uniform<i8:f32, 0.25>
!one = !quant.uniform<i8:f32, 1.0>
func.func @neg_table(%x: tensor<2x4x!a>) -> tensor<2x3x!one> {
  %c = arith.constant dense<1> : tensor<4x3xi8>
  %w = "quant.scast"(%c) : (tensor<4x3xi8>) -> tensor<4x3x!w>
  %m = graph.matmul %x, %w : (tensor<2x4x!a>, tensor<4x3x!w>) -> tensor<2x3x!one>
  %d = graph.dequantize %m : tensor<2x3x!one> -> tensor<2x3xf32>
  %n = graph.unary "neg" %d : tensor<2x3xf32>
  %q = graph.quantize %n : tensor<2x3xf32> -> tensor<2x3x!one>
  return %q : tensor<2x3x!one>
}

// -----

// Not folded: the float value is also a result of the function (another
// reader), and a chain with a full-shape operand is not a function of one
// value.
// CHECK-LABEL: func @not_folded
// CHECK-NOT: graph.table
// CHECK: graph.unary "neg"
// CHECK: graph.add
!a2 = !quant.uniform<i8:f32, 0.5:1>
!w2 = !quant.uniform<i8:f32, 0.25>
!one2 = !quant.uniform<i8:f32, 1.0>
func.func @not_folded(%x: tensor<2x4x!a2>, %y: tensor<2x3xf32>) -> (tensor<2x3x!one2>, tensor<2x3xf32>, tensor<2x3x!one2>) {
  %c = arith.constant dense<1> : tensor<4x3xi8>
  %w = "quant.scast"(%c) : (tensor<4x3xi8>) -> tensor<4x3x!w2>
  %m = graph.matmul %x, %w : (tensor<2x4x!a2>, tensor<4x3x!w2>) -> tensor<2x3x!one2>
  %d = graph.dequantize %m : tensor<2x3x!one2> -> tensor<2x3xf32>
  %n = graph.unary "neg" %d : tensor<2x3xf32>
  %q = graph.quantize %n : tensor<2x3xf32> -> tensor<2x3x!one2>
  %m2 = graph.matmul %x, %w : (tensor<2x4x!a2>, tensor<4x3x!w2>) -> tensor<2x3x!one2>
  %d2 = graph.dequantize %m2 : tensor<2x3x!one2> -> tensor<2x3xf32>
  %s = graph.add %d2, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %q2 = graph.quantize %s : tensor<2x3xf32> -> tensor<2x3x!one2>
  return %q, %n, %q2 : tensor<2x3x!one2>, tensor<2x3xf32>, tensor<2x3x!one2>
}

// -----

// Two quantized steps (neg, quantize, dequantize, neg, quantize): the
// second chain reads the first's table and composes with it into one
// table. Hand-derived: neg(neg(c)) = c, except c = -128, whose first neg
// saturates to 127 and comes back as -127.
// CHECK-LABEL: func @composed
// CHECK: %[[M:.*]] = graph.matmul
// CHECK-NEXT: %[[T:.*]] = graph.table %[[M]] {npu.placement = #npu<placement npu>, table = dense<[-127, -127, -126, -125,
// CHECK-SAME: 125, 126, 127]> : tensor<256xi8>}
// CHECK-NOT: graph.table
// CHECK: return %[[T]]
!a3 = !quant.uniform<i8:f32, 0.5:1>
!w3 = !quant.uniform<i8:f32, 0.25>
!one3 = !quant.uniform<i8:f32, 1.0>
func.func @composed(%x: tensor<2x4x!a3>) -> tensor<2x3x!one3> {
  %c = arith.constant dense<1> : tensor<4x3xi8>
  %w = "quant.scast"(%c) : (tensor<4x3xi8>) -> tensor<4x3x!w3>
  %m = graph.matmul %x, %w : (tensor<2x4x!a3>, tensor<4x3x!w3>) -> tensor<2x3x!one3>
  %d = graph.dequantize %m : tensor<2x3x!one3> -> tensor<2x3xf32>
  %n = graph.unary "neg" %d : tensor<2x3xf32>
  %q = graph.quantize %n : tensor<2x3xf32> -> tensor<2x3x!one3>
  %d2 = graph.dequantize %q : tensor<2x3x!one3> -> tensor<2x3xf32>
  %n2 = graph.unary "neg" %d2 : tensor<2x3xf32>
  %q2 = graph.quantize %n2 : tensor<2x3xf32> -> tensor<2x3x!one3>
  return %q2 : tensor<2x3x!one3>
}
