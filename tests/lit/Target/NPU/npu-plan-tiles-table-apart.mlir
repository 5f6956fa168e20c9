// npu-plan-tiles: an elementwise layer whose result only a table reads
// runs that table as a VLUT on its own output tile (fusedTable); when no
// tiling holds the two together, the layer gets npu.table_apart and the
// table is planned as a layer of its own.
// RUN: systole-opt %s --systole-npu-pipeline=hw=rtl-8x8 | FileCheck %s

// x / mean(x) per row, then a per-channel scale (64 channels, channel 1
// doubled: a [64, 256] table). On rtl-8x8 (64 KiB in 4 banks) two 16 KiB
// table slots do not fit beside the division's own slots (bank-aligned
// 16 KiB each), so the division plans alone; the table's layer takes
// chunks of 16 channels (two 4 KiB table slots).
// CHECK-LABEL: func @main
// CHECK: graph.div {{.*}}npu.table_apart
// CHECK: graph.table {{.*}}npu.tile = #npu.tile<channels = 16,
!x = !quant.uniform<i8:f32, 0.05:-3>
!m = !quant.uniform<i8:f32, 0.02:5>
!y = !quant.uniform<i8:f32, 0.1:-1>
!z = !quant.uniform<i8:f32, 0.2:4>
func.func @main(%x: tensor<2x64x!x>, %mean: tensor<2x1x!m>) -> tensor<2x64x!z> {
  %f = graph.dequantize %x : tensor<2x64x!x> -> tensor<2x64xf32>
  %g = graph.dequantize %mean : tensor<2x1x!m> -> tensor<2x1xf32>
  %d = graph.div %f, %g : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
  %q = graph.quantize %d : tensor<2x64xf32> -> tensor<2x64x!y>
  %e = graph.dequantize %q : tensor<2x64x!y> -> tensor<2x64xf32>
  %s = arith.constant dense<[1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]> : tensor<64xf32>
  %p = graph.mul %e, %s : (tensor<2x64xf32>, tensor<64xf32>) -> tensor<2x64xf32>
  %r = graph.quantize %p : tensor<2x64xf32> -> tensor<2x64x!z>
  return %r : tensor<2x64x!z>
}
