// RUN: systole-opt %s --convert-onnx-to-linalg | FileCheck %s

// The recurrent family's bodies (lib/Conversion/OnnxToLinalg/Recurrent.cpp).

// RNN, forward, 3 steps, hidden 4, relu with clip 2.5, output 1 (Y_h):
// one scf.for over the 3 steps carrying h [1, 4]; X_t W^T and H R^T as
// matmul_transpose_b; the sum clipped to [-2.5, 2.5] before relu; the final
// h inserted into Y_h [1, 1, 4].
// CHECK-LABEL: func.func @rnn_relu_clip
// CHECK: %[[STEPS:.*]] = arith.constant 3 : index
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[STEPS]] step %{{.*}} iter_args(%[[H:.*]] = %{{.*}}) -> (tensor<1x4xf32>)
// CHECK: tensor.extract_slice %{{.*}}[%[[T]], 0, 0] [1, 1, 2] [1, 1, 1] : tensor<3x1x2xf32> to tensor<1x2xf32>
// CHECK: linalg.matmul_transpose_b ins(%{{.*}}, %{{.*}} : tensor<1x2xf32>, tensor<4x2xf32>)
// CHECK: linalg.matmul_transpose_b ins(%[[H]], %{{.*}} : tensor<1x4xf32>, tensor<4x4xf32>)
// CHECK: %[[LO:.*]] = arith.constant -2.500000e+00 : f32
// CHECK: %[[C0:.*]] = arith.maximumf %in, %[[LO]] : f32
// CHECK: %[[HI:.*]] = arith.constant 2.500000e+00 : f32
// CHECK: %[[C:.*]] = arith.minimumf %[[C0]], %[[HI]] : f32
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %[[C]], %{{.*}} : f32
// CHECK: arith.select %[[POS]], %[[C]], %{{.*}} : f32
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0] [1, 1, 4] [1, 1, 1] : tensor<1x4xf32> into tensor<1x1x4xf32>
func.func @rnn_relu_clip(%x: tensor<3x1x2xf32>, %w: tensor<1x4x2xf32>, %r: tensor<1x4x4xf32>) -> tensor<1x1x4xf32> {
  %y = graph.host "RNN"(%x, %w, %r) attributes {params = {layout = 0 : i64, direction = "forward", clip = 2.500000e+00 : f32, linear_before_reset = false, input_forget = false, activations = ["relu"], activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, b = -1 : i64, initial_h = -1 : i64, initial_c = -1 : i64, p = -1 : i64, sequence_lens = -1 : i64, lens = array<i64: 3>, output = 1 : i64}} : (tensor<3x1x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>) -> tensor<1x1x4xf32> {
  }
  return %y : tensor<1x1x4xf32>
}

// LSTM, reverse, a runtime sequence_lens (operand 3), input_forget, output
// 2 (Y_c): each entry's first len steps reversed first (len clamped to
// [0, 2]); gates in ONNX's i, o, f, c order, so the cell update reads
// columns 0 (i), 4 (f, unused: f = 1 - i) and 6 (c) of the [2, 8] sum;
// steps past an entry's length keep its state.
// CHECK-LABEL: func.func @lstm_reverse_lens
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: arith.maxsi %{{.*}}, %[[ZERO]] : index
// CHECK: %[[SEQ:.*]] = arith.constant 2 : index
// CHECK: arith.minsi %{{.*}}, %[[SEQ]] : index
// CHECK: scf.for {{.*}} -> (tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK: tensor.extract_slice %[[PRE:.*]][0, 0] [2, 2] [1, 1] : tensor<2x8xf32> to tensor<2x2xf32>
// CHECK: tensor.extract_slice %[[PRE]][0, 4] [2, 2] [1, 1] : tensor<2x8xf32> to tensor<2x2xf32>
// CHECK: tensor.extract_slice %[[PRE]][0, 6] [2, 2] [1, 1] : tensor<2x8xf32> to tensor<2x2xf32>
// CHECK: %[[E:.*]] = math.exp
// CHECK: %[[I:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[F:.*]] = arith.subf %[[ONE]], %[[I]] : f32
// CHECK: %[[G:.*]] = math.tanh %in_10 : f32
// CHECK: %[[IG:.*]] = arith.mulf %[[I]], %[[G]] : f32
// CHECK: %[[FC:.*]] = arith.mulf %[[F]], %in_11 : f32
// CHECK: arith.addf %[[FC]], %[[IG]] : f32
// CHECK: tensor.extract_slice %[[PRE]][0, 2] [2, 2] [1, 1]
// CHECK: arith.cmpi slt
// CHECK: linalg.copy
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0] [1, 2, 2] [1, 1, 1] : tensor<2x2xf32> into tensor<1x2x2xf32>
func.func @lstm_reverse_lens(%x: tensor<2x2x3xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x8x2xf32>, %l: tensor<2xi32>) -> tensor<1x2x2xf32> {
  %y = graph.host "LSTM"(%x, %w, %r, %l) attributes {params = {layout = 0 : i64, direction = "reverse", linear_before_reset = false, input_forget = true, activations = ["sigmoid", "tanh", "tanh"], activation_alpha = array<f32: 0.0, 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0, 0.0>, b = -1 : i64, initial_h = -1 : i64, initial_c = -1 : i64, p = -1 : i64, sequence_lens = 3 : i64, lens = array<i64: 2, 2>, output = 2 : i64}} : (tensor<2x2x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, tensor<2xi32>) -> tensor<1x2x2xf32> {
  }
  return %y : tensor<1x2x2xf32>
}
