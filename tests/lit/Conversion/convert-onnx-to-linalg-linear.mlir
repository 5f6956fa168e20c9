// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The contraction family's bodies (lib/Conversion/OnnxToLinalg/Linear.cpp).

// CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[BK:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d1)>

// Einsum "bij,bjk->bik" on int32: the importer's maps over loops
// (b, i, k, j), j the one reduction; products summed into a zero fill.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @einsum_bij_bjk
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: linalg.fill ins(%[[ZERO]] : i32)
// CHECK: indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: %[[P:.*]] = arith.muli %in, %in_0 : i32
// CHECK: arith.addi %out, %[[P]] : i32
func.func @einsum_bij_bjk(%a: tensor<2x3x4xi32>, %b: tensor<2x4x5xi32>) -> tensor<2x3x5xi32> {
  %y = graph.host "Einsum"(%a, %b) attributes {params = {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], loops = 4 : i64, reduction_loops = array<i64: 3>}} : (tensor<2x3x4xi32>, tensor<2x4x5xi32>) -> tensor<2x3x5xi32> {
  }
  return %y : tensor<2x3x5xi32>
}

// Gemm of float64 with transA (A read at (k, m)), alpha 0.5 and a [4] C:
// the contraction over K, then 0.5 * AB + C (beta 1: no multiply).
// CHECK-LABEL: func.func @gemm_alpha_c
// CHECK: indexing_maps = [#[[AT]], #[[BK]], #[[Y]]], iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f64
// CHECK: %[[S:.*]] = arith.mulf %[[ALPHA]], %in : f64
// CHECK-NEXT: arith.addf %[[S]], %in_0 : f64
func.func @gemm_alpha_c(%a: tensor<3x2xf64>, %b: tensor<3x4xf64>, %c: tensor<4xf64>) -> tensor<2x4xf64> {
  %y = graph.host "Gemm"(%a, %b, %c) attributes {params = {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], alpha = 5.000000e-01 : f32, beta = 1.000000e+00 : f32}} : (tensor<3x2xf64>, tensor<3x4xf64>, tensor<4xf64>) -> tensor<2x4xf64> {
  }
  return %y : tensor<2x4xf64>
}

// MatMulInteger of uint8 A and int8 B with a per-column B zero point:
// (a, zero-extended) * (b - b_zp, sign-extended), summed in int32.
// CHECK-LABEL: func.func @matmul_integer
// CHECK: indexing_maps = [#{{.*}}, #[[BK]], #[[ROW]], #[[Y]]]
// CHECK: %[[A:.*]] = arith.extui %in : i8 to i32
// CHECK: %[[B:.*]] = arith.extsi %in_0 : i8 to i32
// CHECK: %[[Z:.*]] = arith.extsi %in_1 : i8 to i32
// CHECK: %[[BZ:.*]] = arith.subi %[[B]], %[[Z]] : i32
// CHECK: %[[P:.*]] = arith.muli %[[A]], %[[BZ]] : i32
// CHECK: arith.addi %out, %[[P]] : i32
func.func @matmul_integer(%a: tensor<2x3xi8>, %b: tensor<3x4xi8>, %bz: tensor<4xi8>) -> tensor<2x4xi32> {
  %y = graph.host "MatMulInteger"(%a, %b, %bz) attributes {params = {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], has_a_zero_point = false, has_b_zero_point = true, unsigned_a = true, unsigned_b = false}} : (tensor<2x3xi8>, tensor<3x4xi8>, tensor<4xi8>) -> tensor<2x4xi32> {
  }
  return %y : tensor<2x4xi32>
}

// FusedMatMul (ORT's MatMulScaleFusion) of float32 with alpha 0.125, M = 1
// (a 1-D A): alpha excludes MLAS's M1 kernel, so the general kernel's FMA
// chain over K = 5, its sum multiplied by alpha once.
// CHECK-LABEL: func.func @fused_matmul_alpha
// CHECK: linalg.generic
// CHECK: math.fma %in, %in_{{.*}}, %out : f32
// CHECK: linalg.map
// CHECK: %[[ALPHA:.*]] = arith.constant 1.250000e-01 : f32
// CHECK: arith.mulf %in, %[[ALPHA]] : f32
func.func @fused_matmul_alpha(%a: tensor<5xf32>, %b: tensor<5x3xf32>) -> tensor<3xf32> {
  %y = graph.host "FusedMatMul"(%a, %b) attributes {params = {body = "MatMul", indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], alpha = 1.250000e-01 : f32}} : (tensor<5xf32>, tensor<5x3xf32>) -> tensor<3xf32> {
  }
  return %y : tensor<3xf32>
}
