// IEEE-754 binary32 arithmetic of docs/isa.md §4 (RNE, one rounding per
// operation, fma where the ISA says so, denormals honoured, x86 cvtps2dq).
//
// Behavioral: values are carried in `real` (binary64). A binary64 product of
// two binary32 values is exact, and +, *, / of binary32 operands evaluated in
// binary64 and rounded once to binary32 are correctly rounded (53 >= 2*24+2),
// so r2f(f2r(a) op f2r(b)) is the IEEE binary32 result. fma adds an exact
// TwoSum error term to break the one case double rounding gets wrong (a tie).
package npu_fp32_pkg;

  // binary32 bit pattern -> real (exact).
  function automatic real f2r(input logic [31:0] b);
    logic [10:0] e;
    real v;
    if (b[30:23] == 8'hff) begin
      e = 11'h7ff;
      return $bitstoreal({b[31], e, b[22:0], 29'd0});
    end
    if (b[30:23] == 8'd0) begin
      v = $itor(b[22:0]) * (2.0 ** -149);
      return b[31] ? -v : v;
    end
    e = {3'd0, b[30:23]} + 11'd896;
    return $bitstoreal({b[31], e, b[22:0], 29'd0});
  endfunction

  // real -> binary32 with round-to-nearest-even. tie_dir breaks an exact
  // tie: 0 to even, +1 away from zero, -1 toward zero (used by fma).
  // is_tie reports whether x lay exactly halfway between two binary32.
  function automatic logic [31:0] r2f_dir(input real x, input int tie_dir,
                                          output logic is_tie);
    logic [63:0] d;
    logic [52:0] sig;
    int e, sh;
    logic [52:0] q, rest_mask;
    logic guard, rest, up;
    logic [30:0] mag;
    d = $realtobits(x);
    is_tie = 1'b0;
    if (d[62:52] == 11'h7ff)
      return d[51:0] == 0 ? {d[63], 8'hff, 23'd0} : {d[63], 8'hff, 1'b1, d[50:29]};
    if (d[62:52] == 11'd0) return {d[63], 31'd0};
    e = int'({21'd0, d[62:52]}) - 1023;
    if (e > 127) return {d[63], 8'hff, 23'd0};
    sig = {1'b1, d[51:0]};
    sh = (e >= -126) ? 29 : 29 + (-126 - e);
    if (sh > 54) return {d[63], 31'd0};
    q = sig >> sh;
    guard = sig[sh-1];
    rest_mask = (53'd1 << (sh - 1)) - 53'd1;
    rest = (sig & rest_mask) != 0;
    is_tie = guard && !rest;
    if (is_tie && tie_dir != 0) up = tie_dir > 0;
    else up = guard && (rest || q[0]);
    if (e >= -126) mag = {8'(e + 127), q[22:0]};
    else mag = q[30:0];
    mag = mag + {30'd0, up};
    if (mag[30:23] == 8'hff) mag[22:0] = 23'd0;  // rounded up to infinity
    return {d[63], mag};
  endfunction

  function automatic logic [31:0] r2f(input real x);
    logic t;
    return r2f_dir(x, 0, t);
  endfunction

  function automatic logic is_nan(input logic [31:0] a);
    return a[30:23] == 8'hff && a[22:0] != 0;
  endfunction

  function automatic logic [31:0] fadd(input logic [31:0] a, input logic [31:0] b);
    return r2f(f2r(a) + f2r(b));
  endfunction
  function automatic logic [31:0] fmul(input logic [31:0] a, input logic [31:0] b);
    return r2f(f2r(a) * f2r(b));
  endfunction
  function automatic logic [31:0] fdiv(input logic [31:0] a, input logic [31:0] b);
    return r2f(f2r(a) / f2r(b));
  endfunction

  // fma(a, b, c) with a single rounding: p = a*b is exact in binary64; the
  // binary64 sum s = fl64(p + c) plus its exact error err (TwoSum) is the
  // exact result, and only a tie of s between two binary32 needs err's sign.
  function automatic logic [31:0] ffma(input logic [31:0] a, input logic [31:0] b,
                                       input logic [31:0] c);
    real p, cc, s, bb, err;
    logic tie;
    logic [31:0] r;
    int dir;
    p = f2r(a) * f2r(b);
    cc = f2r(c);
    s = p + cc;
    r = r2f_dir(s, 0, tie);
    if (!tie || is_nan(r) || r[30:23] == 8'hff) return r;
    bb = s - p;
    err = (p - (s - bb)) + (cc - bb);
    if (err == 0.0) return r;
    dir = ((err > 0.0) == (s > 0.0)) ? 1 : -1;
    return r2f_dir(s, dir, tie);
  endfunction

  function automatic logic [31:0] itof(input logic signed [31:0] v);
    return r2f($itor(v));
  endfunction

  // x86 cvtps2dq: RNE; NaN or out of int32 range gives INT32_MIN.
  function automatic logic signed [31:0] rne_int(input logic [31:0] a);
    real x, t, frac;
    longint ti;
    x = f2r(a);
    if (!(x > -2147483904.0 && x < 2147483648.0)) return 32'sh80000000;
    ti = 64'($rtoi(x));
    t = $itor(ti);
    frac = x - t;
    if (frac > 0.5 || (frac == 0.5 && ti[0])) ti = ti + 1;
    else if (frac < -0.5 || (frac == -0.5 && ti[0])) ti = ti - 1;
    return 32'(ti);
  endfunction

  // _mm_max_ps / _mm_min_ps operand order: a NaN first operand yields b.
  function automatic logic [31:0] fmaxps(input logic [31:0] a, input logic [31:0] b);
    return f2r(a) > f2r(b) ? a : b;
  endfunction
  function automatic logic [31:0] fminps(input logic [31:0] a, input logic [31:0] b);
    return f2r(a) < f2r(b) ? a : b;
  endfunction

  // REQUANT / avg_int POOL (isa.md §4): fl(fl(float(v)) * s), clamp to
  // [lo - zp, hi - zp] in fp32, RNE, + zp.
  function automatic logic signed [31:0] requantize(input logic signed [31:0] v,
      input logic [31:0] scale, input int zp, input int lo, input int hi);
    logic [31:0] f;
    f = fmul(itof(v), scale);
    f = fminps(fmaxps(f, itof(lo - zp)), itof(hi - zp));
    return rne_int(f) + zp;
  endfunction

endpackage
