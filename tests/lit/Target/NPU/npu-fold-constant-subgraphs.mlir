// RUN: systole-opt %s --npu-fold-constant-subgraphs --split-input-file | FileCheck %s

// Quantize -> dequantize -> neg of a constant, then an op that reads the
// input: the constant part is computed at compile time. Hand-derived with
// scale 0.5, zero point 1 (round half to even): 1.0 -> 3, -2.0 -> -3,
// 3.5 -> 8, 0.25 -> 1 (0.5 rounds to 0), 4.0 -> 9, -0.5 -> 0; dequantized
// 1.0, -2.0, 3.5, 0.0, 4.0, -0.5; negated by the host code.
// CHECK-LABEL: func @qdq_neg
// CHECK-NOT: graph.quantize
// CHECK-NOT: graph.dequantize
// CHECK-NOT: graph.unary
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[-1.000000e+00, 2.000000e+00, -3.500000e+00], [-0.000000e+00, -4.000000e+00, 5.000000e-01]]> : tensor<2x3xf32>
// CHECK: %[[A:.*]] = graph.add %arg0, %[[C]]
// CHECK: return %[[A]]
!q = !quant.uniform<i8:f32, 0.5:1>
func.func @qdq_neg(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = arith.constant dense<[[1.0, -2.0, 3.5], [0.25, 4.0, -0.5]]> : tensor<2x3xf32>
  %q = graph.quantize %c : tensor<2x3xf32> -> tensor<2x3x!q>
  %d = graph.dequantize %q : tensor<2x3x!q> -> tensor<2x3xf32>
  %n = graph.unary "neg" %d : tensor<2x3xf32>
  %a = graph.add %x, %n : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a : tensor<2x3xf32>
}

// -----

// A graph.host of constants (an Expand, as exporters build masks and
// position ids) runs as compiled host code; the op reading the input stays.
// CHECK-LABEL: func @host_expand
// CHECK-NOT: graph.host "Expand"
// CHECK: %[[E:.*]] = arith.constant dense<{{\[}}[7, -1, 9], [7, -1, 9]]> : tensor<2x3xi64>
// CHECK: %[[N:.*]] = graph.host "Neg"(%arg0)
// CHECK: graph.host "Add"(%[[N]], %[[E]])
func.func @host_expand(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %c = arith.constant dense<[7, -1, 9]> : tensor<3xi64>
  %e = graph.host "Expand"(%c) : (tensor<3xi64>) -> tensor<2x3xi64> {
  ^bb0(%arg1: tensor<3xi64>):
    %0 = tensor.empty() : tensor<2x3xi64>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<3xi64>) outs(%0 : tensor<2x3xi64>) {
    ^bb0(%in: i64, %out: i64):
      linalg.yield %in : i64
    } -> tensor<2x3xi64>
    graph.yield %1 : tensor<2x3xi64>
  }
  %n = graph.host "Neg"(%x) : (tensor<2x3xi64>) -> tensor<2x3xi64> {
  ^bb0(%arg1: tensor<2x3xi64>):
    %0 = tensor.empty() : tensor<2x3xi64>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<2x3xi64>) outs(%0 : tensor<2x3xi64>) {
    ^bb0(%in: i64, %out: i64):
      %z = arith.constant 0 : i64
      %s = arith.subi %z, %in : i64
      linalg.yield %s : i64
    } -> tensor<2x3xi64>
    graph.yield %1 : tensor<2x3xi64>
  }
  %s = graph.host "Add"(%n, %e) : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64> {
  ^bb0(%arg1: tensor<2x3xi64>, %arg2: tensor<2x3xi64>):
    %0 = tensor.empty() : tensor<2x3xi64>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1, %arg2 : tensor<2x3xi64>, tensor<2x3xi64>) outs(%0 : tensor<2x3xi64>) {
    ^bb0(%a: i64, %b: i64, %out: i64):
      %r = arith.addi %a, %b : i64
      linalg.yield %r : i64
    } -> tensor<2x3xi64>
    graph.yield %1 : tensor<2x3xi64>
  }
  return %s : tensor<2x3xi64>
}

// -----

// A model output stays computed (a program must write it), even when it
// depends only on constants.
// CHECK-LABEL: func @constant_output
// CHECK: graph.unary "neg"
func.func @constant_output() -> tensor<2xf32> {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %n = graph.unary "neg" %c : tensor<2xf32>
  return %n : tensor<2xf32>
}

// -----

// Quantized results stay: the NPU computes on them (a quantized add of two
// constants is left to npu-partition).
// CHECK-LABEL: func @quantized_add
// CHECK: graph.add
!a = !quant.uniform<i8:f32, 0.25>
func.func @quantized_add() -> tensor<4x!a> {
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi8>
  %w = "quant.scast"(%c) : (tensor<4xi8>) -> tensor<4x!a>
  %s = graph.add %w, %w : (tensor<4x!a>, tensor<4x!a>) -> tensor<4x!a>
  return %s : tensor<4x!a>
}
