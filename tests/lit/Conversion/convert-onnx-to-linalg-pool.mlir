// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The pooling family's bodies (lib/Conversion/OnnxToLinalg/Pool.cpp).

// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[SPATIAL:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>

// MaxPool 2x2 stride 2 over 5x5 with ceil_mode: the resolved window has
// one end pad (ceil_extra 1), so the input is padded with -inf to 6x6 and
// the named max pooling fills from -inf.
// CHECK-LABEL: func.func @maxpool_ceil
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NEG]] : f32
// CHECK: %[[INIT:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[INIT]] : f32)
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x1x6x6xf32>, tensor<2x2xf32>)
func.func @maxpool_ceil(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %y = graph.host "MaxPool"(%x) attributes {params = {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad_begin = array<i64: 0, 0>, pad_end = array<i64: 1, 1>, ceil_extra = array<i64: 1, 1>, out = array<i64: 3, 3>, unsigned = false, output = 0 : i64}} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  }
  return %y : tensor<1x1x3x3xf32>
}

// AveragePool 3x3, pads 1, count_include_pad 0: a zero-padded sum, divided
// by the taps inside the input, per dim [2, 3, 2], so the corners count 4,
// the edges 6 and the centre 9.
// CHECK-LABEL: func.func @averagepool_pads
// CHECK: linalg.pooling_nchw_sum {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x5x5xf32>, tensor<3x3xf32>)
// CHECK: arith.constant dense<{{\[\[}}4.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID4]], #[[SPATIAL]], #[[ID4]]]
// CHECK: arith.divf %in, %in_2 : f32
func.func @averagepool_pads(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %y = graph.host "AveragePool"(%x) attributes {params = {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad_begin = array<i64: 1, 1>, pad_end = array<i64: 1, 1>, ceil_extra = array<i64: 0, 0>, out = array<i64: 3, 3>, unsigned = false, count_include_pad = false, output = 0 : i64}} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  }
  return %y : tensor<1x1x3x3xf32>
}

// MaxPool's Indices (output 1) of uint8 with storage_order 1: unsigned
// compares from 0 (uint8's lowest), the flat index (n * 2 + c) * 16 +
// h * 1 + w * 4 (column-major within the 4x4 image), h = o0 * 2 + k0 and
// w = o1 * 2 + k1.
// CHECK-LABEL: func.func @maxpool_indices_u8
// CHECK: %[[PLANE:.*]] = arith.constant 16 : i64
// CHECK: arith.muli %{{.*}}, %[[PLANE]] : i64
// CHECK: %[[HSTEP:.*]] = arith.constant 1 : i64
// CHECK: %[[WSTEP:.*]] = arith.constant 4 : i64
// CHECK: %[[CMP:.*]] = arith.cmpi ugt, %in, %out : i8
// CHECK: arith.select %[[CMP]], %in, %out : i8
// CHECK: arith.select %[[CMP]], %{{.*}}, %out_2 : i64
// CHECK: graph.yield %{{.*}}#1 : tensor<1x2x2x2xi64>
func.func @maxpool_indices_u8(%x: tensor<1x2x4x4xi8>) -> tensor<1x2x2x2xi64> {
  %y = graph.host "MaxPool"(%x) attributes {params = {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad_begin = array<i64: 0, 0>, pad_end = array<i64: 0, 0>, ceil_extra = array<i64: 0, 0>, out = array<i64: 2, 2>, unsigned = true, output = 1 : i64, column_major = true}} : (tensor<1x2x4x4xi8>) -> tensor<1x2x2x2xi64> {
  }
  return %y : tensor<1x2x2x2xi64>
}

// GlobalLpPool with p = 3: |x|^3 by two multiplications, summed over the
// whole spatial extent, then the cube root as powf(s, 1/3).
// CHECK-LABEL: func.func @global_lp_pool
// CHECK: %[[A:.*]] = math.absf %in : f32
// CHECK: %[[A2:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK: %[[A3:.*]] = arith.mulf %[[A2]], %[[A]] : f32
// CHECK: arith.addf %out, %[[A3]] : f32
// CHECK: %[[THIRD:.*]] = arith.constant 0.333333343 : f32
// CHECK: math.powf %in, %[[THIRD]] : f32
func.func @global_lp_pool(%x: tensor<1x2x3xf32>) -> tensor<1x2x1xf32> {
  %y = graph.host "GlobalLpPool"(%x) attributes {params = {unsigned = false, p = 3 : i64}} : (tensor<1x2x3xf32>) -> tensor<1x2x1xf32> {
  }
  return %y : tensor<1x2x1xf32>
}

// MaxUnpool into an output_shape one column wider than the 4x4 the
// pooling infers: 4 values scattered into 16 zeros, indices >= 16 skipped,
// then padded at the end by `grow`.
// CHECK-LABEL: func.func @max_unpool
// CHECK: %[[TOTAL:.*]] = arith.constant 16 : i64
// CHECK: scf.for
// CHECK: arith.cmpi ult, %{{.*}}, %[[TOTAL]] : i64
// CHECK: tensor.insert
// CHECK: tensor.expand_shape %{{.*}} output_shape [1, 1, 4, 4]
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 0, 1]
func.func @max_unpool(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) -> tensor<1x1x4x5xf32> {
  %y = graph.host "MaxUnpool"(%x, %i) attributes {params = {grow = array<i64: 0, 0, 0, 1>}} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x5xf32> {
  }
  return %y : tensor<1x1x4x5xf32>
}
