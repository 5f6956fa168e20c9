// A quantized NHWC 3x3 convolution of 4 groups (16 -> 16 channels, 4 per
// group: HWIO with I = 16 / 4) and a depthwise one with channel multiplier
// 2 (group = 16 input channels, 32 outputs): both run on the array, group
// by group.
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-128>
!w = !quant.uniform<i8:f32, 0.01>
func.func @main(%x: tensor<1x8x8x16x!x>) -> tensor<1x8x8x32x!y> {
  %wi = arith.constant dense<1> : tensor<3x3x4x16xi8>
  %w = "quant.scast"(%wi) : (tensor<3x3x4x16xi8>) -> tensor<3x3x4x16x!w>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 4 : i64, layout = #graph<layout nhwc>} : (tensor<1x8x8x16x!x>, tensor<3x3x4x16x!w>) -> tensor<1x8x8x16x!x>
  %vi = arith.constant dense<2> : tensor<3x3x1x32xi8>
  %v = "quant.scast"(%vi) : (tensor<3x3x1x32xi8>) -> tensor<3x3x1x32x!w>
  %d = graph.conv2d %c, %v {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 16 : i64, layout = #graph<layout nhwc>} : (tensor<1x8x8x16x!x>, tensor<3x3x1x32x!w>) -> tensor<1x8x8x32x!y>
  return %d : tensor<1x8x8x32x!y>
}
