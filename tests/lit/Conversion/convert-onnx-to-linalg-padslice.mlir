// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The pad/slice family's bodies (lib/Conversion/OnnxToLinalg/PadSlice.cpp).

// CHECK-DAG: #[[REV:.*]] = affine_map<(d0) -> (d0 * -2 + 4)>

// Pad, reflect, 2 columns on each side of 3: the source column o - 2 is
// mirrored with period 2 * (3 - 1) = 4 (m = (o - 2) rem 4, made positive,
// then 4 - m above the last column 2) and clamped; no constant is selected.
// CHECK-LABEL: func.func @pad_reflect
// CHECK: %[[O:.*]] = linalg.index 1 : index
// CHECK: %[[LOW:.*]] = arith.constant 2 : index
// CHECK: %[[SRC:.*]] = arith.subi %[[O]], %[[LOW]] : index
// CHECK: %[[P:.*]] = arith.constant 4 : index
// CHECK: %[[M:.*]] = arith.remsi %[[SRC]], %[[P]] : index
// CHECK: %[[POS:.*]] = arith.select %{{.*}}, %{{.*}}, %[[M]] : index
// CHECK: %[[HIGH:.*]] = arith.cmpi sgt, %[[POS]], %{{.*}} : index
// CHECK: %[[MIR:.*]] = arith.subi %[[P]], %[[POS]] : index
// CHECK: arith.select %[[HIGH]], %[[MIR]], %[[POS]] : index
// CHECK: %[[X:.*]] = tensor.extract
// CHECK-NOT: arith.select
// CHECK: linalg.yield %[[X]] : i32
func.func @pad_reflect(%x: tensor<1x3xi32>) -> tensor<1x7xi32> {
  %y = graph.host "Pad"(%x) attributes {params = {mode = "reflect", pads = array<i64: 0, 2, 0, 2>, value = 0.0 : f64}} : (tensor<1x3xi32>) -> tensor<1x7xi32> {
  }
  return %y : tensor<1x7xi32>
}

// Slice with step -2 from 4: the importer's read map 4 - 2i.
// CHECK-LABEL: func.func @slice_reversed
// CHECK: linalg.generic {indexing_maps = [#[[REV]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}} : tensor<5xi64>) outs(%{{.*}} : tensor<2xi64>)
func.func @slice_reversed(%x: tensor<5xi64>) -> tensor<2xi64> {
  %y = graph.host "Slice"(%x) attributes {params = {map = affine_map<(d0) -> (d0 * -2 + 4)>}} : (tensor<5xi64>) -> tensor<2xi64> {
  }
  return %y : tensor<2xi64>
}
