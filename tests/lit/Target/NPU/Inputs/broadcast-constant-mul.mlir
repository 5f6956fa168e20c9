// The constant first, broadcast along the leading dim (npu-partition-broadcast-constant-instructions.mlir).
!x = !quant.uniform<i8:f32, 0.5:2>
!m = !quant.uniform<i8:f32, 0.25:0>
!y = !quant.uniform<i8:f32, 0.5:-1>
func.func @main(%x: tensor<2x3x4x!x>) -> tensor<2x3x4x!y> {
  %k = arith.constant dense<[[1, -2, 3, -4], [5, 6, -7, 8], [9, 10, 11, 12]]> : tensor<3x4xi8>
  %m = "quant.scast"(%k) : (tensor<3x4xi8>) -> tensor<3x4x!m>
  %a = graph.mul %m, %x : (tensor<3x4x!m>, tensor<2x3x4x!x>) -> tensor<2x3x4x!y>
  return %a : tensor<2x3x4x!y>
}
