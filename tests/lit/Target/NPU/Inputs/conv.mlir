// A quantized NHWC 3x3 conv + relu as the graph passes leave it.
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-128>
!w = !quant.uniform<i8:f32:3, {0.01, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01, 0.02}>
!b = !quant.uniform<i32:f32:0, {5.0e-4, 1.0e-3, 5.0e-4, 1.0e-3, 5.0e-4, 1.0e-3, 5.0e-4, 1.0e-3}>
func.func @main(%x: tensor<1x16x16x8x!x>) -> tensor<1x16x16x8x!y> {
  %wi = arith.constant dense<1> : tensor<3x3x8x8xi8>
  %w = "quant.scast"(%wi) : (tensor<3x3x8x8xi8>) -> tensor<3x3x8x8x!w>
  %bi = arith.constant dense<[10, -10, 1, 2, 3, 4, 5, 6]> : tensor<8xi32>
  %b = "quant.scast"(%bi) : (tensor<8xi32>) -> tensor<8x!b>
  %c = graph.conv2d %x, %w, %b {act_min = -128 : i64, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nhwc>} : (tensor<1x16x16x8x!x>, tensor<3x3x8x8x!w>, tensor<8x!b>) -> tensor<1x16x16x8x!y>
  return %c : tensor<1x16x16x8x!y>
}
