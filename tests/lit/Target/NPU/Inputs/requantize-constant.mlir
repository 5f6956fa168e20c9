// A graph.requantize of a constant: npu-partition rejects it (only a
// requantize of an activation becomes a dequantize/quantize pair).
!r1 = !quant.uniform<i8:f32, 0.05:-3>
!r2 = !quant.uniform<i8:f32, 0.1:2>
func.func @requantize_constant() -> tensor<2x8x!r2> {
  %c = arith.constant dense<5> : tensor<2x8xi8>
  %a = "quant.scast"(%c) : (tensor<2x8xi8>) -> tensor<2x8x!r1>
  %y = graph.requantize %a : tensor<2x8x!r1> -> tensor<2x8x!r2>
  return %y : tensor<2x8x!r2>
}
