// Layers kept on chip: a convolution whose result only the next layer reads
// writes it straight into that layer's input tile when the pair's predicted
// cycles (priced with the generators, as npu-plan-tiles does) beat the
// planned ones. Chains form: %b reads %a's output on chip and keeps its own
// for %c. %c's result is also a graph output (two readers): it goes to DRAM,
// so %d loads it. A pair that fits but does not pay (@no_gain) is left
// alone; `always` keeps it. Values: e2e.cascade (ORT, functional and
// cycle) and the zoo models.
// RUN: systole-opt %s --npu-partition --npu-plan-tiles=hw=edge-16x16 --npu-plan-cascades=hw=edge-16x16 | FileCheck %s
// RUN: systole-opt %s --npu-partition --npu-plan-tiles=hw=edge-16x16 --npu-plan-cascades='hw=edge-16x16 always=1' | FileCheck %s --check-prefix=ALWAYS
// On tiny-4x4 (16 KiB of scratchpad) neither @chain's 18 x 18 x 64 padded
// image (20,736 bytes) nor @no_gain's 34 x 34 x 32 one (36,992 bytes)
// fits: nothing is kept, even with `always`.
// RUN: systole-opt %s --npu-partition --npu-plan-tiles=hw=tiny-4x4 --npu-plan-cascades='hw=tiny-4x4 always=1' | FileCheck %s --check-prefix=TINY
// TINY-NOT: npu.keep_output
// TINY-NOT: npu.input_on_chip

!x = !quant.uniform<i8:f32, 0.05:-3>
!w = !quant.uniform<i8:f32, 0.01>

// 3x3 convolutions of a 16 x 16 x 64 image on the 16x16 array: keeping an
// output pays (the producer's stores and the consumer's loads it saves
// outweigh what the consumer's one-tile plan may cost).
// CHECK-LABEL: func @chain
// CHECK: %[[A:.*]] = graph.conv2d %arg0{{.*}}npu.keep_output{{.*}}npu.tile
// CHECK-NOT: npu.input_on_chip
// CHECK: %[[B:.*]] = graph.conv2d %[[A]]{{.*}}npu.input_on_chip, npu.keep_output{{.*}}npu.tile
// CHECK: %[[C:.*]] = graph.conv2d %[[B]]{{.*}}npu.input_on_chip,
// CHECK-NOT: npu.keep_output
// CHECK-SAME: npu.tile
// CHECK: graph.conv2d %[[C]]
// CHECK-NOT: npu.input_on_chip
// CHECK-SAME: npu.tile
func.func @chain(%x: tensor<1x16x16x64x!x>) -> (tensor<1x16x16x64x!x>, tensor<1x16x16x64x!x>) {
  %wi = arith.constant dense<1> : tensor<3x3x64x64xi8>
  %w = "quant.scast"(%wi) : (tensor<3x3x64x64xi8>) -> tensor<3x3x64x64x!w>
  %a = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x16x16x64x!x>, tensor<3x3x64x64x!w>) -> tensor<1x16x16x64x!x>
  %b = graph.conv2d %a, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x16x16x64x!x>, tensor<3x3x64x64x!w>) -> tensor<1x16x16x64x!x>
  %c = graph.conv2d %b, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x16x16x64x!x>, tensor<3x3x64x64x!w>) -> tensor<1x16x16x64x!x>
  %d = graph.conv2d %c, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x16x16x64x!x>, tensor<3x3x64x64x!w>) -> tensor<1x16x16x64x!x>
  return %c, %d : tensor<1x16x16x64x!x>, tensor<1x16x16x64x!x>
}

// The same 3x3 convolution on a 32 x 32 x 32 image: the 34 x 34 x 32 padded
// image fits the 16x16 array's scratchpad (`always` keeps it), but the
// stores and loads that keeping saves cost less than the consumer's
// one-tile plan adds: not kept.
// CHECK-LABEL: func @no_gain
// CHECK-NOT: npu.keep_output
// CHECK-NOT: npu.input_on_chip
// CHECK: return
// ALWAYS-LABEL: func @no_gain
// ALWAYS: graph.conv2d %arg0{{.*}}npu.keep_output
// ALWAYS: graph.conv2d {{.*}}npu.input_on_chip
func.func @no_gain(%x: tensor<1x32x32x32x!x>) -> tensor<1x32x32x32x!x> {
  %wi = arith.constant dense<1> : tensor<3x3x32x32xi8>
  %w = "quant.scast"(%wi) : (tensor<3x3x32x32xi8>) -> tensor<3x3x32x32x!w>
  %a = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x32x32x32x!x>, tensor<3x3x32x32x!w>) -> tensor<1x32x32x32x!x>
  %b = graph.conv2d %a, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x32x32x32x!x>, tensor<3x3x32x32x!w>) -> tensor<1x32x32x32x!x>
  return %b : tensor<1x32x32x32x!x>
}

// A grouped convolution (8 groups of 8 channels) reads a kept input with a
// plan whose groups share one tile of all channels (order 0); plans that
// load per-group slices (order 1) cannot read it.
// ALWAYS-LABEL: func @grouped
// ALWAYS: graph.conv2d %arg0{{.*}}npu.keep_output
// ALWAYS: graph.conv2d {{.*}}group = 8 : i64{{.*}}npu.input_on_chip{{.*}}npu.tile = #npu.tile<n = {{[0-9]+}}, order = 0,
func.func @grouped(%x: tensor<1x16x16x64x!x>) -> tensor<1x16x16x64x!x> {
  %wi = arith.constant dense<1> : tensor<1x1x64x64xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x64x64xi8>) -> tensor<1x1x64x64x!w>
  %gi = arith.constant dense<1> : tensor<3x3x8x64xi8>
  %g = "quant.scast"(%gi) : (tensor<3x3x8x64xi8>) -> tensor<3x3x8x64x!w>
  %a = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x16x16x64x!x>, tensor<1x1x64x64x!w>) -> tensor<1x16x16x64x!x>
  %b = graph.conv2d %a, %g {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 8 : i64, layout = #graph<layout nhwc>} : (tensor<1x16x16x64x!x>, tensor<3x3x8x64x!w>) -> tensor<1x16x16x64x!x>
  return %b : tensor<1x16x16x64x!x>
}
