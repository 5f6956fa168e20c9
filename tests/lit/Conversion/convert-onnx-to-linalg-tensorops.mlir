// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The tensor-op family's bodies (lib/Conversion/OnnxToLinalg/TensorOps.cpp).

// Tile by [2, 1]: the importer's map reads row i mod 2.
// CHECK-DAG: #[[TILE:.*]] = affine_map<(d0, d1) -> (d0 mod 2, d1)>
// CHECK-LABEL: func.func @tile
// CHECK: linalg.generic {indexing_maps = [#[[TILE]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}} : tensor<2x3xi64>) outs(%{{.*}} : tensor<4x3xi64>)
// CHECK: linalg.yield %in : i64
func.func @tile(%x: tensor<2x3xi64>) -> tensor<4x3xi64> {
  %y = graph.host "Tile"(%x) attributes {params = {map = affine_map<(d0, d1) -> (d0 mod 2, d1)>}} : (tensor<2x3xi64>) -> tensor<4x3xi64> {
  }
  return %y : tensor<4x3xi64>
}

// EyeLike with k = 1 (no operands): 1 where col - row == 1.
// CHECK-LABEL: func.func @eye
// CHECK: %[[R:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[D:.*]] = arith.subi %[[C]], %[[R]] : index
// CHECK: %[[K:.*]] = arith.constant 1 : index
// CHECK: %[[ON:.*]] = arith.cmpi eq, %[[D]], %[[K]] : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: arith.select %[[ON]], %[[ONE]], %[[ZERO]] : i32
func.func @eye(%x: tensor<3x4xi32>) -> tensor<3x4xi32> {
  %y = graph.host "EyeLike"() attributes {params = {k = 1 : i64}} : () -> tensor<3x4xi32> {
  }
  return %y : tensor<3x4xi32>
}

// The third output of an int8 Split of 6 rows into [2, 2, 2].
// CHECK-LABEL: func.func @split
// CHECK: tensor.extract_slice %{{.*}}[4, 0] [2, 2] [1, 1] : tensor<6x2xi8> to tensor<2x2xi8>
func.func @split(%x: tensor<6x2xi8>) -> tensor<2x2xi8> {
  %y = graph.host "Split"(%x) attributes {params = {offsets = array<i64: 4, 0>, strides = array<i64: 1, 1>}} : (tensor<6x2xi8>) -> tensor<2x2xi8> {
  }
  return %y : tensor<2x2xi8>
}

// Concat of int64 (no graph.concat form): each operand inserted at its
// offset along axis 1.
// CHECK-LABEL: func.func @concat_i64
// CHECK: %[[A:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [2, 1] [1, 1] : tensor<2x1xi64> into tensor<2x4xi64>
// CHECK: tensor.insert_slice %{{.*}} into %[[A]][0, 1] [2, 3] [1, 1] : tensor<2x3xi64> into tensor<2x4xi64>
func.func @concat_i64(%a: tensor<2x1xi64>, %b: tensor<2x3xi64>) -> tensor<2x4xi64> {
  %y = graph.host "Concat"(%a, %b) attributes {params = {axis = 1 : i64}} : (tensor<2x1xi64>, tensor<2x3xi64>) -> tensor<2x4xi64> {
  }
  return %y : tensor<2x4xi64>
}

// The importer's copy of a rank-0 graph output (a folded Size): `body`
// selects the Copy builder, the op keeps the node's name; an identity
// linalg.generic over no loops, not linalg.copy.
// CHECK-LABEL: func.func @copy_scalar
// CHECK: graph.host "Size"
// CHECK: %[[E:.*]] = tensor.empty() : tensor<i64>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = []} ins(%{{.*}} : tensor<i64>) outs(%[[E]] : tensor<i64>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT: linalg.yield %[[IN]] : i64
func.func @copy_scalar(%x: tensor<i64>) -> tensor<i64> {
  %y = graph.host "Size"(%x) attributes {params = {body = "Copy"}} : (tensor<i64>) -> tensor<i64> {
  }
  return %y : tensor<i64>
}
