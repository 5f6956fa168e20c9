// One vector-unit lane (VADD / VMUL, docs/isa.md §4): two domain values in,
// the clamped int32 result out (its low byte, ^ 0x80 in the u8 domain, is
// stored). Combinational; npu_datapath computes every element with the same
// functions (npu_postproc_pkg).
module npu_vector_lane (
    input  logic        is_add,
    input  logic [2:0]  mode,  // VADD evaluation order
    input  logic [31:0] av,
    input  logic [31:0] bv,
    input  logic [31:0] ratio_a,  // VADD ratio_a, VMUL ratio
    input  logic [31:0] ratio_b,
    input  logic [31:0] fixed,
    input  logic [31:0] a_zp,     // VMUL
    input  logic [31:0] b_zp,
    input  logic [31:0] o_zp,
    input  logic [31:0] lo,
    input  logic [31:0] hi,
    output logic [31:0] y
);
  always_comb begin
    if (is_add) y = npu_postproc_pkg::vadd_value(mode, av, bv, ratio_a, ratio_b, fixed);
    else y = npu_postproc_pkg::vmul_value((av - a_zp) * (bv - b_zp), ratio_a, o_zp);
    y = npu_postproc_pkg::clampi(y, lo, hi);
  end
endmodule
