// RUN: systole-opt %s --convert-onnx-to-linalg --verify-diagnostics --split-input-file

// An op type no family builds a body for.
func.func @unknown(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.host 'NoSuchOp': no body builder for 'NoSuchOp'}}
  %y = graph.host "NoSuchOp"(%x) attributes {params = {}} : (tensor<4xf32>) -> tensor<4xf32> {
  }
  return %y : tensor<4xf32>
}

// -----

// A parameter the body needs is missing.
func.func @missing(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+1 {{graph.host 'LRN': parameter 'size' is missing}}
  %y = graph.host "LRN"(%x) attributes {params = {alpha = 1.0e-4 : f64, beta = 0.75 : f64, bias = 1.0 : f64}} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  }
  return %y : tensor<1x4x2x2xf32>
}

// -----

// A parameter of the wrong kind.
func.func @mistyped(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{graph.host 'LayerNormalization': parameter 'stash_type' is not a type}}
  %y = graph.host "LayerNormalization"(%x, %x) attributes {params = {axis = 1 : i64, epsilon = 1.0e-5 : f64, stash_type = 1 : i64, output = 0 : i64}} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32> {
  }
  return %y : tensor<2x8xf32>
}

// -----

// Parameters that contradict the operands.
func.func @bad_axis(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{graph.host 'LayerNormalization': axis out of range}}
  %y = graph.host "LayerNormalization"(%x, %x) attributes {params = {axis = 2 : i64, epsilon = 1.0e-5 : f64, stash_type = f32, output = 0 : i64}} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32> {
  }
  return %y : tensor<2x8xf32>
}

// -----

func.func @groups(%x: tensor<1x4x3xf32>, %s: tensor<3xf32>) -> tensor<1x4x3xf32> {
  // expected-error @+1 {{graph.host 'GroupNormalization': num_groups must divide the channels}}
  %y = graph.host "GroupNormalization"(%x, %s, %s) attributes {params = {epsilon = 1.0e-5 : f64, num_groups = 3 : i64, per_channel = false, stash_type = f32}} : (tensor<1x4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x4x3xf32> {
  }
  return %y : tensor<1x4x3xf32>
}

// -----

func.func @bn_arity(%x: tensor<1x3x2x2xf32>, %s: tensor<3xf32>) -> tensor<1x3x2x2xf32> {
  // expected-error @+1 {{graph.host 'BatchNormalization': expects X, scale, B, input_mean and input_var}}
  %y = graph.host "BatchNormalization"(%x, %s) attributes {params = {epsilon = 1.0e-3 : f64, momentum = 0.9 : f64, training = false, output = 0 : i64}} : (tensor<1x3x2x2xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32> {
  }
  return %y : tensor<1x3x2x2xf32>
}

// -----

// The result type the op declares is not what the params make.
func.func @result_type(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{graph.host 'LayerNormalization': the body yields tensor<2x1xf32>, the op's result is tensor<2x8xf32>}}
  %y = graph.host "LayerNormalization"(%x) attributes {params = {axis = 1 : i64, epsilon = 1.0e-5 : f64, stash_type = f32, output = 1 : i64}} : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  }
  return %y : tensor<2x8xf32>
}

// -----

// Trilu's k comes either as a param or as a second operand.
func.func @trilu_k_twice(%x: tensor<3x4xf32>, %k: tensor<i64>) -> tensor<3x4xf32> {
  // expected-error @+1 {{graph.host 'Trilu': expects k as a param or as a second operand, not both}}
  %y = graph.host "Trilu"(%x, %k) attributes {params = {upper = true, k = 1 : i64}} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32> {
  }
  return %y : tensor<3x4xf32>
}

// -----

func.func @scatter_reduction(%d: tensor<4xi32>, %i: tensor<3xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{graph.host 'ScatterElements': reduction 'xor' is not one of none, add, mul, max, min}}
  %y = graph.host "ScatterElements"(%d, %i, %i) attributes {params = {axis = 0 : i64, reduction = "xor"}} : (tensor<4xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<4xi32> {
  }
  return %y : tensor<4xi32>
}

// -----

// A window param without one entry per spatial dim.
func.func @short_window(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{graph.host 'MaxPool': parameter 'strides' needs 2 entries, one per spatial dim}}
  %y = graph.host "MaxPool"(%x) attributes {params = {kernel = array<i64: 2, 2>, strides = array<i64: 2>, dilations = array<i64: 1, 1>, pad_begin = array<i64: 0, 0>, pad_end = array<i64: 0, 0>, ceil_extra = array<i64: 0, 0>, out = array<i64: 2, 2>, unsigned = false, output = 0 : i64}} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  }
  return %y : tensor<1x1x2x2xf32>
}

// -----

// Indices are MaxPool's only.
func.func @average_indices(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64> {
  // expected-error @+1 {{graph.host 'AveragePool': only MaxPool has a second output}}
  %y = graph.host "AveragePool"(%x) attributes {params = {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pad_begin = array<i64: 0, 0>, pad_end = array<i64: 0, 0>, ceil_extra = array<i64: 0, 0>, out = array<i64: 2, 2>, unsigned = false, count_include_pad = false, output = 1 : i64}} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64> {
  }
  return %y : tensor<1x1x2x2xi64>
}

// -----

// A ConvInteger zero point that names a missing operand.
func.func @zero_point_index(%x: tensor<1x1x3x3xi8>, %w: tensor<1x1x2x2xi8>) -> tensor<1x1x2x2xi32> {
  // expected-error @+1 {{graph.host 'ConvInteger': a zero point's operand index is out of range}}
  %y = graph.host "ConvInteger"(%x, %w) attributes {params = {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad_begin = array<i64: 0, 0>, pad_end = array<i64: 0, 0>, ceil_extra = array<i64: 0, 0>, out = array<i64: 2, 2>, group = 1 : i64, x_zero_point = 2 : i64, w_zero_point = -1 : i64, unsigned_x = false, unsigned_w = false}} : (tensor<1x1x3x3xi8>, tensor<1x1x2x2xi8>) -> tensor<1x1x2x2xi32> {
  }
  return %y : tensor<1x1x2x2xi32>
}

// -----

// A Resize mode ResizeTaps does not name.
func.func @resize_mode(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{graph.host 'Resize': unknown mode, coordinate_transformation_mode or nearest_mode}}
  %y = graph.host "Resize"(%x) attributes {params = {mode = "bicubic", coordinate_transformation_mode = "half_pixel", nearest_mode = "floor", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, antialias = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32: 2.0>, from_scales = true, roi = array<f32: 0.0, 1.0>}} : (tensor<4xf32>) -> tensor<8xf32> {
  }
  return %y : tensor<8xf32>
}

// -----

// A GRU has no Y_c.
func.func @gru_yc(%x: tensor<2x1x3xf32>, %w: tensor<1x6x3xf32>, %r: tensor<1x6x2xf32>) -> tensor<1x1x2xf32> {
  // expected-error @+1 {{graph.host 'GRU': output must be 0 (Y), 1 (Y_h) or, for LSTM, 2 (Y_c)}}
  %y = graph.host "GRU"(%x, %w, %r) attributes {params = {layout = 0 : i64, direction = "forward", linear_before_reset = false, input_forget = false, activations = ["sigmoid", "tanh"], activation_alpha = array<f32: 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0>, b = -1 : i64, initial_h = -1 : i64, initial_c = -1 : i64, p = -1 : i64, sequence_lens = -1 : i64, lens = array<i64: 2>, output = 2 : i64}} : (tensor<2x1x3xf32>, tensor<1x6x3xf32>, tensor<1x6x2xf32>) -> tensor<1x1x2xf32> {
  }
  return %y : tensor<1x1x2xf32>
}

// -----

// SGEMM's alpha is a float32 kernel's.
func.func @matmul_alpha_int(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<2x4xi32> {
  // expected-error @+1 {{graph.host 'FusedMatMul': parameter 'alpha' needs float32 operands}}
  %y = graph.host "FusedMatMul"(%a, %b) attributes {params = {body = "MatMul", indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], alpha = 2.000000e+00 : f32}} : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32> {
  }
  return %y : tensor<2x4xi32>
}

// -----

// SimplifiedLayerNormalization has no bias.
func.func @simplified_bias(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{graph.host 'SimplifiedLayerNormalization': 'simplified' takes X and Scale and gives output 0}}
  %y = graph.host "SimplifiedLayerNormalization"(%x, %s, %b) attributes {params = {body = "LayerNormalization", axis = 1 : i64, epsilon = 9.99999974E-6 : f64, stash_type = f32, output = 0 : i64, simplified}} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32> {
  }
  return %y : tensor<2x8xf32>
}
