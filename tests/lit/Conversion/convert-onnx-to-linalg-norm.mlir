// RUN: systole-opt %s --convert-onnx-to-linalg --split-input-file | FileCheck %s

// The normalization family's bodies (lib/Conversion/OnnxToLinalg/Norm.cpp)
// built from the params the importer records. The constants are derived
// from the params by hand: n is the number of normalized elements, LRN's
// alpha is divided by size, beta = 0.75 is x^(1/2) * x^(1/4).

// LRN, size 3: the squares padded by 1 channel on each side, summed over a
// window of 3; y = x / (1 + 1e-4 / 3 * sum)^0.75.
// CHECK-LABEL: func.func @lrn
// CHECK: graph.host "LRN"(%{{.*}}) attributes {params = {alpha = 1.000000e-04 : f64, beta = 7.500000e-01 : f64, bias = 1.000000e+00 : f64, size = 3 : i64}} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
// CHECK-NOT: params
// CHECK: arith.mulf %in, %in
// CHECK: tensor.pad %{{.*}} low[0, 1, 0, 0] high[0, 1, 0, 0]
// CHECK: tensor<1x4x2x2xf32> to tensor<1x6x2x2xf32>
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: tensor<1x6x2x2xf32>, tensor<3xf32>
// CHECK: arith.constant 3.33333337E-5 : f32
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: %[[H:.*]] = math.sqrt %[[B:.*]] : f32
// CHECK: %[[Q:.*]] = math.sqrt %[[H]] : f32
// CHECK: %[[P:.*]] = arith.mulf %[[H]], %[[Q]] : f32
// CHECK: arith.divf %in, %[[P]] : f32
// CHECK: graph.yield
func.func @lrn(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %y = graph.host "LRN"(%x) attributes {params = {size = 3 : i64, alpha = 1.0e-4 : f64, beta = 0.75 : f64, bias = 1.0 : f64}} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  }
  return %y : tensor<1x4x2x2xf32>
}

// -----

// LayerNormalization over the last two dims of [2, 3, 4] (n = 12): the sum
// and the sum of squares in one reduction, then (x - s/n) / sqrt(s2/n -
// mean^2 + eps) * scale + bias.
// CHECK-LABEL: func.func @layer_norm
// CHECK: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<2xf32>, tensor<2xf32>)
// CHECK: %[[SQ:.*]] = arith.mulf %in, %in : f32
// CHECK: arith.addf %{{.*}}, %in : f32
// CHECK: arith.addf %{{.*}}, %[[SQ]] : f32
// CHECK: arith.constant 1.200000e+01 : f32
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: graph.yield %{{.*}} : tensor<2x3x4xf32>
func.func @layer_norm(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %y = graph.host "LayerNormalization"(%x, %s, %b) attributes {params = {axis = 1 : i64, epsilon = 9.99999974E-6 : f64, stash_type = f32, output = 0 : i64}} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32> {
  }
  return %y : tensor<2x3x4xf32>
}

// -----

// SimplifiedLayerNormalization (ORT's SimplifiedLayerNormFusion) over the
// last dim of [2, 8]: the same one-pass sums, then x / sqrt(s2/8 + eps) *
// scale: no mean subtracted, no bias.
// CHECK-LABEL: func.func @simplified_layer_norm
// CHECK: %[[SQ:.*]] = arith.mulf %in, %in : f32
// CHECK: arith.divf %in_0, %{{.*}} : f32
// CHECK: %[[MS:.*]] = arith.divf %in_1, %{{.*}} : f32
// CHECK-NOT: arith.subf
// CHECK: %[[E:.*]] = arith.addf %[[MS]], %{{.*}} : f32
// CHECK: %[[D:.*]] = math.sqrt %[[E]] : f32
// CHECK: %[[N:.*]] = arith.divf %in, %[[D]] : f32
// CHECK: arith.mulf %[[N]], %in_{{.*}} : f32
// CHECK-NOT: arith.addf
// CHECK: graph.yield
func.func @simplified_layer_norm(%x: tensor<2x8xf32>, %s: tensor<8xf32>) -> tensor<2x8xf32> {
  %y = graph.host "SimplifiedLayerNormalization"(%x, %s) attributes {params = {body = "LayerNormalization", axis = 1 : i64, epsilon = 9.99999974E-6 : f64, stash_type = f32, output = 0 : i64, simplified}} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32> {
  }
  return %y : tensor<2x8xf32>
}

// -----

// LayerNormalization's InvStdDev (output 2) of a float16 input with float32
// statistics: x extended to f32, 1 / sqrt(...) per row, reshaped to [2, 1].
// CHECK-LABEL: func.func @layer_norm_inv_std
// CHECK: arith.extf %in : f16 to f32
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK: %[[D:.*]] = math.sqrt
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: arith.divf %{{.*}}, %[[D]] : f32
// CHECK: tensor.expand_shape
// CHECK-SAME: into tensor<2x1xf32>
func.func @layer_norm_inv_std(%x: tensor<2x8xf16>) -> tensor<2x1xf32> {
  %y = graph.host "LayerNormalization"(%x) attributes {params = {axis = 1 : i64, epsilon = 1.0e-5 : f64, stash_type = f32, output = 2 : i64}} : (tensor<2x8xf16>) -> tensor<2x1xf32> {
  }
  return %y : tensor<2x1xf32>
}

// -----

// BatchNormalization in inference: y = x * s + (B - mean * s) with
// s = 1 / sqrt(var + eps) * scale, the [C] parameters read along dim 1.
// CHECK: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK: indexing_maps = [#{{.*}}, #[[CH]], #[[CH]], #[[CH]], #[[CH]], #{{.*}}]
// CHECK: %[[E:.*]] = arith.constant 1.000000e-03 : f32
// CHECK: %[[VE:.*]] = arith.addf %{{.*}}, %[[E]] : f32
// CHECK: %[[R:.*]] = math.sqrt %[[VE]] : f32
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[R]] : f32
// CHECK: %[[S:.*]] = arith.mulf %[[INV]], %{{.*}} : f32
func.func @batch_norm(%x: tensor<1x3x2x2xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<1x3x2x2xf32> {
  %y = graph.host "BatchNormalization"(%x, %s, %b, %m, %v) attributes {params = {epsilon = 1.0e-3 : f64, momentum = 0.9 : f64, training = false, output = 0 : i64}} : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32> {
  }
  return %y : tensor<1x3x2x2xf32>
}

// -----

// BatchNormalization's running_mean (output 1): the batch mean over N, H, W
// (n = 2 * 2 * 2 = 8), then input * 0.9 + batch * 0.1.
// CHECK-LABEL: func.func @batch_norm_running_mean
// CHECK: iterator_types = ["reduction", "parallel", "reduction", "reduction"]
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK: arith.constant 1.000000e-01 : f32
// CHECK: arith.constant 0.899999976 : f32
// CHECK: graph.yield %{{.*}} : tensor<3xf32>
func.func @batch_norm_running_mean(%x: tensor<2x3x2x2xf32>, %m: tensor<3xf32>) -> tensor<3xf32> {
  %y = graph.host "BatchNormalization"(%x, %m) attributes {params = {epsilon = 1.0e-5 : f64, momentum = 0.9 : f64, training = true, output = 1 : i64}} : (tensor<2x3x2x2xf32>, tensor<3xf32>) -> tensor<3xf32> {
  }
  return %y : tensor<3xf32>
}

// -----

// GroupNormalization, 2 groups of 2 channels: x viewed as [1, 2, 2, 3], the
// statistics over the last two dims, the per-group scale read at dim 1,
// collapsed back to [1, 4, 3].
// CHECK: #[[G:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @group_norm
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] {{.*}} into tensor<1x2x2x3xf32>
// CHECK: arith.constant 6.000000e+00 : f32
// CHECK: indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #[[G]], #[[G]], #{{.*}}]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] : tensor<1x2x2x3xf32> into tensor<1x4x3xf32>
func.func @group_norm(%x: tensor<1x4x3xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<1x4x3xf32> {
  %y = graph.host "GroupNormalization"(%x, %s, %b) attributes {params = {epsilon = 1.0e-5 : f64, num_groups = 2 : i64, per_channel = false, stash_type = f32}} : (tensor<1x4x3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x3xf32> {
  }
  return %y : tensor<1x4x3xf32>
}

// -----

// GroupNormalization of opset 21: scale and bias per channel, read at
// group * 2 + channel-in-group.
// CHECK: #[[PC:.*]] = affine_map<(d0, d1, d2, d3) -> (d1 * 2 + d2)>
// CHECK-LABEL: func.func @group_norm_per_channel
// CHECK: indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #[[PC]], #[[PC]], #{{.*}}]
func.func @group_norm_per_channel(%x: tensor<1x4x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x4x3xf32> {
  %y = graph.host "GroupNormalization"(%x, %s, %b) attributes {params = {epsilon = 1.0e-5 : f64, num_groups = 2 : i64, per_channel = true, stash_type = f32}} : (tensor<1x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3xf32> {
  }
  return %y : tensor<1x4x3xf32>
}

// -----

// InstanceNormalization: mean and variance over H, W (n = 6), two passes.
// CHECK-LABEL: func.func @instance_norm
// CHECK-COUNT-2: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.constant 6.000000e+00 : f32
func.func @instance_norm(%x: tensor<1x2x2x3xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<1x2x2x3xf32> {
  %y = graph.host "InstanceNormalization"(%x, %s, %b) attributes {params = {epsilon = 1.0e-5 : f64}} : (tensor<1x2x2x3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x3xf32> {
  }
  return %y : tensor<1x2x2x3xf32>
}

// -----

// MeanVarianceNormalization over axes 0 and 2 (n = 2 * 4 = 8):
// (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9).
// CHECK-LABEL: func.func @mvn
// CHECK: iterator_types = ["reduction", "parallel", "reduction"]
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK: %[[EPS:.*]] = arith.constant 9.99999971E-10 : f32
// CHECK: %[[SD:.*]] = math.sqrt
// CHECK: arith.addf %[[SD]], %[[EPS]] : f32
func.func @mvn(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = graph.host "MeanVarianceNormalization"(%x) attributes {params = {axes = array<i64: 0, 2>}} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  }
  return %y : tensor<2x3x4xf32>
}

// -----

// A host op that already has a body is left as it is.
// CHECK-LABEL: func.func @built
// CHECK: graph.host "Relu"
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>):
// CHECK-NEXT: graph.yield %[[A]]
func.func @built(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.host "Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    graph.yield %a : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}
