// binary32 fused multiply-add a * b + c with one rounding (RNE): the exact
// 48-bit product is added to c before rounding (std::fma, vfmadd).
package npu_fp32_fma_pkg;
  function automatic logic [31:0] ffma(input logic [31:0] a, input logic [31:0] b,
                                       input logic [31:0] c);
    logic sp, pinf, pzero;
    logic [47:0] p;
    logic signed [11:0] ep;
    sp = a[31] ^ b[31];
    p = npu_fp32_core_pkg::sig_of(a) * npu_fp32_core_pkg::sig_of(b);
    ep = npu_fp32_core_pkg::exp_of(a) + npu_fp32_core_pkg::exp_of(b);
    pinf = npu_fp32_core_pkg::is_inf(a) || npu_fp32_core_pkg::is_inf(b);
    pzero = npu_fp32_core_pkg::is_zero(a) || npu_fp32_core_pkg::is_zero(b);
    if (npu_fp32_core_pkg::is_nan(a) || npu_fp32_core_pkg::is_nan(b) ||
        npu_fp32_core_pkg::is_nan(c) || (pinf && pzero) ||
        (pinf && npu_fp32_core_pkg::is_inf(c) && sp != c[31]))
      ffma = npu_fp32_core_pkg::QNAN;
    else if (pinf) ffma = {sp, 8'hff, 23'd0};
    else if (npu_fp32_core_pkg::is_inf(c)) ffma = c;
    else if (pzero && npu_fp32_core_pkg::is_zero(c)) ffma = {sp & c[31], 31'd0};
    else if (pzero) ffma = c;
    else if (npu_fp32_core_pkg::is_zero(c)) ffma = npu_fp32_core_pkg::round_pack(sp, {8'd0, p}, ep);
    else
      ffma = npu_fp32_core_pkg::add_terms(sp, p, ep, c[31], {24'd0, npu_fp32_core_pkg::sig_of(c)},
                                          npu_fp32_core_pkg::exp_of(c));
  endfunction
endpackage
