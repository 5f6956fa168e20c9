// A quantized NHWC 3x3 convolution (padding 1) of 4 groups: 16 -> 16
// channels on an 8x8 image, 4 input and 4 output channels per group (HWIO
// with I = 16 / 4).
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-128>
!w = !quant.uniform<i8:f32, 0.01>
func.func @main(%x: tensor<1x8x8x16x!x>) -> tensor<1x8x8x16x!y> {
  %wi = arith.constant dense<1> : tensor<3x3x4x16xi8>
  %w = "quant.scast"(%wi) : (tensor<3x3x4x16xi8>) -> tensor<3x3x4x16x!w>
  %c = graph.conv2d %x, %w {act_min = -128 : i64, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 4 : i64, layout = #graph<layout nhwc>} : (tensor<1x8x8x16x!x>, tensor<3x3x4x16x!w>) -> tensor<1x8x8x16x!y>
  return %c : tensor<1x8x8x16x!y>
}
