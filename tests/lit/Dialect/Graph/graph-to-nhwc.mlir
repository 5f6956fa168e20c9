// RUN: systole-opt %s --graph-to-nhwc --split-input-file --mlir-print-local-scope | FileCheck %s

// Two convolutions in a row: only the graph boundary keeps transposes; the
// filter is transposed OIHW -> HWIO.
// CHECK-LABEL: func @two_convs
// CHECK: %[[IN:.*]] = graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x8x8xf32> -> tensor<1x8x8x3xf32>
// CHECK: %[[W1:.*]] = graph.transpose %arg1 {perm = array<i64: 2, 3, 1, 0>} : tensor<4x3x3x3xf32> -> tensor<3x3x3x4xf32>
// CHECK: %[[C1:.*]] = graph.conv2d %[[IN]], %[[W1]] {{{.*}}layout = #graph<layout nhwc>{{.*}}} : {{.*}} -> tensor<1x8x8x4xf32>
// CHECK: %[[R:.*]] = graph.clip %[[C1]] {min = 0.000000e+00 : f64} : tensor<1x8x8x4xf32>
// CHECK: %[[C2:.*]] = graph.conv2d %[[R]], %{{.*}} {{{.*}}layout = #graph<layout nhwc>{{.*}}} : {{.*}} -> tensor<1x8x8x2xf32>
// CHECK: %[[OUT:.*]] = graph.transpose %[[C2]] {perm = array<i64: 0, 3, 1, 2>} : tensor<1x8x8x2xf32> -> tensor<1x2x8x8xf32>
// CHECK: return %[[OUT]]
func.func @two_convs(%x: tensor<1x3x8x8xf32>, %w1: tensor<4x3x3x3xf32>, %w2: tensor<2x4x1x1xf32>) -> tensor<1x2x8x8xf32> {
  %c1 = graph.conv2d %x, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %r = graph.clip %c1 {min = 0.0 : f64} : tensor<1x4x8x8xf32>
  %c2 = graph.conv2d %r, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x4x8x8xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x8x8xf32>
  return %c2 : tensor<1x2x8x8xf32>
}

// -----

// A residual add between NHWC ops stays NHWC; global pooling output moves to
// NCHW through a reshape, not a transpose.
// CHECK-LABEL: func @residual_gap
// CHECK: %[[P:.*]] = graph.pool %{{.*}} {{{.*}}layout = #graph<layout nhwc>{{.*}}} : tensor<1x4x4x8xf32> -> tensor<1x4x4x8xf32>
// CHECK: %[[A:.*]] = graph.add %{{.*}}, %[[P]] : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK: %[[G:.*]] = graph.global_avg_pool %[[A]] {layout = #graph<layout nhwc>} : tensor<1x4x4x8xf32> -> tensor<1x1x1x8xf32>
// CHECK-NOT: graph.transpose %[[G]]
// CHECK: graph.reshape %[[G]] : tensor<1x1x1x8xf32> -> tensor<1x8x1x1xf32>
func.func @residual_gap(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32> {
  %p = graph.pool %x {kind = #graph<pool_kind max>, kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = false, layout = #graph<layout nchw>} : tensor<1x8x4x4xf32> -> tensor<1x8x4x4xf32>
  %a = graph.add %x, %p : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %g = graph.global_avg_pool %a {layout = #graph<layout nchw>} : tensor<1x8x4x4xf32> -> tensor<1x8x1x1xf32>
  return %g : tensor<1x8x1x1xf32>
}

// -----

// Squeeze-excitation: the per-channel scale [1,C,1,1] (global pooling of an
// NHWC tensor, a reshape) joins the NHWC side of a mul as [1,1,1,C] through a
// reshape, so the mul runs in NHWC and the pooling's reshapes cancel.
// CHECK-LABEL: func @squeeze_excitation
// CHECK: %[[P:.*]] = graph.pool %{{.*}} {{{.*}}layout = #graph<layout nhwc>{{.*}}} : tensor<1x4x4x8xf32> -> tensor<1x4x4x8xf32>
// CHECK: %[[G:.*]] = graph.global_avg_pool %[[P]] {layout = #graph<layout nhwc>} : tensor<1x4x4x8xf32> -> tensor<1x1x1x8xf32>
// CHECK: %[[M:.*]] = graph.mul %[[P]], %[[G]] : (tensor<1x4x4x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK: %[[OUT:.*]] = graph.transpose %[[M]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[OUT]]
func.func @squeeze_excitation(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %p = graph.pool %x {kind = #graph<pool_kind max>, kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = false, layout = #graph<layout nchw>} : tensor<1x8x4x4xf32> -> tensor<1x8x4x4xf32>
  %g = graph.global_avg_pool %p {layout = #graph<layout nchw>} : tensor<1x8x4x4xf32> -> tensor<1x8x1x1xf32>
  %m = graph.mul %p, %g : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  return %m : tensor<1x8x4x4xf32>
}

// -----

// -----

// ConvNeXt's layer scale: a [C, 1, 1] constant times an NCHW tensor is a
// [1, C, 1, 1] operand (ONNX broadcasting prepends 1s), so it joins the NHWC
// side as [1, 1, 1, C] through a reshape and the mul runs in NHWC.
// CHECK-LABEL: func @lower_rank_scale
// CHECK: %[[P:.*]] = graph.pool %{{.*}} : tensor<1x4x4x8xf32> -> tensor<1x4x4x8xf32>
// CHECK: %[[S:.*]] = graph.reshape %{{.*}} : tensor<8x1x1xf32> -> tensor<1x1x1x8xf32>
// CHECK: %[[M:.*]] = graph.mul %[[S]], %[[P]] : (tensor<1x1x1x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK: %[[OUT:.*]] = graph.transpose %[[M]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[OUT]]
func.func @lower_rank_scale(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %s = arith.constant dense<0.5> : tensor<8x1x1xf32>
  %p = graph.pool %x {kind = #graph<pool_kind max>, kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = false, layout = #graph<layout nchw>} : tensor<1x8x4x4xf32> -> tensor<1x8x4x4xf32>
  %m = graph.mul %s, %p : (tensor<8x1x1xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %m : tensor<1x8x4x4xf32>
}

// tf2onnx writes LeakyRelu and Max(x, 0) between convolutions: the
// transposes move through elementwise host ops (re-typed bodies; the scalar
// operand's map keeps the batch dim, extent 1 in both layouts) and cancel.
// CHECK-LABEL: func @host_elementwise
// CHECK: %[[C1:.*]] = graph.conv2d {{.*}} -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[L:.*]] = graph.host "LeakyRelu"(%[[C1]]) : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<1x8x8x4xf32>):
// CHECK: tensor.empty() : tensor<1x8x8x4xf32>
// CHECK: graph.yield %{{.*}} : tensor<1x8x8x4xf32>
// CHECK: %[[M:.*]] = graph.host "Max"(%[[L]], %{{.*}}) : (tensor<1x8x8x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NOT: tensor<1x4x8x8xf32>
// CHECK: graph.conv2d %[[M]]
func.func @host_elementwise(%x: tensor<1x3x8x8xf32>, %w1: tensor<4x3x3x3xf32>, %w2: tensor<2x4x1x1xf32>) -> tensor<1x2x8x8xf32> {
  %c1 = graph.conv2d %x, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %l = graph.host "LeakyRelu"(%c1) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  ^bb0(%a: tensor<1x4x8x8xf32>):
    %alpha = arith.constant 2.000000e-01 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %e = tensor.empty() : tensor<1x4x8x8xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.mulf %in, %alpha : f32
      %c = arith.cmpf olt, %in, %zero : f32
      %s = arith.select %c, %m, %in : f32
      linalg.yield %s : f32
    } -> tensor<1x4x8x8xf32>
    graph.yield %g : tensor<1x4x8x8xf32>
  }
  %cst = arith.constant dense<0.000000e+00> : tensor<1x1x1x1xf32>
  %mx = graph.host "Max"(%l, %cst) : (tensor<1x4x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x8x8xf32> {
  ^bb0(%a: tensor<1x4x8x8xf32>, %b: tensor<1x1x1x1xf32>):
    %e = tensor.empty() : tensor<1x4x8x8xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : tensor<1x4x8x8xf32>, tensor<1x1x1x1xf32>) outs(%e : tensor<1x4x8x8xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.maximumf %in, %in2 : f32
      linalg.yield %m : f32
    } -> tensor<1x4x8x8xf32>
    graph.yield %g : tensor<1x4x8x8xf32>
  }
  %c2 = graph.conv2d %mx, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x4x8x8xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x8x8xf32>
  return %c2 : tensor<1x2x8x8xf32>
}

// -----

// A per-channel operand (a [1,C,1,1] parameter, as BatchNormalization's
// [C] ones) keeps its shape; its map is renamed into the NHWC loop order
// (old dim 1, C, is new dim 3). A second operand of x's shape would need a
// transpose of its own: that host op stays behind its transpose.
// CHECK-LABEL: func @host_per_channel
// CHECK: %[[C1:.*]] = graph.conv2d {{.*}} -> tensor<1x8x8x4xf32>
// CHECK: graph.host "Max"(%[[C1]], %{{.*}}) : (tensor<1x8x8x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x8x8x4xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK: %[[T:.*]] = graph.transpose %{{.*}} {perm = array<i64: 0, 3, 1, 2>} : tensor<1x8x8x4xf32> -> tensor<1x4x8x8xf32>
// CHECK: graph.host "Add"(%[[T]], %arg3) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>)
func.func @host_per_channel(%x: tensor<1x3x8x8xf32>, %w1: tensor<4x3x3x3xf32>, %b: tensor<1x4x1x1xf32>, %y: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %c1 = graph.conv2d %x, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %mx = graph.host "Max"(%c1, %b) : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  ^bb0(%a: tensor<1x4x8x8xf32>, %bb: tensor<1x4x1x1xf32>):
    %e = tensor.empty() : tensor<1x4x8x8xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %bb : tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) outs(%e : tensor<1x4x8x8xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.maximumf %in, %in2 : f32
      linalg.yield %m : f32
    } -> tensor<1x4x8x8xf32>
    graph.yield %g : tensor<1x4x8x8xf32>
  }
  %ad = graph.host "Add"(%mx, %y) : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  ^bb0(%a: tensor<1x4x8x8xf32>, %bb: tensor<1x4x8x8xf32>):
    %e = tensor.empty() : tensor<1x4x8x8xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %bb : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %m = arith.addf %in, %in2 : f32
      linalg.yield %m : f32
    } -> tensor<1x4x8x8xf32>
    graph.yield %g : tensor<1x4x8x8xf32>
  }
  return %ad : tensor<1x4x8x8xf32>
}

// -----

// ShuffleNet's channel shuffle of an NHWC int8 tensor (reshape to
// [N, g, C/g, H, W], transpose the group dims, reshape back) is a 1x1
// convolution with 0/1 weights copying the codes (ChannelGather.cpp):
// 4 channels in 2 groups, output channel o = 2i + g reads g*2 + i, so
// o = 0, 1, 2, 3 read 0, 2, 1, 3 (hand-derived). Its weights are int8 with
// scale 1; its result has the input's type, and the NCHW conv after it
// reads it without a transpose.
// CHECK-LABEL: func @channel_shuffle
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[\[}}[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]]]> : tensor<1x1x4x4xi8>
// CHECK: %[[WQ:.*]] = "quant.scast"(%[[W]]) : (tensor<1x1x4x4xi8>) -> tensor<1x1x4x4x!quant.uniform<i8:f32, 1.000000e+00>>
// CHECK: %[[G:.*]] = graph.conv2d %{{.*}}, %[[WQ]] {{{.*}}layout = #graph<layout nhwc>{{.*}}} : (tensor<1x2x2x4x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<1x1x4x4x!quant.uniform<i8:f32, 1.000000e+00>>) -> tensor<1x2x2x4x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK-NOT: graph.transpose %[[G]]
// CHECK: graph.conv2d %[[G]]
!q = !quant.uniform<i8:f32, 0.5:3>
!w = !quant.uniform<i8:f32, 0.25>
func.func @channel_shuffle(%x: tensor<1x4x2x2x!q>, %w1: tensor<4x4x1x1x!w>, %w2: tensor<2x4x1x1x!w>) -> tensor<1x2x2x2x!q> {
  %c = graph.conv2d %x, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x4x2x2x!q>, tensor<4x4x1x1x!w>) -> tensor<1x4x2x2x!q>
  %r1 = graph.reshape %c : tensor<1x4x2x2x!q> -> tensor<1x2x2x2x2x!q>
  %t = graph.transpose %r1 {perm = array<i64: 0, 2, 1, 3, 4>} : tensor<1x2x2x2x2x!q> -> tensor<1x2x2x2x2x!q>
  %r2 = graph.reshape %t : tensor<1x2x2x2x2x!q> -> tensor<1x4x2x2x!q>
  %o = graph.conv2d %r2, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x4x2x2x!q>, tensor<2x4x1x1x!w>) -> tensor<1x2x2x2x!q>
  return %o : tensor<1x2x2x2x!q>
}

// -----

// A channel split of an int8 tensor between DequantizeLinear and
// QuantizeLinear (QDQ) sinks its transpose and becomes the gather conv of
// channels 2..3 (its 4 x 2 weight bytes do not outweigh copying 4 pixels);
// a quantize with other parameters stays after a dequantize of it
// (npu-fold-tables makes that the conv's REQUANT table).
// CHECK-LABEL: func @channel_split
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[\[}}[0, 0], [0, 0], [1, 0], [0, 1]]]]> : tensor<1x1x4x2xi8>
// CHECK: %[[G:.*]] = graph.conv2d %{{.*}}, %{{.*}} {{{.*}}} : (tensor<1x2x2x4x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<1x1x4x2x!quant.uniform<i8:f32, 1.000000e+00>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK: %[[D:.*]] = graph.dequantize %[[G]]
// CHECK: graph.quantize %[[D]] : tensor<1x2x2x2xf32> -> tensor<1x2x2x2x!quant.uniform<i8:f32, 2.500000e-01:-1>>
// CHECK-NOT: graph.slice
!q2 = !quant.uniform<i8:f32, 0.5:3>
!o2 = !quant.uniform<i8:f32, 0.25:-1>
!w2 = !quant.uniform<i8:f32, 0.25>
func.func @channel_split(%x: tensor<1x4x2x2x!q2>, %w1: tensor<4x4x1x1x!w2>) -> tensor<1x2x2x2x!o2> {
  %c = graph.conv2d %x, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x4x2x2x!q2>, tensor<4x4x1x1x!w2>) -> tensor<1x4x2x2x!q2>
  %d = graph.dequantize %c : tensor<1x4x2x2x!q2> -> tensor<1x4x2x2xf32>
  %s = graph.slice %d {offsets = array<i64: 0, 2, 0, 0>, strides = array<i64: 1, 1, 1, 1>} : tensor<1x4x2x2xf32> -> tensor<1x2x2x2xf32>
  %q = graph.quantize %s : tensor<1x2x2x2xf32> -> tensor<1x2x2x2x!o2>
  return %q : tensor<1x2x2x2x!o2>
}

// -----

// A transformer's Q/K/V split of a [T, 1, 3D] int8 tensor (between DQ and
// Q) whose 0/1 weights would outweigh copying it (3D > 2T: 6 > 4) stays a
// slice of the codes, at any rank: the NPU copies it.
// CHECK-LABEL: func @qkv_split
// CHECK: %[[S:.*]] = graph.slice %arg0 {offsets = array<i64: 0, 0, 2>, strides = array<i64: 1, 1, 1>} : tensor<2x1x6x!quant.uniform<i8:f32, 5.000000e-01:3>> -> tensor<2x1x2x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK: return %[[S]]
!q3 = !quant.uniform<i8:f32, 0.5:3>
func.func @qkv_split(%x: tensor<2x1x6x!q3>) -> tensor<2x1x2x!q3> {
  %d = graph.dequantize %x : tensor<2x1x6x!q3> -> tensor<2x1x6xf32>
  %s = graph.slice %d {offsets = array<i64: 0, 0, 2>, strides = array<i64: 1, 1, 1>} : tensor<2x1x6xf32> -> tensor<2x1x2xf32>
  %q = graph.quantize %s : tensor<2x1x2xf32> -> tensor<2x1x2x!q3>
  return %q : tensor<2x1x2x!q3>
}

// -----

// Every other channel (stride 2) is no contiguous run: the gather conv of
// channels 0, 2, 4, on the tensor viewed as NHWC [1, 1, T, C] (rows of the
// HWIO weight are input channels).
// CHECK-LABEL: func @strided_split
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[\[}}[1, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 0], [0, 0, 1], [0, 0, 0]]]]> : tensor<1x1x6x3xi8>
// CHECK: %[[V:.*]] = graph.reshape %arg0 : tensor<3x1x6x!quant.uniform<i8:f32, 5.000000e-01:3>> -> tensor<1x1x3x6x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK: %[[G:.*]] = graph.conv2d %[[V]], %{{.*}} : (tensor<1x1x3x6x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<1x1x6x3x!quant.uniform<i8:f32, 1.000000e+00>>) -> tensor<1x1x3x3x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK: %[[R:.*]] = graph.reshape %[[G]] : tensor<1x1x3x3x!quant.uniform<i8:f32, 5.000000e-01:3>> -> tensor<3x1x3x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK: return %[[R]]
!q4 = !quant.uniform<i8:f32, 0.5:3>
func.func @strided_split(%x: tensor<3x1x6x!q4>) -> tensor<3x1x3x!q4> {
  %d = graph.dequantize %x : tensor<3x1x6x!q4> -> tensor<3x1x6xf32>
  %s = graph.slice %d {offsets = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 2>} : tensor<3x1x6xf32> -> tensor<3x1x3xf32>
  %q = graph.quantize %s : tensor<3x1x3xf32> -> tensor<3x1x3x!q4>
  return %q : tensor<3x1x3x!q4>
}

// -----

// A CRD DepthToSpace (PyTorch's pixel_shuffle) of an int8 tensor becomes a
// channel gather into DCR order and a DCR one in NHWC: DCR channel
// (i * 2 + j) * 2 + c reads CRD channel c * 4 + i * 2 + j, so output
// channels 0..7 read 0, 4, 1, 5, 2, 6, 3, 7 (hand-derived; rows of the HWIO
// weights are input channels).
// CHECK-LABEL: func @depth_to_space_crd
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[\[}}[1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0, 1, 0], [0, 1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 0, 0, 1]]]]> : tensor<1x1x8x8xi8>
// CHECK: %[[G:.*]] = graph.conv2d %{{.*}} {{{.*}}layout = #graph<layout nhwc>{{.*}}} : (tensor<1x3x4x8x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<1x1x8x8x!quant.uniform<i8:f32, 1.000000e+00>>) -> tensor<1x3x4x8x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK: graph.depth_to_space %[[G]] {blocksize = 2 : i64, crd = false, layout = #graph<layout nhwc>} : tensor<1x3x4x8x!quant.uniform<i8:f32, 5.000000e-01:3>> -> tensor<1x6x8x2x!quant.uniform<i8:f32, 5.000000e-01:3>>
!q = !quant.uniform<i8:f32, 0.5:3>
func.func @depth_to_space_crd(%x: tensor<1x8x3x4x!q>) -> tensor<1x2x6x8x!q> {
  %y = graph.depth_to_space %x {blocksize = 2 : i64, crd = true, layout = #graph<layout nchw>} : tensor<1x8x3x4x!q> -> tensor<1x2x6x8x!q>
  return %y : tensor<1x2x6x8x!q>
}

// -----

// An explicit Pad of H and W between NCHW layers (before a max pool, as
// TensorFlow converters write it) pads the NHWC tensor's H and W: the
// transpose after the first pool sinks through it and cancels against the
// second pool's.
// CHECK-LABEL: func @pad_between_layouts
// CHECK: %[[A:.*]] = graph.pool %{{.*}}layout = #graph<layout nhwc>
// CHECK-NEXT: %[[P:.*]] = graph.pad %[[A]] {pads = array<i64: 0, 1, 0, 0, 0, 2, 3, 0>, value = -3.000000e+00 : f64} : tensor<1x4x5x8x!quant.uniform<i8:f32, 5.000000e-01:-3>> -> tensor<1x7x8x8x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK-NEXT: graph.pool %[[P]] {{.*}}layout = #graph<layout nhwc>
!qp = !quant.uniform<i8:f32, 0.5:-3>
func.func @pad_between_layouts(%x: tensor<1x8x4x5x!qp>) -> tensor<1x8x3x3x!qp> {
  %a = graph.pool %x {kind = #graph<pool_kind max>, kernel = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, count_include_pad = false, layout = #graph<layout nchw>} : tensor<1x8x4x5x!qp> -> tensor<1x8x4x5x!qp>
  %p = graph.pad %a {pads = array<i64: 0, 0, 1, 0, 0, 0, 2, 3>, value = -3.0 : f64} : tensor<1x8x4x5x!qp> -> tensor<1x8x7x8x!qp>
  %m = graph.pool %p {kind = #graph<pool_kind max>, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, count_include_pad = false, layout = #graph<layout nchw>} : tensor<1x8x7x8x!qp> -> tensor<1x8x3x3x!qp>
  return %m : tensor<1x8x3x3x!qp>
}
