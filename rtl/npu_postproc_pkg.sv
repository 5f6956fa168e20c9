// The per-element value functions of the post-processor and the vector unit
// (docs/isa.md §4), composed from the binary32 units. npu_datapath calls
// them for every element; npu_requant_lane, npu_vector_lane and
// npu_pool_lane wrap them as modules (Yosys synthesis, testbenches).
// Integers are int32 bit patterns with wraparound.
package npu_postproc_pkg;
  // REQUANT and avg_int POOL: fl(fl(float(v)) * s), clamp to
  // [lo - zp, hi - zp] in fp32 (max then min, so NaN becomes lo - zp),
  // cvtps2dq, + zp.
  function automatic logic [31:0] requantize(input logic [31:0] v, input logic [31:0] scale,
                                             input logic [31:0] zp, input logic [31:0] lo,
                                             input logic [31:0] hi);
    logic [31:0] f;
    f = npu_fp32_mul_pkg::fmul(npu_fp32_itof_pkg::itof(v), scale);
    f = npu_fp32_cmp_pkg::fminps(npu_fp32_cmp_pkg::fmaxps(f, npu_fp32_itof_pkg::itof(lo - zp)),
                                 npu_fp32_itof_pkg::itof(hi - zp));
    requantize = npu_fp32_toint_pkg::rne_int(f) + zp;
  endfunction

  // min(max(v, lo), hi) on signed int32 (lo > hi gives hi).
  function automatic logic [31:0] clampi(input logic [31:0] v, input logic [31:0] lo,
                                         input logic [31:0] hi);
    logic [31:0] m;
    m = ($signed(v) > $signed(lo)) ? v : lo;
    clampi = ($signed(m) < $signed(hi)) ? m : hi;
  endfunction

  // VADD: t in the fp32 evaluation order of the mode (a, b: the domain
  // values as int32), then cvtps2dq.
  function automatic logic [31:0] vadd_value(input logic [2:0] mode, input logic [31:0] av,
                                             input logic [31:0] bv, input logic [31:0] ra,
                                             input logic [31:0] rb, input logic [31:0] fx);
    logic [31:0] a, b, t;
    a = npu_fp32_itof_pkg::itof(av);
    b = npu_fp32_itof_pkg::itof(bv);
    case (mode)
      3'd0: t = npu_fp32_fma_pkg::ffma(a, ra, npu_fp32_fma_pkg::ffma(b, rb, fx));  // fma
      3'd1:  // fma_scalar_b
        t = npu_fp32_fma_pkg::ffma(a, ra, npu_fp32_add_pkg::fadd(fx, npu_fp32_mul_pkg::fmul(b, rb)));
      3'd2:  // fma_scalar_a
        t = npu_fp32_fma_pkg::ffma(b, rb, npu_fp32_add_pkg::fadd(fx, npu_fp32_mul_pkg::fmul(a, ra)));
      3'd3:  // mul_add
        t = npu_fp32_add_pkg::fadd(npu_fp32_add_pkg::fadd(fx, npu_fp32_mul_pkg::fmul(a, ra)),
                                   npu_fp32_mul_pkg::fmul(b, rb));
      3'd4:  // mul_add_scalar_b
        t = npu_fp32_add_pkg::fadd(npu_fp32_add_pkg::fadd(fx, npu_fp32_mul_pkg::fmul(b, rb)),
                                   npu_fp32_mul_pkg::fmul(a, ra));
      default: t = 32'd0;  // not a mode (the verifier rejects it)
    endcase
    vadd_value = npu_fp32_toint_pkg::rne_int(t);
  endfunction

  // VMUL: fl(fl(float(p) * ratio) + float(o_zp)), cvtps2dq; p = (a - a_zp) * (b - b_zp).
  function automatic logic [31:0] vmul_value(input logic [31:0] p, input logic [31:0] ratio,
                                             input logic [31:0] ozp);
    vmul_value = npu_fp32_toint_pkg::rne_int(npu_fp32_add_pkg::fadd(
        npu_fp32_mul_pkg::fmul(npu_fp32_itof_pkg::itof(p), ratio), npu_fp32_itof_pkg::itof(ozp)));
  endfunction

  // avg_float POOL, one window element: facc + fl(scale * float(v - in_zp)).
  function automatic logic [31:0] pool_step(input logic [31:0] facc, input logic [31:0] scale,
                                            input logic [31:0] v, input logic [31:0] izp);
    pool_step = npu_fp32_add_pkg::fadd(
        facc, npu_fp32_mul_pkg::fmul(scale, npu_fp32_itof_pkg::itof(v - izp)));
  endfunction

  // avg_float POOL, the window's result: cvtps2dq(fl(fl(facc / div) / out_scale) + float(out_zp)).
  function automatic logic [31:0] pool_avg(input logic [31:0] facc, input logic [31:0] div,
                                           input logic [31:0] osc, input logic [31:0] ozp);
    pool_avg = npu_fp32_toint_pkg::rne_int(npu_fp32_add_pkg::fadd(
        npu_fp32_div_pkg::fdiv(npu_fp32_div_pkg::fdiv(facc, div), osc), npu_fp32_itof_pkg::itof(ozp)));
  endfunction
endpackage
