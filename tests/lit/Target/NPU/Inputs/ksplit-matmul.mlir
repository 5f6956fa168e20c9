// A 4 x 96 by 96 x 4 int8 matmul (constant weights): on a 4x4 array with a
// 1 KiB scratchpad (small-sram.json) its whole K does not fit, so
// npu-plan-tiles splits K across items (npu-plan-tiles-instructions.mlir).
!a = !quant.uniform<i8:f32, 0.5:1>
!w = !quant.uniform<i8:f32, 0.25>
!o = !quant.uniform<i8:f32, 1.0:-2>
func.func @main(%x: tensor<4x96x!a>) -> tensor<4x4x!o> {
  %c = arith.constant dense<1> : tensor<96x4xi8>
  %w = "quant.scast"(%c) : (tensor<96x4xi8>) -> tensor<96x4x!w>
  %m = graph.matmul %x, %w : (tensor<4x96x!a>, tensor<96x4x!w>) -> tensor<4x4x!o>
  return %m : tensor<4x4x!o>
}
