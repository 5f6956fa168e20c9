// RUN: systole-opt %s --npu-partition | FileCheck %s

!f = !quant.uniform<i8:f32, 0.05:-3>
// Quantize/dequantize at the boundary run on the host; the add on the NPU.
// CHECK-LABEL: func @boundary
// CHECK: graph.quantize {{.*}}npu.placement = #npu<placement host>
// CHECK: graph.add {{.*}}npu.placement = #npu<placement npu>
// CHECK: graph.dequantize {{.*}}npu.placement = #npu<placement host>
func.func @boundary(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %q = graph.quantize %x : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!f>
  %a = graph.add %q, %q : (tensor<1x4x4x8x!f>, tensor<1x4x4x8x!f>) -> tensor<1x4x4x8x!f>
  %d = graph.dequantize %a : tensor<1x4x4x8x!f> -> tensor<1x4x4x8xf32>
  return %d : tensor<1x4x4x8xf32>
}

// A quantized op the NPU rejects (an add broadcast along H) runs on the host in
// float: its activation is dequantized by a builtin, its constant operand at
// compile time ((q - zp) * scale = (5 + 3) * 0.05 = 0.4), and the float
// result quantized back to the op's type. The NPU's rejection is kept as
// npu.host_reason for the compile report's list of host ops.
!g = !quant.uniform<i8:f32, 0.1:2>
// CHECK-LABEL: func @quantized_on_host
// CHECK-DAG: %[[C:.*]] = arith.constant dense<4.000000e-01> : tensor<1x4x1x1xf32>
// CHECK-DAG: %[[D:.*]] = graph.dequantize %arg0 {npu.placement = #npu<placement host>} : tensor<1x4x4x8x!quant.uniform<i8:f32, 5.000000e-02:-3>> -> tensor<1x4x4x8xf32>
// CHECK: %[[S:.*]] = graph.add %[[D]], %[[C]] {npu.host_reason = "broadcasting add/mul is supported on the NPU for a per-channel vector or a scalar operand only (runs in float)", npu.placement = #npu<placement host>} : (tensor<1x4x4x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x4x8xf32>
// CHECK: %[[Q:.*]] = graph.quantize %[[S]] {npu.placement = #npu<placement host>} : tensor<1x4x4x8xf32> -> tensor<1x4x4x8x!quant.uniform<i8:f32, 1.000000e-01:2>>
// CHECK: return %[[Q]]
// CHECK-NOT: graph.add
func.func @quantized_on_host(%a: tensor<1x4x4x8x!f>) -> tensor<1x4x4x8x!g> {
  %c = arith.constant dense<5> : tensor<1x4x1x1xi8>
  %b = "quant.scast"(%c) : (tensor<1x4x1x1xi8>) -> tensor<1x4x1x1x!f>
  %y = graph.add %a, %b : (tensor<1x4x4x8x!f>, tensor<1x4x1x1x!f>) -> tensor<1x4x4x8x!g>
  return %y : tensor<1x4x4x8x!g>
}

// A graph.host op (an ONNX op written in upstream dialects at import) runs
// on the host whatever its element types; the ops of its region are not
// partitioned themselves.
// CHECK-LABEL: func @host_region
// CHECK: graph.host "Equal"({{.*}}) attributes {npu.host_reason = "no NPU lowering for this op", npu.placement = #npu<placement host>}
// CHECK-NOT: npu.placement
// CHECK: return
func.func @host_region(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi1> {
  %r = graph.host "Equal"(%a, %b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1> {
  ^bb0(%x: tensor<4xi64>, %y: tensor<4xi64>):
    %e = tosa.equal %x, %y : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    graph.yield %e : tensor<4xi1>
  }
  return %r : tensor<4xi1>
}

// A fused activation clamp of a quantized op that runs on the host in float
// becomes a float clip at the real values of its bounds, before the
// quantize: act_min -3 -> (-3 - -3) * 0.05 = 0, act_max 127 -> 6.5. (The
// add broadcasts along H, which the vector unit does not do.)
!c = !quant.uniform<i8:f32, 0.05:-3>
// CHECK-LABEL: func @clamped_on_host
// CHECK: %[[S:.*]] = graph.add %{{.*}}, %{{.*}} {npu.host_reason = "broadcasting add/mul is supported on the NPU for a per-channel vector or a scalar operand only (runs in float)", npu.placement = #npu<placement host>} : (tensor<1x4x4x8xf32>, tensor<1x4x1x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK: %[[C:.*]] = graph.clip %[[S]] {max = 6.500000e+00 : f64, min = 0.000000e+00 : f64, npu.placement = #npu<placement host>}
// CHECK: graph.quantize %[[C]] {npu.placement = #npu<placement host>}
func.func @clamped_on_host(%a: tensor<1x4x4x8x!c>, %b: tensor<1x4x1x8x!c>) -> tensor<1x4x4x8x!c> {
  %y = graph.add %a, %b {act_min = -3 : i64, act_max = 127 : i64} : (tensor<1x4x4x8x!c>, tensor<1x4x1x8x!c>) -> tensor<1x4x4x8x!c>
  return %y : tensor<1x4x4x8x!c>
}

// A requantize between two parameter sets (Q(DQ(x)) with different
// parameters) is ONNX's float round trip: a builtin dequantize and quantize.
!r1 = !quant.uniform<i8:f32, 0.05:-3>
!r2 = !quant.uniform<u8:f32, 0.1:128>
// CHECK-LABEL: func @requantize
// CHECK: %[[D:.*]] = graph.dequantize %arg0 {npu.placement = #npu<placement host>} : tensor<2x8x!quant.uniform<i8:f32, 5.000000e-02:-3>> -> tensor<2x8xf32>
// CHECK: %[[Q:.*]] = graph.quantize %[[D]] {npu.placement = #npu<placement host>} : tensor<2x8xf32> -> tensor<2x8x!quant.uniform<u8:f32, 1.000000e-01:128>>
// CHECK: return %[[Q]]
func.func @requantize(%a: tensor<2x8x!r1>) -> tensor<2x8x!r2> {
  %y = graph.requantize %a : tensor<2x8x!r1> -> tensor<2x8x!r2>
  return %y : tensor<2x8x!r2>
}

// Grouped convolutions (1 < group < channels, and depthwise with a channel
// multiplier) run on the NPU's array, group by group.
!gx = !quant.uniform<i8:f32, 0.05:-3>
!gw = !quant.uniform<i8:f32, 0.01>
// CHECK-LABEL: func @grouped_conv
// CHECK: graph.conv2d {{.*}}group = 2 : i64{{.*}}npu.placement = #npu<placement npu>
// CHECK: graph.conv2d {{.*}}group = 4 : i64{{.*}}npu.placement = #npu<placement npu>
func.func @grouped_conv(%x: tensor<1x4x4x4x!gx>) -> tensor<1x4x4x8x!gx> {
  %wi = arith.constant dense<1> : tensor<1x1x2x4xi8>
  %w = "quant.scast"(%wi) : (tensor<1x1x2x4xi8>) -> tensor<1x1x2x4x!gw>
  %c = graph.conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 2 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x4x!gx>, tensor<1x1x2x4x!gw>) -> tensor<1x4x4x4x!gx>
  %vi = arith.constant dense<1> : tensor<1x1x1x8xi8>
  %v = "quant.scast"(%vi) : (tensor<1x1x1x8xi8>) -> tensor<1x1x1x8x!gw>
  %d = graph.conv2d %c, %v {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 4 : i64, layout = #graph<layout nhwc>} : (tensor<1x4x4x4x!gx>, tensor<1x1x1x8x!gw>) -> tensor<1x4x4x8x!gx>
  return %d : tensor<1x4x4x8x!gx>
}

// Broadcasting add/mul on the vector unit: a per-channel vector [1,1,1,C]
// or a scalar against an NHWC tensor runs on the NPU; other broadcasts, and
// constant operands, do not.
!bx = !quant.uniform<i8:f32, 0.05:-3>
!bs = !quant.uniform<i8:f32, 0.02:4>
// CHECK-LABEL: func @broadcast_binary
// CHECK: graph.mul {{.*}}npu.placement = #npu<placement npu>
// CHECK: graph.add {{.*}}npu.placement = #npu<placement npu>
// CHECK: graph.add {{.*}}npu.placement = #npu<placement npu>
// CHECK: graph.dequantize
// CHECK: graph.add {{.*}}npu.placement = #npu<placement host>
func.func @broadcast_binary(%x: tensor<1x4x4x8x!bx>, %s: tensor<1x1x1x8x!bs>, %t: tensor<1x1x1x1x!bs>, %r: tensor<1x4x1x8x!bs>) -> (tensor<1x4x4x8x!bx>, tensor<1x4x4x8x!bx>, tensor<1x4x4x8x!bx>, tensor<1x4x4x8x!bx>) {
  %m = graph.mul %x, %s : (tensor<1x4x4x8x!bx>, tensor<1x1x1x8x!bs>) -> tensor<1x4x4x8x!bx>
  %a = graph.add %s, %x : (tensor<1x1x1x8x!bs>, tensor<1x4x4x8x!bx>) -> tensor<1x4x4x8x!bx>
  %b = graph.add %x, %t : (tensor<1x4x4x8x!bx>, tensor<1x1x1x1x!bs>) -> tensor<1x4x4x8x!bx>
  %c = graph.add %x, %r : (tensor<1x4x4x8x!bx>, tensor<1x4x1x8x!bs>) -> tensor<1x4x4x8x!bx>
  return %m, %a, %b, %c : tensor<1x4x4x8x!bx>, tensor<1x4x4x8x!bx>, tensor<1x4x4x8x!bx>, tensor<1x4x4x8x!bx>
}

// A product of two activations (attention's Q x K^T) runs on the array:
// the rhs is read from DRAM like the lhs (issue 16).
!h = !quant.uniform<i8:f32, 0.4:-2>
// CHECK-LABEL: func @matmul_of_activations
// CHECK: graph.matmul {{.*}}npu.placement = #npu<placement npu>
func.func @matmul_of_activations(%q: tensor<2x8x16x!f>, %kt: tensor<2x16x8x!f>) -> tensor<2x8x8x!h> {
  %s = graph.matmul %q, %kt : (tensor<2x8x16x!f>, tensor<2x16x8x!f>) -> tensor<2x8x8x!h>
  return %s : tensor<2x8x8x!h>
}

// An add of an activation and a constant (a bias initializer) runs on the
// vector unit: the constant goes to the constant pool.
// CHECK-LABEL: func @add_constant_on_npu
// CHECK: graph.add {{.*}}npu.placement = #npu<placement npu>
func.func @add_constant_on_npu(%a: tensor<1x4x4x8x!f>) -> tensor<1x4x4x8x!g> {
  %c = arith.constant dense<5> : tensor<1x1x1x8xi8>
  %b = "quant.scast"(%c) : (tensor<1x1x1x8xi8>) -> tensor<1x1x1x8x!f>
  %y = graph.add %a, %b : (tensor<1x4x4x8x!f>, tensor<1x1x1x8x!f>) -> tensor<1x4x4x8x!g>
  return %y : tensor<1x4x4x8x!g>
}

// A quantized constant Pad of H and W runs on the NPU (a DMA copy with the
// padding, issue 16); one that pads the channels stays on the host (in
// float, between a dequantize and a quantize) and says why.
// CHECK-LABEL: func @pad_on_npu
// CHECK: graph.pad %arg0 {{.*}}npu.placement = #npu<placement npu>
// CHECK: graph.pad {{.*}}npu.host_reason = "Pad on the NPU pads the two middle dimensions (H and W) only (runs in float)", npu.placement = #npu<placement host>{{.*}}value = 0.30000001192092896
func.func @pad_on_npu(%a: tensor<1x4x4x8x!f>) -> (tensor<1x5x7x8x!f>, tensor<1x4x4x9x!f>) {
  %p = graph.pad %a {pads = array<i64: 0, 1, 2, 0, 0, 0, 1, 0>, value = 3.0 : f64} : tensor<1x4x4x8x!f> -> tensor<1x5x7x8x!f>
  %c = graph.pad %a {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 1>, value = 3.0 : f64} : tensor<1x4x4x8x!f> -> tensor<1x4x4x9x!f>
  return %p, %c : tensor<1x5x7x8x!f>, tensor<1x4x4x9x!f>
}

// A quantized softmax (QLinearSoftmax) over trailing axes is the NPU's
// (VSOFTMAX); over a middle axis its rows are not contiguous: host code.
// CHECK-LABEL: func @softmax_axes
// CHECK: graph.host "QLinearSoftmax"(%arg0) attributes {npu.placement = #npu<placement npu>
// CHECK: graph.host "QLinearSoftmax"(%arg0) attributes {npu.host_reason = "QLinearSoftmax on the NPU takes rows along the trailing axes only", npu.placement = #npu<placement host>
!sx = !quant.uniform<i8:f32, 0.05:3>
!sy = !quant.uniform<i8:f32, 0.00390625:-128>
func.func @softmax_axes(%x: tensor<2x3x5x!sx>) -> (tensor<2x3x5x!sy>, tensor<2x3x5x!sy>) {
  %a = graph.host "QLinearSoftmax"(%x) attributes {params = {axes = array<i64: 2>, x_scale = 5.000000e-02 : f32, y_scale = 3.906250e-03 : f32, y_zero_point = -128 : i64, signed = true}} : (tensor<2x3x5x!sx>) -> tensor<2x3x5x!sy> {}
  %b = graph.host "QLinearSoftmax"(%x) attributes {params = {axes = array<i64: 1>, x_scale = 5.000000e-02 : f32, y_scale = 3.906250e-03 : f32, y_zero_point = -128 : i64, signed = true}} : (tensor<2x3x5x!sx>) -> tensor<2x3x5x!sy> {}
  return %a, %b : tensor<2x3x5x!sy>, tensor<2x3x5x!sy>
}

// A quantized layer norm with constant float scale and bias is the NPU's
// (VLAYERNORM); with a computed scale it runs on the host in float between
// a dequantize and a quantize, and says why.
// CHECK-LABEL: func @layer_norm_placement
// CHECK: graph.layer_norm %arg0, %{{.*}} {{.*}}npu.placement = #npu<placement npu>
// CHECK: graph.dequantize %arg0 {{.*}}npu.placement = #npu<placement host>
// CHECK: graph.layer_norm {{.*}}npu.host_reason = "layer norm on the NPU needs constant float32 scale and bias (runs in float)", npu.placement = #npu<placement host>
// CHECK: graph.quantize {{.*}}npu.placement = #npu<placement host>
!lx = !quant.uniform<i8:f32, 0.05:-3>
!ly = !quant.uniform<i8:f32, 0.02:5>
func.func @layer_norm_placement(%x: tensor<3x8x!lx>, %s2: tensor<8xf32>) -> (tensor<3x8x!ly>, tensor<3x8x!ly>) {
  %s = arith.constant dense<1.5> : tensor<8xf32>
  %a = graph.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0E-5 : f64} : (tensor<3x8x!lx>, tensor<8xf32>) -> tensor<3x8x!ly>
  %b = graph.layer_norm %x, %s2 {axis = 1 : i64, epsilon = 1.0E-5 : f64} : (tensor<3x8x!lx>, tensor<8xf32>) -> tensor<3x8x!ly>
  return %a, %b : tensor<3x8x!ly>, tensor<3x8x!ly>
}
