// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The scan family's bodies (lib/Conversion/OnnxToLinalg/Scan.cpp): loops
// over one axis with tensor iter_args.

// CumSum along axis 1 (5 positions), reverse and exclusive: position
// 4 - i, the running sum stored before the slice is added.
// CHECK-LABEL: func.func @cumsum
// CHECK: %[[N:.*]] = arith.constant 5 : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[OUT:.*]] = %{{.*}}) -> (tensor<2xi32>, tensor<2x5xi32>)
// CHECK: %[[LAST:.*]] = arith.constant 4 : index
// CHECK: %[[POS:.*]] = arith.subi %[[LAST]], %[[I]] : index
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %{{.*}}[0, %[[POS]]] [2, 1] [1, 1]
// CHECK: %[[STORED:.*]] = tensor.insert_slice %[[ACC]] into %[[OUT]][0, %[[POS]]] [2, 1] [1, 1]
// CHECK: %[[SUM:.*]] = linalg.add ins(%[[ACC]], %[[SLICE]] : {{.*}}) outs(%[[ACC]] : tensor<2xi32>)
// CHECK: scf.yield %[[SUM]], %[[STORED]]
func.func @cumsum(%x: tensor<2x5xi32>) -> tensor<2x5xi32> {
  %y = graph.host "CumSum"(%x) attributes {params = {axis = 1 : i64, exclusive = true, reverse = true}} : (tensor<2x5xi32>) -> tensor<2x5xi32> {
  }
  return %y : tensor<2x5xi32>
}

// TopK's indices (output 1) of the 2 smallest along axis 0: 2 selection
// steps, each a reduction over the axis that keeps the first element in
// ONNX's order after the previous step's choice; the indices (#1) are
// yielded.
// CHECK-LABEL: func.func @topk_indices
// CHECK: %[[K:.*]] = arith.constant 2 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[K]]
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: linalg.index 0 : index
// CHECK: arith.cmpf ogt, %in, %in_2 : f32
// CHECK: arith.cmpf ogt, %out, %in : f32
// CHECK: graph.yield %{{.*}}#1 : tensor<2x6xi64>
func.func @topk_indices(%x: tensor<3x6xf32>) -> tensor<2x6xi64> {
  %y = graph.host "TopK"(%x) attributes {params = {axis = 0 : i64, k = 2 : i64, largest = false, unsigned = false, output = 1 : i64}} : (tensor<3x6xf32>) -> tensor<2x6xi64> {
  }
  return %y : tensor<2x6xi64>
}
