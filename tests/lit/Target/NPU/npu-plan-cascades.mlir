// Layers kept on chip: a convolution whose result only the next layer reads
// writes it straight into that layer's input tile when the pair's predicted
// cycles (priced with the generators, as npu-plan-tiles does) beat the
// planned ones. Chains form: %b reads %a's output on chip and keeps its own
// for %c. %c's result is also a graph output (two readers): it goes to DRAM,
// so %d loads it. Values: e2e.cascade (ORT, functional and cycle) and the
// zoo models.
// RUN: systole-opt %s --npu-partition --npu-plan-tiles=hw=edge-16x16 --npu-plan-cascades=hw=edge-16x16 | FileCheck %s
// On tiny-4x4 (16 KiB of scratchpad) a 34 x 34 x 32 padded image (36,992
// bytes) does not fit: nothing is kept.
// RUN: systole-opt %s --npu-partition --npu-plan-tiles=hw=tiny-4x4 --npu-plan-cascades=hw=tiny-4x4 | FileCheck %s --check-prefix=TINY
// TINY-NOT: npu.keep_output
// TINY-NOT: npu.input_on_chip

!x = !quant.uniform<i8:f32, 0.05:-3>
!w = !quant.uniform<i8:f32, 0.01>

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
func.func @chain(%x: tensor<1x32x32x32x!x>) -> (tensor<1x32x32x32x!x>, tensor<1x32x32x32x!x>) {
  %wi = arith.constant dense<1> : tensor<3x3x32x32xi8>
  %w = "quant.scast"(%wi) : (tensor<3x3x32x32xi8>) -> tensor<3x3x32x32x!w>
  %a = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x32x32x32x!x>, tensor<3x3x32x32x!w>) -> tensor<1x32x32x32x!x>
  %b = graph.conv2d %a, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x32x32x32x!x>, tensor<3x3x32x32x!w>) -> tensor<1x32x32x32x!x>
  %c = graph.conv2d %b, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x32x32x32x!x>, tensor<3x3x32x32x!w>) -> tensor<1x32x32x32x!x>
  %d = graph.conv2d %c, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x32x32x32x!x>, tensor<3x3x32x32x!w>) -> tensor<1x32x32x32x!x>
  return %c, %d : tensor<1x32x32x32x!x>, tensor<1x32x32x32x!x>
}
