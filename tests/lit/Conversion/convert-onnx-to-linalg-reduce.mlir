// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The reduction family's bodies (lib/Conversion/OnnxToLinalg/Reduce.cpp):
// reductions over the params' axes, ORT's accumulation types and orders.

// ReduceLogSumExp of float16 along axis 1, keepdims: accumulated in float32
// (max, then sum of exp(x - max)), log(sum) + max with an all -inf row
// giving -inf, truncated to float16 and reshaped to [2, 1].
// CHECK-LABEL: func.func @log_sum_exp
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: arith.extf %in : f16 to f32
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: %[[INF:.*]] = arith.cmpf oeq, %[[MAX:.*]], %{{.*}} : f32
// CHECK: %[[LOG:.*]] = math.log
// CHECK: %[[V:.*]] = arith.addf %[[LOG]], %[[MAX]] : f32
// CHECK: arith.select %[[INF]], %[[MAX]], %[[V]] : f32
// CHECK: arith.truncf %in : f32 to f16
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 1]
func.func @log_sum_exp(%x: tensor<2x3xf16>) -> tensor<2x1xf16> {
  %y = graph.host "ReduceLogSumExp"(%x) attributes {params = {axes = array<i64: 1>, unsigned = false}} : (tensor<2x3xf16>) -> tensor<2x1xf16> {
  }
  return %y : tensor<2x1xf16>
}

// ReduceMean of uint32 over 4 rows: an integer sum divided unsigned by 4.
// CHECK-LABEL: func.func @mean_u32
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: arith.addi %out, %in : i32
// CHECK: %[[N:.*]] = arith.constant 4 : i32
// CHECK: arith.divui %in, %[[N]] : i32
func.func @mean_u32(%x: tensor<4x6xi32>) -> tensor<6xi32> {
  %y = graph.host "ReduceMean"(%x) attributes {params = {axes = array<i64: 0>, unsigned = true}} : (tensor<4x6xi32>) -> tensor<6xi32> {
  }
  return %y : tensor<6xi32>
}

// ArgMax with select_last_index: a tie replaces the running best (uge), a
// NaN best stays; the index starts at -1 so the first element counts.
// CHECK-LABEL: func.func @argmax_last
// CHECK: arith.constant -1 : i64
// CHECK: %[[FIRST:.*]] = arith.cmpi slt, %out_0
// CHECK: %[[NUM:.*]] = arith.cmpf oeq, %out, %out : f32
// CHECK: %[[GE:.*]] = arith.cmpf uge, %in, %out : f32
// CHECK: %[[BEATS:.*]] = arith.andi %[[NUM]], %[[GE]] : i1
// CHECK: arith.ori %[[FIRST]], %[[BEATS]] : i1
// CHECK: graph.yield %{{.*}}#1 : tensor<3xi64>
func.func @argmax_last(%x: tensor<3x5xf32>) -> tensor<3xi64> {
  %y = graph.host "ArgMax"(%x) attributes {params = {axis = 1 : i64, select_last_index = true, unsigned = false}} : (tensor<3x5xf32>) -> tensor<3xi64> {
  }
  return %y : tensor<3xi64>
}

// Softmax before opset 13 coerces to 2-D at axis 1: dims 1 and 2 are one
// row of 12. float32: MLAS's order (OrtMath.cpp): the rows collapsed, the
// 12 exponentials padded to one chunk of 16 lanes, the lane tree, then
// (1 / sum) * e, expanded back.
// CHECK-LABEL: func.func @softmax_coerced
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
// CHECK: arith.maximumf
// CHECK: math.fma
// CHECK: tensor.pad %{{.*}} low[0, 0] high[0, 4]
// CHECK: output_shape [2, 1, 16]
// CHECK: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %in_{{.*}} : f32
// CHECK: arith.mulf %[[INV]], %in : f32
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [2, 3, 4]
func.func @softmax_coerced(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = graph.host "Softmax"(%x) attributes {params = {axes = array<i64: 1, 2>}} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  }
  return %y : tensor<2x3x4xf32>
}

// float64 Softmax keeps the plain order (MLAS is float32 only): exp(x -
// max) * (1 / sum) over one axis.
// CHECK-LABEL: func.func @softmax_f64
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: %[[D:.*]] = arith.subf %in, %in_1 : f64
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %in_2 : f64
// CHECK: %[[E:.*]] = math.exp %[[D]] : f64
// CHECK: arith.mulf %[[E]], %[[INV]] : f64
func.func @softmax_f64(%x: tensor<2x5xf64>) -> tensor<2x5xf64> {
  %y = graph.host "Softmax"(%x) attributes {params = {axes = array<i64: 1>}} : (tensor<2x5xf64>) -> tensor<2x5xf64> {
  }
  return %y : tensor<2x5xf64>
}
