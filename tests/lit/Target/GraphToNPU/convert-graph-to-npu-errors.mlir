// RUN: systole-opt %s --split-input-file --verify-diagnostics --convert-graph-to-npu=hw=tiny-4x4
// RUN: not systole-opt %s --split-input-file --convert-graph-to-npu=hw=no-such-preset 2>&1 | FileCheck %s --check-prefix=HW

// HW: error: convert-graph-to-npu: hardware config 'no-such-preset' is neither a file nor a bundled preset

// Code generation needs the pipeline's annotations (here: DRAM offsets).
!x = !quant.uniform<i8:f32, 0.05:-3>
// expected-error @+1 {{a tensor has no DRAM offset (run npu-allocate-dram)}}
func.func @main(%x: tensor<1x4x4x4x!x>) -> tensor<1x4x4x4x!x> {
  %a = graph.add %x, %x : (tensor<1x4x4x4x!x>, tensor<1x4x4x4x!x>) -> tensor<1x4x4x4x!x>
  return %a : tensor<1x4x4x4x!x>
}

// -----

// expected-error @below {{convert-graph-to-npu: the module has no func @main}}
module {
  func.func @other() {
    return
  }
}
