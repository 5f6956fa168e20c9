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

  localparam logic [31:0] NEG_ZERO = 32'h80000000, ONE = 32'h3f800000;

  // VADD and VMUL on one chain of four fused multiply-adds. Every fp32 step
  // of isa.md §4 is one of them: fl(x * r) = fma(x, r, -0) (exact zero
  // signs included), fl(c + p) = fma(p, 1, c), and fma itself, so the five
  // VADD orders and VMUL differ only in what enters each stage:
  //   stage 1  p1 = fma(x1, r1, fused ? fixed : -0)
  //   stage 2  s  = fused ? p1 : fma(p1, 1, fixed)          fixed + x1*r1
  //   stage 3  p3 = fma(x2, r2, late ? -0 : s)
  //   stage 4  t  = late ? fma(p3, 1, s) : p3               s + x2*r2
  // with (x1, r1) the operand the order takes first (b for fma,
  // fma_scalar_b, mul_add_scalar_b and VMUL's float(p); a for fma_scalar_a
  // and mul_add), fused = mode fma, late = the mul_add modes, and VMUL as
  // fl(fl(float(p) * ratio) + float(o_zp)) through stages 1-2 only.
  function automatic logic [31:0] fma_chain(input logic fused, input logic late,
                                            input logic two, input logic [31:0] x1,
                                            input logic [31:0] r1, input logic [31:0] x2,
                                            input logic [31:0] r2, input logic [31:0] fx);
    logic [31:0] p1, s, p3;
    p1 = npu_fp32_fma_pkg::ffma(x1, r1, fused ? fx : NEG_ZERO);
    s = fused ? p1 : npu_fp32_fma_pkg::ffma(p1, ONE, fx);
    p3 = npu_fp32_fma_pkg::ffma(x2, r2, late ? NEG_ZERO : s);
    if (!two) fma_chain = s;
    else if (late) fma_chain = npu_fp32_fma_pkg::ffma(p3, ONE, s);
    else fma_chain = p3;
  endfunction

  // VADD (is_add) or VMUL of one element, before the clamp: the domain
  // values av, bv as int32; ratio = VADD ratio_a or VMUL ratio. VADD modes:
  // fma = 0, fma_scalar_b = 1, fma_scalar_a = 2, mul_add = 3,
  // mul_add_scalar_b = 4 (others give 0; the verifier rejects them).
  // VMUL: fl(fl(float(p) * ratio) + float(o_zp)), p = (a - a_zp) * (b - b_zp).
  // One fma_chain serves both (the lane has four fma units), then cvtps2dq.
  function automatic logic [31:0] vector_value(input logic is_add, input logic [2:0] mode,
                                               input logic [31:0] av, input logic [31:0] bv,
                                               input logic [31:0] ratio, input logic [31:0] rb,
                                               input logic [31:0] fx, input logic [31:0] azp,
                                               input logic [31:0] bzp, input logic [31:0] ozp);
    logic a_first;
    logic [31:0] x1, x2, r1, r2, c;
    a_first = mode == 3'd2 || mode == 3'd3;
    x1 = npu_fp32_itof_pkg::itof(!is_add ? (av - azp) * (bv - bzp) : a_first ? av : bv);
    x2 = npu_fp32_itof_pkg::itof(a_first ? bv : av);
    r1 = !is_add ? ratio : a_first ? ratio : rb;
    r2 = a_first ? rb : ratio;
    c = is_add ? fx : npu_fp32_itof_pkg::itof(ozp);
    if (is_add && mode > 3'd4) vector_value = 32'd0;
    else
      vector_value = npu_fp32_toint_pkg::rne_int(fma_chain(
          is_add && mode == 3'd0, is_add && mode >= 3'd3, is_add, x1, r1, x2, r2, c));
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
  // VSOFTMAX, one element (isa::softmaxRow): table entry e, c and the row's
  // sum give q = rne(fl(fl(e * c) / sum)), converted as ORT's kernel does
  // (int8: cvtss2si to int32, out of range INT32_MIN; uint8: cvtss2si to
  // int64, low 32 bits), + zp modulo 2^32; above 255 (unsigned with u8)
  // the byte is 0xff, otherwise the low byte.
  function automatic logic [7:0] softmax_byte(input logic [31:0] e, input logic [31:0] c,
                                              input logic [31:0] sum, input logic [31:0] zp,
                                              input logic u8);
    logic [31:0] q, w;
    logic over;
    q = npu_fp32_div_pkg::fdiv(npu_fp32_mul_pkg::fmul(e, c), sum);
    w = (u8 ? npu_fp32_toint_pkg::rne_int64_lo(q) : npu_fp32_toint_pkg::rne_int(q)) + zp;
    over = u8 ? w > 32'd255 : $signed(w) > 32'sd255;
    softmax_byte = over ? 8'hff : w[7:0];
  endfunction

  // DequantizeLinear of one int8-domain code (VBINARY, VREDUCE,
  // VLAYERNORM): fl(float(x - zp) * scale).
  function automatic logic [31:0] dequantize(input logic [7:0] x, input logic [31:0] zp,
                                             input logic [31:0] scale);
    dequantize = npu_fp32_mul_pkg::fmul(npu_fp32_itof_pkg::itof(32'(signed'(x)) - zp), scale);
  endfunction

  // MLAS QuantizeLinear to an int8-domain byte (isa::quantizeLinear):
  // v = fl(y / scale), _mm_max_ps(v, lo) then _mm_min_ps(v, hi) (NaN becomes
  // lo), rne, + zp; lo = float(-128 - zp) and hi = float(127 - zp) come
  // with the instruction (ql_lo, ql_hi).
  function automatic logic [7:0] quantize_linear(input logic [31:0] y, input logic [31:0] scale,
                                                 input logic [31:0] zp, input logic [31:0] lo,
                                                 input logic [31:0] hi);
    logic [31:0] v;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0] q;  // the int8 result's low byte is the output
    /* verilator lint_on UNUSEDSIGNAL */
    v = npu_fp32_div_pkg::fdiv(y, scale);
    v = npu_fp32_cmp_pkg::fminps(npu_fp32_cmp_pkg::fmaxps(v, lo), hi);
    q = npu_fp32_toint_pkg::rne_int(v) + zp;
    quantize_linear = q[7:0];
  endfunction
  function automatic logic [31:0] ql_lo(input logic [31:0] zp);
    return npu_fp32_itof_pkg::itof(32'hffffff80 - zp);
  endfunction
  function automatic logic [31:0] ql_hi(input logic [31:0] zp);
    return npu_fp32_itof_pkg::itof(32'd127 - zp);
  endfunction

  // VBINARY, one element (isa::binaryValueF32): op(DQ(a), y) as one IEEE
  // operation (add 0, sub 1 as an add of -y, mul 2, div 3), quantized. y is
  // B's fp32 value: DQ(b) of its code (isa::binaryValue), or with b_f32 the
  // ACC word as it is; the caller picks it, so both share one operation.
  function automatic logic [7:0] binary_byte(input logic [1:0] op, input logic [7:0] a,
                                             input logic [31:0] a_zp, input logic [31:0] a_scale,
                                             input logic [31:0] y, input logic [31:0] o_scale,
                                             input logic [31:0] o_zp, input logic [31:0] lo,
                                             input logic [31:0] hi);
    logic [31:0] x, r;
    x = dequantize(a, a_zp, a_scale);
    case (op)
      2'd0: r = npu_fp32_add_pkg::fadd(x, y);
      2'd1: r = npu_fp32_add_pkg::fadd(x, {~y[31], y[30:0]});
      2'd2: r = npu_fp32_mul_pkg::fmul(x, y);
      default: r = npu_fp32_div_pkg::fdiv(x, y);
    endcase
    binary_byte = quantize_linear(r, o_scale, o_zp, lo, hi);
  endfunction

  // isa.md §4 domains of the u8 flag (VADD, VMUL, POOL): u8 values are
  // stored bytes ^ 0x80 and u8 parameters (zero points, clamps) unsigned;
  // int8 both sign-extended.
  function automatic logic [31:0] dom_value(input logic u8, input logic [7:0] b);
    return u8 ? {24'd0, b ^ 8'h80} : 32'(signed'(b));
  endfunction
  function automatic logic [31:0] dom_param(input logic u8, input logic [7:0] b);
    return u8 ? {24'd0, b} : 32'(signed'(b));
  endfunction
endpackage
