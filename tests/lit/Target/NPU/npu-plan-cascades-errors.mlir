// npu-plan-cascades prices pairs with a hardware config: without one, or
// with a name that is neither a file nor a bundled preset, the pass fails
// at the function (it rejects no graph otherwise: a pair it cannot keep
// stays in DRAM).
// RUN: not systole-opt %S/Inputs/conv.mlir --npu-partition --npu-plan-tiles=hw=tiny-4x4 --npu-plan-cascades=hw=no-such-preset 2>&1 | FileCheck %s --check-prefix=PRESET
// RUN: not systole-opt %S/Inputs/conv.mlir --npu-partition --npu-plan-tiles=hw=tiny-4x4 --npu-plan-cascades 2>&1 | FileCheck %s --check-prefix=NONE

// PRESET: conv.mlir:6:1: error: hardware config 'no-such-preset' is neither a file nor a bundled preset
// NONE: conv.mlir:6:1: error: no hardware config given
