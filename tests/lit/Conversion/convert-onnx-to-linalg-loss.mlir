// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The loss family's bodies (lib/Conversion/OnnxToLinalg/Loss.cpp).

// NegativeLogLikelihoodLoss, mean, ignore_index 1: -x[n, t[n]] where
// t[n] != 1 (the class clamped into [0, 2]), summed, divided by the count
// of targets that are not ignored (no weight: 1 each).
// CHECK-LABEL: func.func @nll_mean
// CHECK: %[[IGN:.*]] = arith.constant 1 : i64
// CHECK: %[[VALID:.*]] = arith.cmpi ne, %in, %[[IGN]] : i64
// CHECK: %[[LAST:.*]] = arith.constant 2 : index
// CHECK: %[[CLS:.*]] = arith.minsi %{{.*}}, %[[LAST]] : index
// CHECK: %[[X:.*]] = tensor.extract %{{.*}}[%{{.*}}, %[[CLS]]] : tensor<2x3xf32>
// CHECK: %[[NEG:.*]] = arith.negf %[[X]] : f32
// CHECK: arith.select %[[VALID]], %[[NEG]], %{{.*}} : f32
// CHECK: iterator_types = ["reduction"]
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: arith.select %{{.*}}, %[[ONE]], %{{.*}} : f32
// CHECK: iterator_types = ["reduction"]
// CHECK: iterator_types = []
// CHECK: arith.divf %in, %in_1 : f32
// CHECK: graph.yield %{{.*}} : tensor<f32>
func.func @nll_mean(%x: tensor<2x3xf32>, %t: tensor<2xi64>) -> tensor<f32> {
  %y = graph.host "NegativeLogLikelihoodLoss"(%x, %t) attributes {params = {ignore_index = 1 : i64, output = 0 : i64}} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32> {
  }
  return %y : tensor<f32>
}

// SoftmaxCrossEntropyLoss's log_prob (output 1) of float16 scores: computed
// in float32 (x - max - log(sum(exp(x - max))) over the classes), truncated
// back.
// CHECK-LABEL: func.func @sce_log_prob
// CHECK: arith.extf %in : f16 to f32
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: %[[SH:.*]] = arith.subf %in, %in_{{.*}} : f32
// CHECK: %[[LOG:.*]] = math.log %in_{{.*}} : f32
// CHECK: arith.subf %[[SH]], %[[LOG]] : f32
// CHECK: arith.truncf %in : f32 to f16
func.func @sce_log_prob(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %y = graph.host "SoftmaxCrossEntropyLoss"(%x) attributes {params = {reduction = "none", output = 1 : i64}} : (tensor<2x3xf16>) -> tensor<2x3xf16> {
  }
  return %y : tensor<2x3xf16>
}
