// The tile plan follows the hardware config: the output-channel tile is the
// array width (8 channels fit the 32x32 preset's columns, a 4x4 array takes
// 4), and the predicted cycles come from the config's timing.
// RUN: systole-opt %S/Inputs/conv.mlir --npu-partition --npu-plan-tiles=hw=default-32x32 | FileCheck %s --check-prefix=BIG
// RUN: systole-opt %S/Inputs/conv.mlir --npu-partition --npu-plan-tiles=hw=tiny-4x4 | FileCheck %s --check-prefix=TINY

// BIG: graph.conv2d {{.*}}npu.tile = #npu.tile<n = 8, order = {{[01]}}, os = {{[01]}}, predicted_cycles = {{[0-9]+}}, resident = 1, rows = {{[0-9]+}}>
// TINY: graph.conv2d {{.*}}npu.tile = #npu.tile<n = 4, order = {{[01]}}, os = {{[01]}}, predicted_cycles = {{[0-9]+}}, resident = {{[01]}}, rows = {{[0-9]+}}>

// K split: with 1536 bytes of scratchpad no tile of the whole K = 3*3*8 = 72
// weight rows fits beside two input tiles, so the planner falls back to
// plans that stream the weights in K chunks (a multiple of the 4 array
// rows) accumulating in ACC; the default preset needs no split.
// RUN: systole-opt %S/Inputs/conv.mlir --npu-partition --npu-plan-tiles=hw=%S/Inputs/ksplit-sram.json | FileCheck %s --check-prefix=KSPLIT
// KSPLIT: graph.conv2d {{.*}}npu.tile = #npu.tile<k = {{(4|8|12|20|36)}}, n = 4, order = 0, os = {{[01]}}, predicted_cycles = {{[0-9]+}}, resident = 0, rows = {{[0-9]+}}>
// BIG-NOT: k =

// Grouped convolutions whose groups are narrower than the array put whole
// groups in an item (4 and 2 outputs per group: the cost model takes n = 16,
// all 4 groups, and n = 32, all 16 groups) and stream their weights group by
// group (never resident).
// RUN: systole-opt %S/Inputs/grouped-conv.mlir --npu-partition --npu-plan-tiles=hw=default-32x32 | FileCheck %s --check-prefix=GROUPED
// GROUPED: graph.conv2d {{.*}}group = 4 : i64{{.*}}npu.placement = #npu<placement npu>, npu.tile = #npu.tile<n = 16, order = 0, os = {{[01]}}, predicted_cycles = {{[0-9]+}}, resident = 0, rows = {{[0-9]+}}>
// GROUPED: graph.conv2d {{.*}}group = 16 : i64{{.*}}npu.placement = #npu<placement npu>, npu.tile = #npu.tile<n = 32, order = 0, os = {{[01]}}, predicted_cycles = {{[0-9]+}}, resident = 0, rows = {{[0-9]+}}>
