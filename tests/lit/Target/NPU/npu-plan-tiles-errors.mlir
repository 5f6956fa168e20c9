// A scratchpad that cannot hold the smallest tile is an error that says how
// many bytes the tiling needs; an unknown config names itself.
// RUN: not systole-opt %S/Inputs/conv.mlir --npu-partition --npu-plan-tiles=hw=%S/Inputs/small-sram.json 2>&1 | FileCheck %s
// RUN: not systole-opt %S/Inputs/conv.mlir --npu-partition --npu-plan-tiles=hw=no-such-preset 2>&1 | FileCheck %s --check-prefix=PRESET

// CHECK: error: no tiling fits the hardware config 'small-sram': {{.*}}scratchpad of 1024 bytes cannot hold this tiling (needs {{[0-9]+}} bytes)
// PRESET: hardware config 'no-such-preset' is neither a file nor a bundled preset
