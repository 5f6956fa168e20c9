// RUN: systole-opt %s --convert-graph-to-linalg --verify-diagnostics --split-input-file

// The host runs float32 only: quantized values cross through dequantize.
func.func @quantized_add(%a: tensor<4x!quant.uniform<i8:f32, 0.5>>, %b: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{failed to legalize operation 'graph.add'}}
  %0 = graph.add %a, %b : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}
