// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The index family's bodies (lib/Conversion/OnnxToLinalg/Index.cpp).

// Gather along axis 0 of a [5, 3] tensor: the output [2, 3] reads
// data[indices[i], j]; a negative index counts from 5 and the result is
// clamped into [0, 4].
// CHECK-LABEL: func.func @gather
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[I:.*]] = arith.index_cast %in : i64 to index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[I]], %[[ZERO:.*]] : index
// CHECK: %[[DIM:.*]] = arith.constant 5 : index
// CHECK: %[[W:.*]] = arith.addi %[[I]], %[[DIM]] : index
// CHECK: %[[S:.*]] = arith.select %[[NEG]], %[[W]], %[[I]] : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[S]], %[[ZERO]] : index
// CHECK: %[[HI:.*]] = arith.constant 4 : index
// CHECK: %[[AT:.*]] = arith.minsi %[[LO]], %[[HI]] : index
// CHECK: tensor.extract %{{.*}}[%[[AT]], %[[J]]] : tensor<5x3xf32>
func.func @gather(%d: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %y = graph.host "Gather"(%d, %i) attributes {params = {axis = 0 : i64}} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32> {
  }
  return %y : tensor<2x3xf32>
}

// ScatterElements with reduction add: one loop over the 3 updates, each
// added to the element its index names, in order.
// CHECK-LABEL: func.func @scatter_add
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<4xi32>)
// CHECK: %[[AT:.*]] = arith.minsi
// CHECK: %[[U:.*]] = tensor.extract %{{.*}}[%[[K]]] : tensor<3xi32>
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][%[[AT]]] : tensor<4xi32>
// CHECK: %[[NEW:.*]] = arith.addi %[[OLD]], %[[U]] : i32
// CHECK: tensor.insert %[[NEW]] into %[[ACC]][%[[AT]]]
func.func @scatter_add(%d: tensor<4xi32>, %i: tensor<3xi32>, %u: tensor<3xi32>) -> tensor<4xi32> {
  %y = graph.host "ScatterElements"(%d, %i, %u) attributes {params = {axis = 0 : i64, reduction = "add"}} : (tensor<4xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<4xi32> {
  }
  return %y : tensor<4xi32>
}

// Trilu lower with a runtime k (no `k` param, a second operand): k is read
// inside the generic at position 0; kept where col - row <= k.
// CHECK-LABEL: func.func @trilu_runtime_k
// CHECK: indexing_maps = [#{{.*}}, #[[AT0:.*]], #{{.*}}]
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[COL:.*]] = linalg.index 1 : index
// CHECK: %[[KI:.*]] = arith.index_cast %in_0 : i64 to index
// CHECK: %[[D:.*]] = arith.subi %[[COL]], %[[ROW]] : index
// CHECK: arith.cmpi sle, %[[D]], %[[KI]] : index
func.func @trilu_runtime_k(%x: tensor<3x4xf32>, %k: tensor<i64>) -> tensor<3x4xf32> {
  %y = graph.host "Trilu"(%x, %k) attributes {params = {upper = false}} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32> {
  }
  return %y : tensor<3x4xf32>
}
