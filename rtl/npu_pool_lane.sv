// One POOL lane's fp32 arithmetic (docs/isa.md §4): the avg_float
// accumulation step, the avg_float result and the avg_int requantization.
// Combinational; npu_datapath computes every window with the same
// functions (npu_postproc_pkg).
module npu_pool_lane (
    input  logic [31:0] facc,    // avg_float running sum (fp32)
    input  logic [31:0] v,       // window element (domain value)
    input  logic [31:0] in_zp,
    input  logic [31:0] scale,   // fp32
    input  logic [31:0] div,     // fp32 divisor (window count)
    input  logic [31:0] out_scale,
    input  logic [31:0] out_zp,
    input  logic [31:0] sum,     // avg_int int32 sum (bias + elements)
    input  logic [31:0] lo,
    input  logic [31:0] hi,
    output logic [31:0] facc_next,
    output logic [31:0] avg_float,
    output logic [31:0] avg_int
);
  always_comb begin
    facc_next = npu_postproc_pkg::pool_step(facc, scale, v, in_zp);
    avg_float = npu_postproc_pkg::clampi(npu_postproc_pkg::pool_avg(facc, div, out_scale, out_zp), lo, hi);
    avg_int = npu_postproc_pkg::requantize(sum, scale, out_zp, lo, hi);
  end
endmodule
