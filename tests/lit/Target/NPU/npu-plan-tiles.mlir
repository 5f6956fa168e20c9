// The tile plan follows the hardware config: the output-channel tile is the
// array width (8 channels fit the 32x32 preset's columns, a 4x4 array takes
// 4), and the predicted cycles come from the config's timing.
// RUN: systole-opt %S/Inputs/conv.mlir --npu-partition --npu-plan-tiles=hw=default-32x32 | FileCheck %s --check-prefix=BIG
// RUN: systole-opt %S/Inputs/conv.mlir --npu-partition --npu-plan-tiles=hw=tiny-4x4 | FileCheck %s --check-prefix=TINY

// BIG: graph.conv2d {{.*}}npu.tile = {n = 8 : i64, order = {{[01]}} : i64, os = {{[01]}} : i64, predicted_cycles = {{[0-9]+}} : i64, resident = 1 : i64, rows = {{[0-9]+}} : i64}
// TINY: graph.conv2d {{.*}}npu.tile = {n = 4 : i64, order = {{[01]}} : i64, os = {{[01]}} : i64, predicted_cycles = {{[0-9]+}} : i64, resident = {{[01]}} : i64, rows = {{[0-9]+}} : i64}
