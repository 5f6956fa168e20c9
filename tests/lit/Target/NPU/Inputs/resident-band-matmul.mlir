// An 8 x 64 by 64 x 8 int8 matmul (constant weights) for a 4x4 array with
// a 1 KiB scratchpad (small-sram.json): K split into chunks of 32 with the
// lhs band of 4 rows staying for both column tiles (plan resident = 1,
// npu-plan-tiles-instructions.mlir).
!a = !quant.uniform<i8:f32, 0.5:1>
!w = !quant.uniform<i8:f32, 0.25>
!o = !quant.uniform<i8:f32, 1.0:-2>
func.func @main(%x: tensor<8x64x!a>) -> tensor<8x8x!o> {
  %c = arith.constant dense<1> : tensor<64x8xi8>
  %w = "quant.scast"(%c) : (tensor<64x8xi8>) -> tensor<64x8x!w>
  %m = graph.matmul %x, %w : (tensor<8x64x!a>, tensor<64x8x!w>) -> tensor<8x8x!o>
  return %m : tensor<8x8x!o>
}
