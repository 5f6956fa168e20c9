// RUN: systole-opt %s --convert-graph-to-linalg | FileCheck %s

// Broadcasting add: the [4] operand is read along the last loop dim.
// CHECK-LABEL: func.func @add_broadcast
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: arith.addf
// CHECK-NOT: graph.
func.func @add_broadcast(%a: tensor<2x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = graph.add %a, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// Softmax as ORT's MLAS computes it on AVX512F (OrtMath.cpp): the row
// maximum, exp(x + -max) by FMAs and a float64 scaling (VSCALEFPS), the 8
// exponentials padded to 16 lanes, lane sums over the one chunk, the
// kernel's tree lane[i + 8] + lane[i] ..., then (1 / sum) * e.
// CHECK-LABEL: func.func @softmax
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: %[[NEG:.*]] = arith.negf %in_{{.*}} : f32
// CHECK: arith.addf %in, %[[NEG]] : f32
// CHECK: math.fma
// CHECK: arith.bitcast %{{.*}} : i64 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: tensor.pad %{{.*}} low[0, 0] high[0, 8]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [2, 1, 16]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: %[[L8:.*]] = tensor.extract %{{.*}}[%{{.*}}, %c8]
// CHECK: %[[L0:.*]] = tensor.extract %{{.*}}[%{{.*}}, %c0]
// CHECK: arith.addf %[[L8]], %[[L0]] : f32
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %in_{{.*}} : f32
// CHECK: arith.mulf %[[INV]], %in : f32
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = graph.softmax %x {axis = 1 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// Layer norm: one pass for the sum and the sum of squares, then
// (x - mean) / sqrt(ms - mean^2 + eps) * scale + bias.
// CHECK-LABEL: func.func @layer_norm
// CHECK: math.sqrt
// CHECK: arith.divf
func.func @layer_norm(%x: tensor<8x32xf32>, %s: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = graph.layer_norm %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-05 : f64} : (tensor<8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// Batched float matmul with a broadcast rhs: one contraction, summed as
// MLAS's SGEMM sums (K = 16 is within one K stride: one chain of fused
// multiply-adds from zero).
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: math.fma
// CHECK-NOT: linalg.generic
func.func @matmul(%a: tensor<4x8x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8x8xf32> {
  %0 = graph.matmul %a, %b : (tensor<4x8x16xf32>, tensor<16x8xf32>) -> tensor<4x8x8xf32>
  return %0 : tensor<4x8x8xf32>
}

// K = 300, N = 64 < K: MlasSgemmOperation halves its N stride 128 -> 64 and
// doubles the K stride 128 -> 256, so the first 256 products are one chain
// and the last 44 another, added to it.
// CHECK-LABEL: func.func @matmul_strides
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [2, 8, 256] [1, 1, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [2, 256, 64] [1, 1, 1]
// CHECK: linalg.generic
// CHECK: math.fma
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 256] [2, 8, 44] [1, 1, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 256, 0] [2, 44, 64] [1, 1, 1]
// CHECK: linalg.generic
// CHECK: math.fma
// CHECK: linalg.map
// CHECK: arith.addf
func.func @matmul_strides(%a: tensor<2x8x300xf32>, %b: tensor<2x300x64xf32>) -> tensor<2x8x64xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x8x300xf32>, tensor<2x300x64xf32>) -> tensor<2x8x64xf32>
  return %0 : tensor<2x8x64xf32>
}

// M = 1 (B not constant): MLAS's AVX M1 kernel rounds each product and
// adds groups of 4 (K = 37: 9 groups, summed as pieces [9, 4] then in
// order), then the last product on its own.
// CHECK-LABEL: func.func @matmul_m1
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [1, 36] [1, 1]
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [1, 9, 4]
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [9, 4, 8]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: tensor.extract_slice %{{.*}}[0, 36] [1, 1] [1, 1]
// CHECK: linalg.map
// CHECK-NOT: math.fma
func.func @matmul_m1(%a: tensor<1x37xf32>, %b: tensor<37x8xf32>) -> tensor<1x8xf32> {
  %0 = graph.matmul %a, %b : (tensor<1x37xf32>, tensor<37x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// GELU with MLAS's erf: |x / sqrt 2| clamped to 3.925, the two branches
// selected at 0.921875, x's sign bit ORed back.
// CHECK-LABEL: func.func @gelu
// CHECK: %[[SQRT1_2:.*]] = arith.constant 0.707106769 : f32
// CHECK: %[[Z:.*]] = arith.mulf %in, %[[SQRT1_2]] : f32
// CHECK: math.absf %[[Z]] : f32
// CHECK: arith.constant 3.925000e+00 : f32
// CHECK: arith.constant 9.218750e-01 : f32
// CHECK: arith.select
// CHECK: arith.ori
// CHECK-NOT: math.erf
func.func @gelu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = graph.unary "gelu" %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// CHECK-LABEL: func.func @slice_transpose
// CHECK: tensor.extract_slice %{{.*}}[0, 32] [8, 32] [1, 1]
// CHECK: linalg.transpose
func.func @slice_transpose(%x: tensor<8x96xf32>) -> tensor<32x8xf32> {
  %0 = graph.slice %x {offsets = array<i64: 0, 32>, strides = array<i64: 1, 1>} : tensor<8x96xf32> -> tensor<8x32xf32>
  %1 = graph.transpose %0 {perm = array<i64: 1, 0>} : tensor<8x32xf32> -> tensor<32x8xf32>
  return %1 : tensor<32x8xf32>
}
