// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The convolution family's bodies (lib/Conversion/OnnxToLinalg/Conv.cpp),
// from the window the importer resolves into params.

// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[GX:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1 * 2 + d6, d3 + d7, d4 + d8, d5 + d9)>
// CHECK-DAG: #[[GW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1 + d2, d6, d7, d8, d9)>
// CHECK-DAG: #[[GY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1, d2, d3) -> ()>
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0 + d2, d1, -d3 + 2)>

// Conv 3x3, stride 2, pads 1 on every side, with a bias: the input padded
// with zeros by pad_begin/pad_end (5 -> 7), the named NCHW convolution at
// stride 2 into a zero fill, then the bias added along dim 1.
// CHECK-LABEL: func.func @conv_pad_stride
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[Z]] : f32
// CHECK-NEXT: } : tensor<1x2x5x5xf32> to tensor<1x2x7x7xf32>
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x2x7x7xf32>, tensor<3x2x3x3xf32>) outs(%{{.*}} : tensor<1x3x3x3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID4]], #[[CH]], #[[ID4]]]
// CHECK: arith.addf %in, %in_1 : f32
func.func @conv_pad_stride(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x3x3xf32> {
  %y = graph.host "Conv"(%x, %w, %b) attributes {params = {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad_begin = array<i64: 1, 1>, pad_end = array<i64: 1, 1>, ceil_extra = array<i64: 0, 0>, out = array<i64: 3, 3>, group = 1 : i64}} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32> {
  }
  return %y : tensor<1x3x3x3xf32>
}

// Depthwise (group = channels = filters) 1-D with dilation 2 and no
// padding: no tensor.pad, the [4, 1, 3] weight collapsed to [4, 3].
// CHECK-LABEL: func.func @depthwise_1d
// CHECK-NOT: tensor.pad
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<4x1x3xf32> into tensor<4x3xf32>
// CHECK: linalg.depthwise_conv_1d_ncw_cw {dilations = dense<2> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
func.func @depthwise_1d(%x: tensor<1x4x8xf32>, %w: tensor<4x1x3xf32>) -> tensor<1x4x4xf32> {
  %y = graph.host "Conv"(%x, %w) attributes {params = {kernel = array<i64: 3>, strides = array<i64: 1>, dilations = array<i64: 2>, pad_begin = array<i64: 0>, pad_end = array<i64: 0>, ceil_extra = array<i64: 0>, out = array<i64: 4>, group = 4 : i64}} : (tensor<1x4x8xf32>, tensor<4x1x3xf32>) -> tensor<1x4x4xf32> {
  }
  return %y : tensor<1x4x4xf32>
}

// A grouped 3-D convolution (no named op): one linalg.generic over
// (n, g, f, o0..o2, c, k0..k2), input channel g * 2 + c (2 channels per
// group), filter g * 1 + f (1 filter per group), into [N, G, F/G, ...]
// collapsed to [N, F, ...].
// CHECK-LABEL: func.func @grouped_3d
// CHECK: linalg.generic {indexing_maps = [#[[GX]], #[[GW]], #[[GY]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
// CHECK: %[[P:.*]] = arith.mulf %in, %in_1 : f64
// CHECK: arith.addf %out, %[[P]] : f64
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4], [5]] : tensor<1x2x1x2x2x2xf64> into tensor<1x2x2x2x2xf64>
func.func @grouped_3d(%x: tensor<1x4x3x3x3xf64>, %w: tensor<2x2x2x2x2xf64>) -> tensor<1x2x2x2x2xf64> {
  %y = graph.host "Conv"(%x, %w) attributes {params = {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pad_begin = array<i64: 0, 0, 0>, pad_end = array<i64: 0, 0, 0>, ceil_extra = array<i64: 0, 0, 0>, out = array<i64: 2, 2, 2>, group = 2 : i64}} : (tensor<1x4x3x3x3xf64>, tensor<2x2x2x2x2xf64>) -> tensor<1x2x2x2x2xf64> {
  }
  return %y : tensor<1x2x2x2x2xf64>
}

// ConvInteger of uint8 X with a scalar zero point (operand 2) and int8 W
// without one: W sign-extended, X zero-extended minus its zero-extended
// zero point, then an int32 convolution.
// CHECK-LABEL: func.func @conv_integer
// CHECK: arith.extsi %in : i8 to i32
// CHECK: linalg.generic {indexing_maps = [#[[ID4]], #[[SCALAR]], #[[ID4]]]
// CHECK: %[[X:.*]] = arith.extui %in : i8 to i32
// CHECK: %[[ZP:.*]] = arith.extui %in_1 : i8 to i32
// CHECK: arith.subi %[[X]], %[[ZP]] : i32
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x3x3xi32>, tensor<2x1x2x2xi32>) outs(%{{.*}} : tensor<1x2x2x2xi32>)
func.func @conv_integer(%x: tensor<1x1x3x3xi8>, %w: tensor<2x1x2x2xi8>, %xz: tensor<i8>) -> tensor<1x2x2x2xi32> {
  %y = graph.host "ConvInteger"(%x, %w, %xz) attributes {params = {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad_begin = array<i64: 0, 0>, pad_end = array<i64: 0, 0>, ceil_extra = array<i64: 0, 0>, out = array<i64: 2, 2>, group = 1 : i64, x_zero_point = 2 : i64, w_zero_point = -1 : i64, unsigned_x = true, unsigned_w = false}} : (tensor<1x1x3x3xi8>, tensor<2x1x2x2xi8>, tensor<i8>) -> tensor<1x2x2x2xi32> {
  }
  return %y : tensor<1x2x2x2xi32>
}

// ConvTranspose 1-D, kernel 3, stride 2, pads [1, 0]: x scattered at
// stride 2 after ext - 1 - pad_begin = 1 zero into 1 + (3 - 1) * 2 + 1 +
// (ext - 1 - pad_end = 2) = 8 zeros; the weight flipped (k -> 2 - k) with
// its channel axes swapped; a stride-1 convolution gives 8 - 3 + 1 = 6 =
// out, so nothing is cropped.
// CHECK-LABEL: func.func @conv_transpose_1d
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1] [1, 1, 3] [1, 1, 2] : tensor<1x1x3xf32> into tensor<1x1x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[FLIP]], #[[ID4]]]
// CHECK: linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x1x8xf32>, tensor<2x1x3xf32>) outs(%{{.*}} : tensor<1x2x6xf32>)
// CHECK-NOT: tensor.extract_slice
// CHECK: graph.yield
func.func @conv_transpose_1d(%x: tensor<1x1x3xf32>, %w: tensor<1x2x3xf32>) -> tensor<1x2x6xf32> {
  %y = graph.host "ConvTranspose"(%x, %w) attributes {params = {group = 1 : i64, kernel = array<i64: 3>, strides = array<i64: 2>, dilations = array<i64: 1>, output_padding = array<i64: 0>, pad_begin = array<i64: 1>, pad_end = array<i64: 0>, out = array<i64: 6>}} : (tensor<1x1x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x6xf32> {
  }
  return %y : tensor<1x2x6xf32>
}
