// RUN: systole-opt %s --npu-partition --npu-fold-tables=standalone=1 --split-input-file --mlir-print-elementsattrs-with-hex-if-larger=-1 | FileCheck %s

// After an NPU add (VADD has no table stage) dequantize -> neg ->
// quantize is a graph.table of its own (a VLUT layer). Scales 1, zero
// points 0: entry c + 128 is -c saturated (hand-derived: 127, 127, 126,
// ..., -127).
// CHECK-LABEL: func @after_add
// CHECK: %[[A:.*]] = graph.add %arg0, %arg1 {npu.placement = #npu<placement npu>}
// CHECK: %[[T:.*]] = graph.table %[[A]] {npu.placement = #npu<placement npu>, table = dense<[127, 127, 126, 125,
// CHECK-SAME: -126, -127]> : tensor<256xi8>}
// CHECK-NOT: graph.quantize
// CHECK: return %[[T]]
!one = !quant.uniform<i8:f32, 1.0>
func.func @after_add(%x: tensor<1x2x2x4x!one>, %y: tensor<1x2x2x4x!one>) -> tensor<1x2x2x4x!one> {
  %a = graph.add %x, %y : (tensor<1x2x2x4x!one>, tensor<1x2x2x4x!one>) -> tensor<1x2x2x4x!one>
  %d = graph.dequantize %a : tensor<1x2x2x4x!one> -> tensor<1x2x2x4xf32>
  %n = graph.unary "neg" %d : tensor<1x2x2x4xf32>
  %q = graph.quantize %n : tensor<1x2x2x4xf32> -> tensor<1x2x2x4x!one>
  return %q : tensor<1x2x2x4x!one>
}

// -----

// A per-channel constant (a [2] scale along the last dim, as a
// BatchNormalization's parameters): one table per channel, [2, 256]. Not
// a REQUANT table (one per tensor): the matmul keeps its own result and
// the table runs after it. Hand-derived: row 0 is x * 1 = the code itself
// (-128 ... 127); row 1 is 2x saturated: -128 for c <= -64, then -126,
// -124, ..., 126 for c = 63, then 127.
// CHECK-LABEL: func @per_channel
// CHECK: %[[M:.*]] = graph.matmul
// CHECK: %[[T:.*]] = graph.table %[[M]] {npu.placement = #npu<placement npu>, table = dense<{{\[\[}}-128, -127, -126,
// CHECK-SAME: 126, 127], [-128, -128,
// CHECK-SAME: -128, -126, -124,
// CHECK-SAME: 124, 126, 127, 127,
// CHECK-SAME: 127]]> : tensor<2x256xi8>}
// CHECK: return %[[T]]
!a = !quant.uniform<i8:f32, 0.5:1>
!w = !quant.uniform<i8:f32, 0.25>
!one2 = !quant.uniform<i8:f32, 1.0>
func.func @per_channel(%x: tensor<3x4x!a>) -> tensor<3x2x!one2> {
  %c = arith.constant dense<1> : tensor<4x2xi8>
  %w = "quant.scast"(%c) : (tensor<4x2xi8>) -> tensor<4x2x!w>
  %m = graph.matmul %x, %w : (tensor<3x4x!a>, tensor<4x2x!w>) -> tensor<3x2x!one2>
  %d = graph.dequantize %m : tensor<3x2x!one2> -> tensor<3x2xf32>
  %s = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %p = graph.mul %d, %s : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %q = graph.quantize %p : tensor<3x2xf32> -> tensor<3x2x!one2>
  return %q : tensor<3x2x!one2>
}

// -----

// A per-channel constant whose channels all give the same table (a scale
// of ones, as a LayerNorm's weight before training; a zero bias): one
// [256] table, which the matmul's REQUANT applies. Hand-derived: x * 1 is
// the code itself (-128 ... 127).
// CHECK-LABEL: func @equal_channels
// CHECK: %[[M:.*]] = graph.matmul
// CHECK: %[[T:.*]] = graph.table %[[M]] {npu.placement = #npu<placement npu>, table = dense<[-128, -127, -126,
// CHECK-SAME: 126, 127]> : tensor<256xi8>}
// CHECK: return %[[T]]
!a = !quant.uniform<i8:f32, 0.5:1>
!w = !quant.uniform<i8:f32, 0.25>
!one2 = !quant.uniform<i8:f32, 1.0>
func.func @equal_channels(%x: tensor<3x4x!a>) -> tensor<3x2x!one2> {
  %c = arith.constant dense<1> : tensor<4x2xi8>
  %w = "quant.scast"(%c) : (tensor<4x2xi8>) -> tensor<4x2x!w>
  %m = graph.matmul %x, %w : (tensor<3x4x!a>, tensor<4x2x!w>) -> tensor<3x2x!one2>
  %d = graph.dequantize %m : tensor<3x2x!one2> -> tensor<3x2xf32>
  %s = arith.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %p = graph.mul %d, %s : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %q = graph.quantize %p : tensor<3x2xf32> -> tensor<3x2x!one2>
  return %q : tensor<3x2x!one2>
}

// -----

// Without the option, neither: the chain stays on the host.
// RUN: systole-opt %s --npu-partition --npu-fold-tables --split-input-file | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-LABEL: func @after_add
// DEFAULT-NOT: graph.table
// DEFAULT-LABEL: func @per_channel
// DEFAULT-NOT: graph.table
// DEFAULT-LABEL: func @equal_channels
// DEFAULT-NOT: graph.table
