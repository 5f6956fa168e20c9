// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The contraction family's bodies (lib/Conversion/OnnxToLinalg/Linear.cpp).

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
