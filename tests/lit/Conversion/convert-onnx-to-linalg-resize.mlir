// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The body of Resize/Upsample (lib/Conversion/OnnxToLinalg/Resize.cpp):
// ORT's taps computed from the params, gathered by the IR.

// Nearest, half_pixel, scale 0.5 over 4 elements: output o reads
// (o + 0.5) / 0.5 - 0.5 = 2o + 0.5, rounded half down: 0 and 2.
// CHECK-LABEL: func.func @nearest_down
// CHECK: %[[IDX:.*]] = arith.constant dense<[0, 2]> : tensor<2xi64>
// CHECK: linalg.generic {{.*}} ins(%[[IDX]] : tensor<2xi64>)
// CHECK: %[[I:.*]] = arith.index_cast %in : i64 to index
// CHECK: tensor.extract %arg1[%[[I]]] : tensor<4xf32>
func.func @nearest_down(%x: tensor<4xf32>) -> tensor<2xf32> {
  %y = graph.host "Resize"(%x) attributes {params = {mode = "nearest", coordinate_transformation_mode = "half_pixel", nearest_mode = "round_prefer_floor", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, antialias = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32: 5.000000e-01>, from_scales = true, roi = array<f32: 0.000000e+00, 1.000000e+00>}} : (tensor<4xf32>) -> tensor<2xf32> {
  }
  return %y : tensor<2xf32>
}

// Linear, asymmetric, axis 1 doubled (axis 0 has scale 1: no taps): o
// reads o / 2 clamped to [0, 1], so taps (0, 1) with weights (1, 0) and
// (0.5, 0.5), then (1, 1) with (0.5, 0.5) twice; float16 data accumulates
// in float32 and is truncated back.
// CHECK-LABEL: func.func @linear_up
// CHECK: arith.constant dense<{{\[\[}}0, 1], [0, 1], [1, 1], [1, 1]]> : tensor<4x2xi64>
// CHECK: arith.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00], [5.000000e-01, 5.000000e-01], [5.000000e-01, 5.000000e-01], [5.000000e-01, 5.000000e-01]]> : tensor<4x2xf32>
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: %[[V:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[P:.*]] = arith.mulf %in_2, %[[V]] : f32
// CHECK: arith.addf %out, %[[P]] : f32
// CHECK: arith.truncf %in : f32 to f16
func.func @linear_up(%x: tensor<3x2xf16>) -> tensor<3x4xf16> {
  %y = graph.host "Resize"(%x) attributes {params = {mode = "linear", coordinate_transformation_mode = "asymmetric", nearest_mode = "round_prefer_floor", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, antialias = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32: 1.0, 2.0>, from_scales = true, roi = array<f32: 0.0, 0.0, 1.0, 1.0>}} : (tensor<3x2xf16>) -> tensor<3x4xf16> {
  }
  return %y : tensor<3x4xf16>
}

// tf_crop_and_resize with roi [0.5, 1.5] over 4 elements to 2: o reads
// 0.5 * 3 + o * 3 = 1.5 (-> 1) and 4.5, outside [0, 3], so the second
// output is the extrapolation value.
// CHECK-LABEL: func.func @crop_extrapolate
// CHECK: arith.constant dense<[1, 3]> : tensor<2xi64>
// CHECK: %[[OUT:.*]] = arith.constant dense<[0, 1]> : tensor<2xi8>
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %in_1, %{{.*}} : i8
// CHECK: %[[E:.*]] = arith.constant -2.500000e+00 : f32
// CHECK: arith.select %[[ANY]], %[[E]], %in : f32
func.func @crop_extrapolate(%x: tensor<4xf32>) -> tensor<2xf32> {
  %y = graph.host "Resize"(%x) attributes {params = {mode = "nearest", coordinate_transformation_mode = "tf_crop_and_resize", nearest_mode = "round_prefer_floor", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, antialias = false, extrapolation_value = -2.500000e+00 : f32, scales = array<f32: 5.000000e-01>, from_scales = true, roi = array<f32: 0.5, 1.5>}} : (tensor<4xf32>) -> tensor<2xf32> {
  }
  return %y : tensor<2xf32>
}

// No axis changes size: a copy, whatever the modes (ORT copies).
// CHECK-LABEL: func.func @same_shape
// CHECK: linalg.copy ins(%arg1 : tensor<2x3xi32>)
// CHECK-NEXT: graph.yield
func.func @same_shape(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %y = graph.host "Upsample"(%x) attributes {params = {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "simple", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, antialias = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32: 1.0, 1.0>, from_scales = true, roi = array<f32: 0.0, 0.0, 1.0, 1.0>}} : (tensor<2x3xi32>) -> tensor<2x3xi32> {
  }
  return %y : tensor<2x3xi32>
}
