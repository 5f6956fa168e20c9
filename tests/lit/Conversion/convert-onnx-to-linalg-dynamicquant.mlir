// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The run-time quantization family's bodies
// (lib/Conversion/OnnxToLinalg/DynamicQuant.cpp), ORT's arithmetic.

// DynamicQuantizeLinear's y_scale (output 1): min(0, min x) and
// max(0, max x) as rank-0 reductions from 0, scale = (max - min) / 255.
// CHECK-LABEL: func.func @dq_scale
// CHECK: iterator_types = ["reduction", "reduction"]
// CHECK: arith.minimumf %out, %in : f32
// CHECK: iterator_types = ["reduction", "reduction"]
// CHECK: arith.maximumf %out, %in : f32
// CHECK: %[[D255:.*]] = arith.constant 2.550000e+02 : f32
// CHECK: %[[RANGE:.*]] = arith.subf %in_1, %in : f32
// CHECK: %[[SCALE:.*]] = arith.divf %[[RANGE]], %[[D255]] : f32
// CHECK: linalg.yield %[[SCALE]] : f32
func.func @dq_scale(%x: tensor<2x4xf32>) -> tensor<f32> {
  %y = graph.host "DynamicQuantizeLinear"(%x) attributes {params = {output = 1 : i64}} : (tensor<2x4xf32>) -> tensor<f32> {
  }
  return %y : tensor<f32>
}

// DequantizeLinear of uint8 data with a run-time scale and zero point:
// (x - zp) * scale, both read unsigned.
// CHECK-LABEL: func.func @dequant_u8
// CHECK: %[[X:.*]] = arith.uitofp %in : i8 to f32
// CHECK: %[[Z:.*]] = arith.uitofp %in_1 : i8 to f32
// CHECK: %[[D:.*]] = arith.subf %[[X]], %[[Z]] : f32
// CHECK: arith.mulf %[[D]], %in_0 : f32
func.func @dequant_u8(%x: tensor<4xi8>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<4xf32> {
  %y = graph.host "DequantizeLinear"(%x, %s, %z) attributes {params = {unsigned = true}} : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32> {
  }
  return %y : tensor<4xf32>
}
