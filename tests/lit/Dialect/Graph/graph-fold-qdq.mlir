// RUN: systole-opt %s --graph-fold-qdq --split-input-file | FileCheck %s

!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-128>
!w = !quant.uniform<i8:f32:0, {0.01, 0.02}>
!b = !quant.uniform<i32:f32:0, {5.0e-4, 1.0e-3}>

// A DQ -> Conv -> Relu -> Q island becomes one quantized conv whose ReLU is
// the int8 clamp at the output zero point.
// CHECK-LABEL: func @conv_relu
// CHECK-NOT: graph.dequantize
// CHECK: %[[C:.*]] = graph.conv2d %arg0, %{{.*}}, %{{.*}} {act_min = -128 : i64, dilations
// CHECK-SAME: -> tensor<1x2x4x4x!quant.uniform<i8:f32, 1.000000e-01:-128>>
// CHECK-NOT: graph.quantize
// CHECK: return %[[C]]
func.func @conv_relu(%x: tensor<1x1x4x4x!x>) -> tensor<1x2x4x4x!y> {
  %wi = arith.constant dense<[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[-1, -2, -3], [-4, -5, -6], [-7, -8, -9]]]]> : tensor<2x1x3x3xi8>
  %wq = "quant.scast"(%wi) : (tensor<2x1x3x3xi8>) -> tensor<2x1x3x3x!w>
  %bi = arith.constant dense<[10, -10]> : tensor<2xi32>
  %bq = "quant.scast"(%bi) : (tensor<2xi32>) -> tensor<2x!b>
  %xf = graph.dequantize %x : tensor<1x1x4x4x!x> -> tensor<1x1x4x4xf32>
  %wf = graph.dequantize %wq : tensor<2x1x3x3x!w> -> tensor<2x1x3x3xf32>
  %bf = graph.dequantize %bq : tensor<2x!b> -> tensor<2xf32>
  %c = graph.conv2d %xf, %wf, %bf {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64, layout = #graph<layout nchw>} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %r = graph.clip %c {min = 0.0 : f64} : tensor<1x2x4x4xf32>
  %y = graph.quantize %r : tensor<1x2x4x4xf32> -> tensor<1x2x4x4x!y>
  return %y : tensor<1x2x4x4x!y>
}

// -----

!a = !quant.uniform<i8:f32, 0.05:-3>
!o = !quant.uniform<i8:f32, 0.025:7>

// Data movement keeps the input's parameters; differing Q parameters become
// an explicit requantize (ORT runs DQ -> Reshape -> Q in float there).
// CHECK-LABEL: func @reshape_requant
// CHECK: %[[R:.*]] = graph.reshape %arg0 : tensor<1x4x1x1x!quant.uniform<i8:f32, 5.000000e-02:-3>> -> tensor<1x4x!quant.uniform<i8:f32, 5.000000e-02:-3>>
// CHECK: graph.requantize %[[R]] : {{.*}} -> tensor<1x4x!quant.uniform<i8:f32, 2.500000e-02:7>>
func.func @reshape_requant(%x: tensor<1x4x1x1x!a>) -> tensor<1x4x!o> {
  %xf = graph.dequantize %x : tensor<1x4x1x1x!a> -> tensor<1x4x1x1xf32>
  %r = graph.reshape %xf : tensor<1x4x1x1xf32> -> tensor<1x4xf32>
  %y = graph.quantize %r : tensor<1x4xf32> -> tensor<1x4x!o>
  return %y : tensor<1x4x!o>
}

// -----

!a = !quant.uniform<i8:f32, 0.05:-3>

// Q(DQ(x)) with equal parameters disappears.
// CHECK-LABEL: func @identity_pair
// CHECK-NEXT: return %arg0
func.func @identity_pair(%x: tensor<8x!a>) -> tensor<8x!a> {
  %f = graph.dequantize %x : tensor<8x!a> -> tensor<8xf32>
  %q = graph.quantize %f : tensor<8xf32> -> tensor<8x!a>
  return %q : tensor<8x!a>
}

// -----

!a = !quant.uniform<i8:f32, 0.05:-3>

// A float result with a second user cannot fold: the float conv stays.
// CHECK-LABEL: func @shared_float_result
// CHECK: graph.add %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: graph.quantize
func.func @shared_float_result(%x: tensor<4x!a>) -> (tensor<4x!a>, tensor<4xf32>) {
  %f = graph.dequantize %x : tensor<4x!a> -> tensor<4xf32>
  %s = graph.add %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = graph.quantize %s : tensor<4xf32> -> tensor<4x!a>
  return %q, %s : tensor<4x!a>, tensor<4xf32>
}

// -----

!a = !quant.uniform<i8:f32, 0.05:-3>
!b = !quant.uniform<i8:f32, 0.1:4>

// A 1-D convolution imported as a 2-D one is reshaped back before its ReLU
// and Q: the reshape sinks below both (they are elementwise), so the add
// meets its Q, folds with the ReLU as act_min, and the reshape moves the
// quantized result.
// CHECK-LABEL: func @reshape_below_clip_and_q
// CHECK: %[[S:.*]] = graph.add %arg0, %arg0 {act_min = 4 : i64} : (tensor<1x4x1x2x!quant.uniform<i8:f32, 5.000000e-02:-3>>, tensor<1x4x1x2x!quant.uniform<i8:f32, 5.000000e-02:-3>>) -> tensor<1x4x1x2x!quant.uniform<i8:f32, 1.000000e-01:4>>
// CHECK: %[[R:.*]] = graph.reshape %[[S]] : tensor<1x4x1x2x!quant.uniform<i8:f32, 1.000000e-01:4>> -> tensor<1x4x2x!quant.uniform<i8:f32, 1.000000e-01:4>>
// CHECK: return %[[R]]
func.func @reshape_below_clip_and_q(%x: tensor<1x4x1x2x!a>) -> tensor<1x4x2x!b> {
  %f = graph.dequantize %x : tensor<1x4x1x2x!a> -> tensor<1x4x1x2xf32>
  %s = graph.add %f, %f : (tensor<1x4x1x2xf32>, tensor<1x4x1x2xf32>) -> tensor<1x4x1x2xf32>
  %r = graph.reshape %s : tensor<1x4x1x2xf32> -> tensor<1x4x2xf32>
  %c = graph.clip %r {min = 0.0 : f64} : tensor<1x4x2xf32>
  %q = graph.quantize %c : tensor<1x4x2xf32> -> tensor<1x4x2x!b>
  return %q : tensor<1x4x2x!b>
}

// -----

// A Pad between DQ and Q: its value becomes the stored integer it
// quantizes to (0.0 -> the zero point -3). Requantized to other parameters,
// a value the input's quantization represents (0.5 = 10 steps of 0.05)
// still folds; 0.07 (1.4 steps) stays a float pad, as ORT quantizes the
// value itself.
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-128>
// CHECK-LABEL: func @pad_value
// CHECK: %[[D:.*]] = graph.dequantize %arg0
// CHECK: graph.pad %arg0 {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = -3.000000e+00 : f64} : tensor<1x1x2x2x!quant.uniform<i8:f32, 5.000000e-02:-3>>
// CHECK: graph.pad %arg0 {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 7.000000e+00 : f64}
// CHECK-NEXT: graph.requantize
// CHECK: graph.pad %[[D]] {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 7.000000e-02 : f64} : tensor<1x1x2x2xf32>
// CHECK-NEXT: graph.quantize
func.func @pad_value(%x: tensor<1x1x2x2x!x>) -> (tensor<1x1x4x4x!x>, tensor<1x1x4x4x!y>, tensor<1x1x4x4x!y>) {
  %xf = graph.dequantize %x : tensor<1x1x2x2x!x> -> tensor<1x1x2x2xf32>
  %p0 = graph.pad %xf {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.0 : f64} : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
  %q0 = graph.quantize %p0 : tensor<1x1x4x4xf32> -> tensor<1x1x4x4x!x>
  %p1 = graph.pad %xf {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.5 : f64} : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
  %q1 = graph.quantize %p1 : tensor<1x1x4x4xf32> -> tensor<1x1x4x4x!y>
  %p2 = graph.pad %xf {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.07 : f64} : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
  %q2 = graph.quantize %p2 : tensor<1x1x4x4xf32> -> tensor<1x1x4x4x!y>
  return %q0, %q1, %q2 : tensor<1x1x4x4x!x>, tensor<1x1x4x4x!y>, tensor<1x1x4x4x!y>
}

// -----

// DequantizeLinear -> LayerNormalization -> QuantizeLinear is one layer
// norm from codes to codes (the NPU's VLAYERNORM); scale and bias stay
// float, and the dequantize stays for its other reader (the residual).
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.02:5>
// CHECK-LABEL: func @layer_norm_island
// CHECK: %[[DQ:.*]] = graph.dequantize %arg0
// CHECK: %[[LN:.*]] = graph.layer_norm %arg0, %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<4x8x!quant.uniform<i8:f32, 5.000000e-02:-3>>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8x!quant.uniform<i8:f32, 2.000000e-02:5>>
// CHECK-NOT: graph.quantize
// CHECK: return %[[LN]], %[[DQ]]
func.func @layer_norm_island(%x: tensor<4x8x!x>) -> (tensor<4x8x!y>, tensor<4x8xf32>) {
  %s = arith.constant dense<1.5> : tensor<8xf32>
  %b = arith.constant dense<0.25> : tensor<8xf32>
  %f = graph.dequantize %x : tensor<4x8x!x> -> tensor<4x8xf32>
  %n = graph.layer_norm %f, %s, %b {axis = 1 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %q = graph.quantize %n : tensor<4x8xf32> -> tensor<4x8x!y>
  return %q, %f : tensor<4x8x!y>, tensor<4x8xf32>
}

// -----

// A layer norm whose float result has another reader stays float.
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.02:5>
// CHECK-LABEL: func @layer_norm_read_twice
// CHECK: graph.layer_norm %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: graph.quantize
func.func @layer_norm_read_twice(%x: tensor<4x8x!x>) -> (tensor<4x8x!y>, tensor<4x8xf32>) {
  %s = arith.constant dense<1.5> : tensor<8xf32>
  %f = graph.dequantize %x : tensor<4x8x!x> -> tensor<4x8xf32>
  %n = graph.layer_norm %f, %s {axis = 1 : i64, epsilon = 1.0E-5 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %q = graph.quantize %n : tensor<4x8xf32> -> tensor<4x8x!y>
  return %q, %n : tensor<4x8x!y>, tensor<4x8xf32>
}

// -----

// An exporter's LayerNorm at opset 13 (ReduceMean, Sub, ..., Div), each step
// between a DequantizeLinear and a QuantizeLinear: ORT fuses none of them,
// so each folds into one op from codes to codes that means its island. A
// float reshape between a dequantize and its reader moves behind the
// dequantize (onto the codes), so the mean meets its DQ.
!x = !quant.uniform<i8:f32, 0.05:-3>
!m = !quant.uniform<i8:f32, 0.02:5>
!d = !quant.uniform<i8:f32, 0.1:-1>
!s = !quant.uniform<i8:f32, 0.01:-128>
// CHECK-LABEL: func @decomposed_norm_steps
// CHECK: %[[V:.*]] = graph.reshape %arg0 : tensor<4x1x8x!quant.uniform<i8:f32, 5.000000e-02:-3>> -> tensor<1x4x8x!quant.uniform<i8:f32, 5.000000e-02:-3>>
// CHECK: %[[M:.*]] = graph.reduce "mean" %[[V]] {axes = array<i64: 2>, keepdims = true} : tensor<1x4x8x!quant.uniform<i8:f32, 5.000000e-02:-3>> -> tensor<1x4x1x!quant.uniform<i8:f32, 2.000000e-02:5>>
// CHECK: %[[MR:.*]] = graph.reshape %[[M]] : {{.*}} -> tensor<4x1x1x!quant.uniform<i8:f32, 2.000000e-02:5>>
// CHECK: %[[D:.*]] = graph.sub %arg0, %[[MR]] : (tensor<4x1x8x!quant.uniform<i8:f32, 5.000000e-02:-3>>, tensor<4x1x1x!quant.uniform<i8:f32, 2.000000e-02:5>>) -> tensor<4x1x8x!quant.uniform<i8:f32, 1.000000e-01:-1>>
// CHECK: %[[Q:.*]] = graph.div %[[D]], %arg1 : (tensor<4x1x8x!quant.uniform<i8:f32, 1.000000e-01:-1>>, tensor<4x1x1x!quant.uniform<i8:f32, 1.000000e-02:-128>>) -> tensor<4x1x8x!quant.uniform<i8:f32, 1.000000e-01:-1>>
// CHECK-NOT: graph.quantize
// CHECK: return %[[Q]]
func.func @decomposed_norm_steps(%x: tensor<4x1x8x!x>, %sd: tensor<4x1x1x!s>) -> tensor<4x1x8x!d> {
  %f = graph.dequantize %x : tensor<4x1x8x!x> -> tensor<4x1x8xf32>
  %v = graph.reshape %f : tensor<4x1x8xf32> -> tensor<1x4x8xf32>
  %m = graph.reduce "mean" %v {axes = array<i64: 2>, keepdims = true} : tensor<1x4x8xf32> -> tensor<1x4x1xf32>
  %mq = graph.quantize %m : tensor<1x4x1xf32> -> tensor<1x4x1x!m>
  %mf = graph.dequantize %mq : tensor<1x4x1x!m> -> tensor<1x4x1xf32>
  %mr = graph.reshape %mf : tensor<1x4x1xf32> -> tensor<4x1x1xf32>
  %d = graph.sub %f, %mr : (tensor<4x1x8xf32>, tensor<4x1x1xf32>) -> tensor<4x1x8xf32>
  %dq = graph.quantize %d : tensor<4x1x8xf32> -> tensor<4x1x8x!d>
  %df = graph.dequantize %dq : tensor<4x1x8x!d> -> tensor<4x1x8xf32>
  %sf = graph.dequantize %sd : tensor<4x1x1x!s> -> tensor<4x1x1xf32>
  %n = graph.div %df, %sf : (tensor<4x1x8xf32>, tensor<4x1x1xf32>) -> tensor<4x1x8xf32>
  %nq = graph.quantize %n : tensor<4x1x8xf32> -> tensor<4x1x8x!d>
  return %nq : tensor<4x1x8x!d>
}

// -----

// A sub whose float result has another reader, a max (not a sum), a sub
// of a float constant (a table's business, npu-fold-tables) and a sub of
// values computed from constants only (folded later with their readers, as
// Swin's attention masks) stay float.
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-1>
// CHECK-LABEL: func @float_steps_that_stay
// CHECK: %[[K:.*]] = "quant.scast"
// CHECK: %[[KF:.*]] = graph.dequantize %[[K]]
// CHECK: %[[KG:.*]] = graph.dequantize %[[K]]
// CHECK: graph.sub %[[KF]], %[[KG]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: graph.sub %{{.*}} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: graph.reduce "max" %{{.*}} : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK: graph.sub %{{.*}} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
func.func @float_steps_that_stay(%x: tensor<4x8x!x>, %y: tensor<4x8x!x>) -> (tensor<4x8x!y>, tensor<4x8xf32>, tensor<4x1x!y>, tensor<4x8x!y>, tensor<4x8x!y>) {
  %c = arith.constant dense<0.5> : tensor<f32>
  %k = arith.constant dense<3> : tensor<4x8xi8>
  %kq = "quant.scast"(%k) : (tensor<4x8xi8>) -> tensor<4x8x!x>
  %kr = graph.reshape %kq : tensor<4x8x!x> -> tensor<4x8x!x>
  %kf = graph.dequantize %kr : tensor<4x8x!x> -> tensor<4x8xf32>
  %kg = graph.dequantize %kq : tensor<4x8x!x> -> tensor<4x8xf32>
  %kd = graph.sub %kf, %kg : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %kdq = graph.quantize %kd : tensor<4x8xf32> -> tensor<4x8x!y>
  %f = graph.dequantize %x : tensor<4x8x!x> -> tensor<4x8xf32>
  %g = graph.dequantize %y : tensor<4x8x!x> -> tensor<4x8xf32>
  %d = graph.sub %f, %g : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %dq = graph.quantize %d : tensor<4x8xf32> -> tensor<4x8x!y>
  %m = graph.reduce "max" %f {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %mq = graph.quantize %m : tensor<4x1xf32> -> tensor<4x1x!y>
  %e = graph.sub %f, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %eq = graph.quantize %e : tensor<4x8xf32> -> tensor<4x8x!y>
  return %dq, %d, %mq, %eq, %kdq : tensor<4x8x!y>, tensor<4x8xf32>, tensor<4x1x!y>, tensor<4x8x!y>, tensor<4x8x!y>
}

// -----

// A Gather of one constant index is the slice of that index (a scalar index
// drops the axis: a reshape), data movement between the DQ and the Q: Swin
// picks q, k and v out of one tensor so. (The host body is not read.)
!x = !quant.uniform<i8:f32, 0.05:-3>
// CHECK-LABEL: func @gather_one_index
// CHECK: %[[S:.*]] = graph.slice %arg0 {offsets = array<i64: 2, 0, 0>, strides = array<i64: 1, 1, 1>} : tensor<3x4x8x!quant.uniform<i8:f32, 5.000000e-02:-3>> -> tensor<1x4x8x!quant.uniform<i8:f32, 5.000000e-02:-3>>
// CHECK: %[[R:.*]] = graph.reshape %[[S]] : tensor<1x4x8x!quant.uniform<i8:f32, 5.000000e-02:-3>> -> tensor<4x8x!quant.uniform<i8:f32, 5.000000e-02:-3>>
// CHECK-NOT: graph.host
// CHECK: return %[[R]]
func.func @gather_one_index(%x: tensor<3x4x8x!x>) -> tensor<4x8x!x> {
  %i = arith.constant dense<-1> : tensor<i64>
  %f = graph.dequantize %x : tensor<3x4x8x!x> -> tensor<3x4x8xf32>
  %g = graph.host "Gather"(%f, %i) attributes {params = {axis = 0 : i64}} : (tensor<3x4x8xf32>, tensor<i64>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<3x4x8xf32>, %b: tensor<i64>):
    %e = tensor.empty() : tensor<4x8xf32>
    graph.yield %e : tensor<4x8xf32>
  }
  %q = graph.quantize %g : tensor<4x8xf32> -> tensor<4x8x!x>
  return %q : tensor<4x8x!x>
}

// -----

// DQ(a) + c with c an fp32 tensor computed from constants (Swin's relative
// position bias, here a transpose of a constant) folds into an add of the
// codes and c (VBINARY's fp32 B); c first in an add swaps (IEEE add
// commutes), c first in a sub does not fold, nor does a c with one value
// per channel (a table of the codes, npu-fold-tables).
!x = !quant.uniform<i8:f32, 0.05:-3>
!y = !quant.uniform<i8:f32, 0.1:-1>
// CHECK-LABEL: func @float_constant_operand
// CHECK: %[[C:.*]] = graph.transpose
// CHECK: graph.add %arg0, %[[C]] : (tensor<2x4x8x!quant.uniform<i8:f32, 5.000000e-02:-3>>, tensor<4x8xf32>) -> tensor<2x4x8x!quant.uniform<i8:f32, 1.000000e-01:-1>>
// CHECK: graph.mul %arg0, %[[C]] : (tensor<2x4x8x!quant.uniform<i8:f32, 5.000000e-02:-3>>, tensor<4x8xf32>) -> tensor<2x4x8x!quant.uniform<i8:f32, 1.000000e-01:-1>>
// CHECK: graph.sub %[[C]], %{{.*}} : (tensor<4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK: graph.add %{{.*}}, %{{.*}} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
func.func @float_constant_operand(%x: tensor<2x4x8x!x>) -> (tensor<2x4x8x!y>, tensor<2x4x8x!y>, tensor<2x4x8x!y>, tensor<2x4x8x!y>) {
  %k = arith.constant dense<0.25> : tensor<8x4xf32>
  %c = graph.transpose %k {perm = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  %v = arith.constant dense<0.5> : tensor<8xf32>
  %f = graph.dequantize %x : tensor<2x4x8x!x> -> tensor<2x4x8xf32>
  %a = graph.add %f, %c : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %aq = graph.quantize %a : tensor<2x4x8xf32> -> tensor<2x4x8x!y>
  %f2 = graph.dequantize %x : tensor<2x4x8x!x> -> tensor<2x4x8xf32>
  %m = graph.mul %c, %f2 : (tensor<4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %mq = graph.quantize %m : tensor<2x4x8xf32> -> tensor<2x4x8x!y>
  %f3 = graph.dequantize %x : tensor<2x4x8x!x> -> tensor<2x4x8xf32>
  %s = graph.sub %c, %f3 : (tensor<4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %sq = graph.quantize %s : tensor<2x4x8xf32> -> tensor<2x4x8x!y>
  %f4 = graph.dequantize %x : tensor<2x4x8x!x> -> tensor<2x4x8xf32>
  %p = graph.add %f4, %v : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %pq = graph.quantize %p : tensor<2x4x8xf32> -> tensor<2x4x8x!y>
  return %aq, %mq, %sq, %pq : tensor<2x4x8x!y>, tensor<2x4x8x!y>, tensor<2x4x8x!y>, tensor<2x4x8x!y>
}
