// binary32 square root, one rounding (RNE), denormals honoured: std::sqrt
// (sqrtss). The normalized significand, shifted to an even exponent, gives
// a 27-bit integer root by the digit-by-digit method (one compare-subtract
// per bit); a nonzero remainder is jammed into bit 0. A root is never
// subnormal and never overflows; a non-square's root is never a tie.
package npu_fp32_sqrt_pkg;
  function automatic logic [31:0] fsqrt(input logic [31:0] a);
    logic [5:0] la;
    logic [23:0] ma;
    logic [24:0] m;
    logic signed [11:0] e;
    logic [53:0] x;
    logic [29:0] r, t;
    logic [26:0] q;
    // a = ma * 2^e with ma in [2^23, 2^24); an odd e lends a bit to the
    // significand, so a = m * 2^e with e even and m in [2^23, 2^25).
    la = npu_fp32_core_pkg::lzc56({32'd0, npu_fp32_core_pkg::sig_of(a)}) - 6'd32;
    ma = npu_fp32_core_pkg::sig_of(a) << la;
    e = npu_fp32_core_pkg::exp_of(a) - $signed({6'd0, la});
    if (e[0]) begin
      m = {ma, 1'b0};
      e = e - 12'sd1;
    end else m = {1'b0, ma};
    // q = floor(sqrt(m * 2^28)) in [2^25, 2^27): sqrt(a) = q' * 2^(e/2 - 14)
    // with q' the exact root, q = floor(q').
    x = {1'b0, m, 28'd0};
    r = '0;
    q = '0;
    for (int i = 26; i >= 0; i--) begin
      r = {r[27:0], x[2*i+1], x[2*i]};
      t = {1'b0, q, 2'b01};
      if (r >= t) begin
        r = r - t;
        q = {q[25:0], 1'b1};
      end else q = {q[25:0], 1'b0};
    end
    if (npu_fp32_core_pkg::is_nan(a) || (a[31] && !npu_fp32_core_pkg::is_zero(a)))
      fsqrt = npu_fp32_core_pkg::QNAN;
    else if (npu_fp32_core_pkg::is_zero(a) || npu_fp32_core_pkg::is_inf(a))
      fsqrt = a;  // sqrt(-0) = -0
    else
      fsqrt = npu_fp32_core_pkg::round_pack(1'b0, {28'd0, q, r != '0},
                                            (e >>> 1) - 12'sd15);
  endfunction
endpackage
