// RUN: systole-opt %s --canonicalize --split-input-file | FileCheck %s

// A Pad whose pads are all zero (PyTorch exports one before DenseNet's
// transition pooling) folds to its input; a real one stays.
// CHECK-LABEL: func @zero_pad
// CHECK-NOT: graph.pad
// CHECK: return %arg0
func.func @zero_pad(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %p = graph.pad %x {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, value = 0.0 : f64} : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xf32>
  return %p : tensor<1x4x6x6xf32>
}

// -----

// CHECK-LABEL: func @real_pad
// CHECK: graph.pad %arg0 {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>
func.func @real_pad(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x8x8xf32> {
  %p = graph.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.0 : f64} : tensor<1x4x6x6xf32> -> tensor<1x4x8x8xf32>
  return %p : tensor<1x4x8x8xf32>
}
