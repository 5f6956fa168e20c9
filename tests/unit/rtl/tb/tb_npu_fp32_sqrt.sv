// Test top for npu_fp32_sqrt_pkg::fsqrt alone (Fp32UnitsTest.cpp sweeps
// millions of operands; beside the other units each eval would pay for all).
module tb_npu_fp32_sqrt (
    input  logic [31:0] a,
    output logic [31:0] y
);
  assign y = npu_fp32_sqrt_pkg::fsqrt(a);
endmodule
