// One vector-unit lane (VADD / VMUL, docs/isa.md §4): two domain values in,
// the clamped int32 result out (its low byte, ^ 0x80 in the u8 domain, is
// stored). Combinational; npu_datapath computes every element with the same
// functions (npu_postproc_pkg).
module npu_vector_lane (
    input  logic        en,     // a beat uses the lane this cycle
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
  // One fma chain for both (npu_postproc_pkg::fma_chain): VMUL's operands
  // enter where VADD's do, so the lane has four fma units, not one per
  // operation of each order.
  // Idle lanes output zero (see npu_requant_lane).
  always_comb
    y = en ? npu_postproc_pkg::clampi(npu_postproc_pkg::vector_value(
        is_add, mode, av, bv, ratio_a, ratio_b, fixed, a_zp, b_zp, o_zp), lo, hi) : '0;
endmodule
