// binary32 -> int32 as x86 cvtps2dq under the default MXCSR: round to
// nearest even; NaN and |x| >= 2^31 give INT32_MIN ("integer indefinite";
// -2^31 itself is INT32_MIN too).
package npu_fp32_toint_pkg;
  function automatic logic [31:0] rne_int(input logic [31:0] a);
    logic [55:0] f;
    logic [31:0] mag;
    logic up;
    // For 126 <= E <= 157: f = sig << (E - 126) holds |a| * 2^24.
    f = {32'd0, npu_fp32_core_pkg::sig_of(a)} << (a[30:23] - 8'd126);
    up = f[23] && ((f[22:0] != 23'd0) || f[24]);
    mag = f[55:24] + {31'd0, up};
    if (a[30:23] >= 8'd158) rne_int = 32'h80000000;  // also NaN and infinities
    else if (a[30:23] < 8'd126) rne_int = 32'd0;     // |a| < 0.5
    else rne_int = a[31] ? 32'd0 - mag : mag;
  endfunction

  // The low 32 bits of binary32 -> int64 as x86 cvtss2si (64-bit): round to
  // nearest even; NaN and |x| >= 2^63 give INT64_MIN, whose low half is 0
  // (so does -2^63 itself). From 2^31 on every binary32 is an integer, its
  // low 32 bits those of sig << (E - 150).
  function automatic logic [31:0] rne_int64_lo(input logic [31:0] a);
    logic [31:0] mag;
    mag = 32'({8'd0, npu_fp32_core_pkg::sig_of(a)} << (a[30:23] - 8'd150));
    if (a[30:23] >= 8'd190) rne_int64_lo = 32'd0;
    else if (a[30:23] >= 8'd158) rne_int64_lo = a[31] ? 32'd0 - mag : mag;
    else rne_int64_lo = rne_int(a);
  endfunction
endpackage
