// RUN: systole-opt %s --split-input-file --verify-diagnostics

func.func @conv_bad_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{result shape 1x4x8x8 does not match the inferred shape 1x4x6x6}}
  %y = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

func.func @conv_bad_group(%x: tensor<1x3x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{group 2 must divide input channels 3 and output channels 4}}
  %y = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 2 : i64, layout = #graph<layout nchw>} : (tensor<1x3x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

func.func @matmul_k_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{contraction mismatch: lhs has K=3, rhs has K=4}}
  %y = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

func.func @transpose_not_perm(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{perm must be a permutation}}
  %y = graph.transpose %a {perm = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

!a = !quant.uniform<i8:f32, 0.05:-3>
func.func @act_range_on_float(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{act_min/act_max require a quantized result}}
  %y = graph.add %a, %a {act_min = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @pool_pad_too_big(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x5x5xf32> {
  // expected-error @+1 {{pads must be smaller than the kernel}}
  %y = graph.pool %x {kind = #graph<pool_kind max>, kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 2, 0, 0, 0>, count_include_pad = false, layout = #graph<layout nchw>} : tensor<1x1x4x4xf32> -> tensor<1x1x5x5xf32>
  return %y : tensor<1x1x5x5xf32>
}

// -----

func.func @host_bad_yield(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{region must yield one value of the result type}}
  %r = graph.host "Neg"(%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %c = arith.constant dense<1> : tensor<4xi32>
    graph.yield %c : tensor<4xi32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @host_bad_arg(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{region argument type 'tensor<4xi32>' differs from its operand's 'tensor<4xf32>'}}
  %r = graph.host "Neg"(%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xi32>):
    graph.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @depth_to_space_bad_channels(%x: tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{result dim 1 does not match blocksize 2}}
  %y = graph.depth_to_space %x {blocksize = 2 : i64, crd = false, layout = #graph<layout nchw>} : tensor<1x6x2x2xf32> -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}

// -----

func.func @space_to_depth_indivisible(%x: tensor<1x2x5x4xf32>) -> tensor<1x8x2x2xf32> {
  // expected-error @+1 {{result dim 2 does not match blocksize 2}}
  %y = graph.space_to_depth %x {blocksize = 2 : i64, layout = #graph<layout nchw>} : tensor<1x2x5x4xf32> -> tensor<1x8x2x2xf32>
  return %y : tensor<1x8x2x2xf32>
}
