// RUN: systole-opt %s --npu-partition --split-input-file --verify-diagnostics
// A requantize of a constant is an error at the op: the pass splits only
// activations into the float round trip (the message expects an earlier
// fold; --systole-npu-pipeline reports the same error, nothing before the
// pass folds it).
// RUN: not systole-opt %S/Inputs/requantize-constant.mlir --npu-partition 2>&1 | FileCheck %s --check-prefix=CONST
// CONST: requantize-constant.mlir:8:8: error: requantization of a constant was not folded

// A float op has no NPU lowering; the host's compiled code runs float ops,
// but not grouped convolutions.
func.func @float_grouped_conv(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x1x2xf32>) -> tensor<1x4x4x2xf32> {
  // expected-error @+1 {{'graph.conv2d' cannot run on the NPU (convolution input must be int8 per-tensor quantized and its output int8 or int32) nor on the host (grouped float convolution)}}
  %y = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 2 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}
