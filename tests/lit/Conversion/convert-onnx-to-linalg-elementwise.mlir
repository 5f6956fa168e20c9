// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The elementwise family's bodies (lib/Conversion/OnnxToLinalg/Elementwise.cpp):
// one linalg.generic with numpy broadcasting maps; the node's attributes and
// the operands' signedness come in params.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[B0:.*]] = affine_map<(d0) -> (0)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>

// Gelu, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), with
// sqrt(2/pi) = 0.79788456... rounded to float.
// CHECK-LABEL: func.func @gelu
// CHECK: %[[X2:.*]] = arith.mulf %in, %in : f32
// CHECK: %[[X3:.*]] = arith.mulf %in, %[[X2]] : f32
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: arith.constant 0.797884583 : f32
// CHECK: math.tanh
// CHECK: arith.constant 5.000000e-01 : f32
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.host "Gelu"(%x) attributes {params = {approximate = "tanh", unsigned = false, unsigned_input1 = false, unsigned_output = false}} : (tensor<4xf32>) -> tensor<4xf32> {
  }
  return %y : tensor<4xf32>
}

// BitShift RIGHT of unsigned bytes: a logical shift; the [1] shift amount
// broadcast.
// CHECK-LABEL: func.func @shift
// CHECK: indexing_maps = [#[[ID]], #[[B0]], #[[ID]]]
// CHECK: arith.shrui %in, %in_0 : i8
func.func @shift(%x: tensor<4xi8>, %s: tensor<1xi8>) -> tensor<4xi8> {
  %y = graph.host "BitShift"(%x, %s) attributes {params = {direction = "RIGHT", unsigned = true, unsigned_input1 = true, unsigned_output = true}} : (tensor<4xi8>, tensor<1xi8>) -> tensor<4xi8> {
  }
  return %y : tensor<4xi8>
}

// Cast to uint16 (to = 4): float -> unsigned truncates toward zero.
// CHECK-LABEL: func.func @cast
// CHECK: arith.fptoui %in : f32 to i16
func.func @cast(%x: tensor<2x3xf32>) -> tensor<2x3xi16> {
  %y = graph.host "Cast"(%x) attributes {params = {to = 4 : i64, unsigned = false, unsigned_input1 = false, unsigned_output = true}} : (tensor<2x3xf32>) -> tensor<2x3xi16> {
  }
  return %y : tensor<2x3xi16>
}

// Where with a [2, 1] condition and a [3] operand broadcast to [2, 3].
// CHECK-LABEL: func.func @where
// CHECK: indexing_maps = [#[[COL]], #[[ROW]], #[[ID2]], #[[ID2]]]
// CHECK: arith.select %in, %in_0, %in_1 : i32
func.func @where(%c: tensor<2x1xi1>, %a: tensor<3xi32>, %b: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %y = graph.host "Where"(%c, %a, %b) attributes {params = {unsigned = false, unsigned_input1 = false, unsigned_output = false}} : (tensor<2x1xi1>, tensor<3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32> {
  }
  return %y : tensor<2x3xi32>
}

// Integer Mod (fmod = 0) takes the divisor's sign: r + d where r != 0 and
// the signs of r and d differ.
// CHECK-LABEL: func.func @mod
// CHECK: %[[R:.*]] = arith.remsi %in, %in_0 : i32
// CHECK: %[[RN:.*]] = arith.cmpi slt, %[[R]]
// CHECK: %[[DN:.*]] = arith.cmpi slt, %in_0
// CHECK: %[[DIFF:.*]] = arith.xori %[[RN]], %[[DN]] : i1
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[R]]
// CHECK: %[[FIX:.*]] = arith.andi %[[NZ]], %[[DIFF]] : i1
// CHECK: %[[SUM:.*]] = arith.addi %[[R]], %in_0 : i32
// CHECK: arith.select %[[FIX]], %[[SUM]], %[[R]] : i32
func.func @mod(%x: tensor<4xi32>, %d: tensor<4xi32>) -> tensor<4xi32> {
  %y = graph.host "Mod"(%x, %d) attributes {params = {unsigned = false, unsigned_input1 = false, unsigned_output = false}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32> {
  }
  return %y : tensor<4xi32>
}

// IsInf with detect_negative = 0: +inf only.
// CHECK-LABEL: func.func @isinf
// CHECK: %[[P:.*]] = arith.cmpf oeq, %in, %{{.*}} : f32
// CHECK: %[[NO:.*]] = arith.constant false
// CHECK: arith.ori %[[P]], %[[NO]] : i1
func.func @isinf(%x: tensor<4xf32>) -> tensor<4xi1> {
  %y = graph.host "IsInf"(%x) attributes {params = {detect_negative = 0 : i64, unsigned = false, unsigned_input1 = false, unsigned_output = false}} : (tensor<4xf32>) -> tensor<4xi1> {
  }
  return %y : tensor<4xi1>
}

// LeakyRelu of float16 with alpha 0.25.
// CHECK-LABEL: func.func @leaky
// CHECK: %[[A:.*]] = arith.constant 2.500000e-01 : f16
// CHECK: %[[AX:.*]] = arith.mulf %[[A]], %in : f16
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %in, %{{.*}} : f16
// CHECK: arith.select %[[NEG]], %[[AX]], %in : f16
func.func @leaky(%x: tensor<4xf16>) -> tensor<4xf16> {
  %y = graph.host "LeakyRelu"(%x) attributes {params = {alpha = 2.500000e-01 : f32, unsigned = false, unsigned_input1 = false, unsigned_output = false}} : (tensor<4xf16>) -> tensor<4xf16> {
  }
  return %y : tensor<4xf16>
}

// Clip of uint8 with only a max: one unsigned min against the scalar bound.
// CHECK-LABEL: func.func @clip_u8
// CHECK: indexing_maps = [#[[ID]], #{{.*}}, #[[ID]]]
// CHECK-NOT: arith.max
// CHECK: arith.minui %in, %in_0 : i8
func.func @clip_u8(%x: tensor<4xi8>, %hi: tensor<i8>) -> tensor<4xi8> {
  %y = graph.host "Clip"(%x, %hi) attributes {params = {unsigned = true, has_min = false, has_max = true}} : (tensor<4xi8>, tensor<i8>) -> tensor<4xi8> {
  }
  return %y : tensor<4xi8>
}
