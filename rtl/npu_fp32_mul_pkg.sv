// binary32 multiply, one rounding (RNE), denormals honoured.
package npu_fp32_mul_pkg;
  function automatic logic [31:0] fmul(input logic [31:0] a, input logic [31:0] b);
    logic s;
    logic [47:0] p;
    s = a[31] ^ b[31];
    p = npu_fp32_core_pkg::sig_of(a) * npu_fp32_core_pkg::sig_of(b);
    if (npu_fp32_core_pkg::is_nan(a) || npu_fp32_core_pkg::is_nan(b) ||
        (npu_fp32_core_pkg::is_inf(a) && npu_fp32_core_pkg::is_zero(b)) ||
        (npu_fp32_core_pkg::is_zero(a) && npu_fp32_core_pkg::is_inf(b)))
      fmul = npu_fp32_core_pkg::QNAN;
    else if (npu_fp32_core_pkg::is_inf(a) || npu_fp32_core_pkg::is_inf(b))
      fmul = {s, 8'hff, 23'd0};
    else
      fmul = npu_fp32_core_pkg::round_pack(s, {8'd0, p},
                                           npu_fp32_core_pkg::exp_of(a) + npu_fp32_core_pkg::exp_of(b));
  endfunction
endpackage
