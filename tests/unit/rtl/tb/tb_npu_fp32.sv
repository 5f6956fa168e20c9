// Test top for the binary32 units and the post-processor / vector / pool
// lanes: every unit on the same inputs, checked from C++ against the
// simulator's semantics (Fp32UnitsTest.cpp). Combinational.
module tb_npu_fp32 (
    input  logic [31:0] a,
    input  logic [31:0] b,
    input  logic [31:0] c,
    input  logic [31:0] d,
    input  logic [31:0] e,
    input  logic [31:0] f,
    input  logic [31:0] g,
    input  logic [31:0] h,
    input  logic [31:0] k,
    input  logic [2:0]  mode,
    input  logic        flag,
    output logic [31:0] add_y,
    output logic [31:0] mul_y,
    output logic [31:0] fma_y,
    output logic [31:0] div_y,
    output logic [31:0] itof_y,
    output logic [31:0] toint_y,
    output logic [31:0] max_y,
    output logic [31:0] min_y,
    // npu_requant_lane(acc = a, bias_en = flag, bias = b, scale = c, zp = d, lo = e, hi = f)
    output logic [31:0] rq_y,
    output logic [7:0]  rq_lut,
    // npu_vector_lane(is_add = flag, mode, av = a, bv = b, ratio_a = c, ratio_b = d,
    //                 fixed = e, a_zp = f, b_zp = g, o_zp = d, lo = h, hi = k)
    output logic [31:0] vec_y,
    // npu_pool_lane(facc = a, v = b, in_zp = c, scale = d, div = e, out_scale = f,
    //               out_zp = g, sum = a, lo = h, hi = k)
    output logic [31:0] pool_step_y,
    output logic [31:0] pool_avg_y,
    output logic [31:0] pool_int_y
);
  always_comb begin
    add_y = npu_fp32_add_pkg::fadd(a, b);
    mul_y = npu_fp32_mul_pkg::fmul(a, b);
    fma_y = npu_fp32_fma_pkg::ffma(a, b, c);
    div_y = npu_fp32_div_pkg::fdiv(a, b);
    itof_y = npu_fp32_itof_pkg::itof(a);
    toint_y = npu_fp32_toint_pkg::rne_int(a);
    max_y = npu_fp32_cmp_pkg::fmaxps(a, b);
    min_y = npu_fp32_cmp_pkg::fminps(a, b);
  end
  npu_requant_lane u_rq (
      .en(1'b1), .acc(a), .bias_en(flag), .bias(b), .scale(c), .zp(d), .lo(e), .hi(f), .y(rq_y),
      .lut_idx(rq_lut));
  npu_vector_lane u_vec (
      .en(1'b1), .is_add(flag), .mode, .av(a), .bv(b), .ratio_a(c), .ratio_b(d), .fixed(e), .a_zp(f),
      .b_zp(g), .o_zp(d), .lo(h), .hi(k), .y(vec_y));
  npu_pool_lane u_pool (
      .facc(a), .v(b), .in_zp(c), .scale(d), .div(e), .out_scale(f), .out_zp(g), .sum(a),
      .lo(h), .hi(k), .facc_next(pool_step_y), .avg_float(pool_avg_y), .avg_int(pool_int_y));
endmodule
