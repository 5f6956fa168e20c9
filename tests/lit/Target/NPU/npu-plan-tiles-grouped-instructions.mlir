// npu-plan-tiles on a grouped convolution, at the instruction level
// (Inputs/grouped-conv-3x3.mlir: 4 groups of 4 -> 4 channels, 3x3 pad 1 on
// an 8x8x16 image, default-32x32: 64-byte DRAM bursts).
// RUN: systole-opt %S/Inputs/grouped-conv-3x3.mlir --systole-npu-pipeline=hw=default-32x32 --convert-graph-to-npu=hw=default-32x32 --npu-schedule-pipeline | FileCheck %s --check-prefix=SHARED
// RUN: systole-opt %S/Inputs/grouped-conv-3x3.mlir --systole-npu-pipeline=hw=default-32x32 --npu-plan-tiles="hw=default-32x32 force-plan=order=1,n=4,os=0,rows=8" --convert-graph-to-npu=hw=default-32x32 --npu-schedule-pipeline | FileCheck %s --check-prefix=SLICED

// Order 0, n = 16 (the cost model's pick): one item of all 4 groups. The
// input tile holds whole pixels (16 channels, padded width 10: rows of 160
// bytes), loaded once as 8 image rows of 128 bytes at column 1 plus the
// padding rows, and the side padding from the pad constant; each group's
// weights (3 x 3 x 4 rows x 4 columns = 144 bytes) load one after the
// other. Each group runs one MATMUL per kernel row (its 3 taps x 4
// channels are not adjacent in the tile: k = 12, a_k_inner = 4 channels,
// taps a_k_outer_stride = 16 bytes apart, rows 160 bytes apart), reading
// its slice at byte 4 x g of each pixel and writing columns 4 x g.. of the
// 16-wide accumulator tile; the first of a group's MATMULs overwrites. One
// REQUANT of all 16 channels and one STORE of the whole 1024-byte output.
// SHARED: graph.conv2d {{.*}}group = 4 : i64{{.*}}npu.tile = #npu.tile<n = 16, order = 0, os = 0,
// SHARED: npu.load {sram = sp, elem_bytes = 1, pad_value = -3, sram_addr = 16, n0 = 128, n1 = 1, n2 = 8, n3 = 1, s2 = 128, t2 = 160, pad_top = 1, pad_bottom = 1}
// SHARED-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[#W:]], dram_addr = 4096, n0 = 144,
// SHARED-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[#W+144]], dram_addr = 4288, n0 = 144,
// SHARED-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[#W+288]], dram_addr = 4480, n0 = 144,
// SHARED-NEXT: npu.load {sram = sp, elem_bytes = 1, sram_addr = [[#W+432]], dram_addr = 4672, n0 = 144,
// SHARED: npu.matmul {{.*}}{dataflow = ws, preload, a_zp = -3, a_m_inner_stride = 16, a_m_outer_stride = 160, a_k_outer_stride = 16, b_stride = 4, a_m_inner = 8, a_k_inner = 4, m = 64, k = 12, n = 4, b_addr = [[#W]], c_stride = 16}
// SHARED-NEXT: npu.matmul {dataflow = ws, preload, accumulate, a_zp = -3, a_addr = 160, {{.*}}k = 12, n = 4, b_addr = [[#W+48]], c_stride = 16}
// SHARED-NEXT: npu.matmul {dataflow = ws, preload, accumulate, a_zp = -3, a_addr = 320, {{.*}}k = 12, n = 4, b_addr = [[#W+96]], c_stride = 16}
// SHARED-NEXT: npu.matmul {dataflow = ws, preload, a_zp = -3, a_addr = 4, {{.*}}k = 12, n = 4, b_addr = [[#W+144]], c_addr = 4, c_stride = 16}
// SHARED-COUNT-2: npu.matmul {dataflow = ws, preload, accumulate, {{.*}}c_addr = 4, c_stride = 16}
// SHARED-NEXT: npu.matmul {dataflow = ws, preload, a_zp = -3, a_addr = 8, {{.*}}c_addr = 8, c_stride = 16}
// SHARED-COUNT-2: npu.matmul {dataflow = ws, preload, accumulate, {{.*}}c_addr = 8, c_stride = 16}
// SHARED-NEXT: npu.matmul {dataflow = ws, preload, a_zp = -3, a_addr = 12, {{.*}}c_addr = 12, c_stride = 16}
// SHARED-NEXT: npu.matmul {dataflow = ws, preload, accumulate, a_zp = -3, a_addr = 172, {{.*}}c_addr = 12, c_stride = 16}
// SHARED-NEXT: npu.matmul {dataflow = ws, preload, accumulate, a_zp = -3, a_addr = 332, {{.*}}c_addr = 12, c_stride = 16}
// SHARED-NEXT: npu.requant push_next {bias, zp = -128, lo = -128, hi = 127, c_stride = 16, {{.*}}m = 64, n = 16,
// SHARED-NEXT: npu.store {{.*}}dram_addr = 1024, n0 = 1024, n1 = 1, n2 = 1, n3 = 1}
// SHARED-NOT: npu.matmul

// Order 1 (sliced): groups outer, each item loads its group's 4 channels
// of every pixel (runs of 4 bytes, DRAM pixel stride 16, at byte 4 x g),
// one MATMUL spans the kernel rows (a_k_inner = 12 = 3 taps x 4 channels,
// rows 40 bytes apart) in K chunks of the array's 32 rows, and each group
// stores its 4 channels of every pixel.
// SLICED: graph.conv2d {{.*}}group = 4 : i64{{.*}}npu.tile = #npu.tile<n = 4, order = 1, os = 0,
// SLICED: npu.load {sram = sp, elem_bytes = 1, pad_value = -3, n0 = 4, n1 = 8, n2 = 8, n3 = 1, s1 = 16, s2 = 128, t1 = 4, t2 = 40, pad_top = 1, pad_bottom = 1, pad_left = 1, pad_right = 1}
// SLICED: npu.load {{.*}}dram_addr = 4, n0 = 4, n1 = 8, n2 = 8, n3 = 1, s1 = 16, s2 = 128, t1 = 4, t2 = 40,
// SLICED: npu.matmul {{.*}}a_m_inner_stride = 4, a_m_outer_stride = 40, a_k_outer_stride = 40, b_stride = 4, a_m_inner = 8, a_k_inner = 12, m = 64, k = 32, n = 4,
// SLICED-NEXT: npu.matmul {{.*}}a_k_inner = 12, a_k_offset = 32, m = 64, k = 4, n = 4,
// SLICED: npu.store {{.*}}dram_addr = 1024, n0 = 4, n1 = 64, n2 = 1, n3 = 1, s1 = 16, t1 = 4}
// SLICED: npu.store {{.*}}dram_addr = 1028, n0 = 4, n1 = 64, n2 = 1, n3 = 1, s1 = 16, t1 = 4}
