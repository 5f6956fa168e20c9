// binary32 add, one rounding (RNE), denormals honoured; x + (-x) = +0.
package npu_fp32_add_pkg;
  function automatic logic [31:0] fadd(input logic [31:0] a, input logic [31:0] b);
    if (npu_fp32_core_pkg::is_nan(a) || npu_fp32_core_pkg::is_nan(b) ||
        (npu_fp32_core_pkg::is_inf(a) && npu_fp32_core_pkg::is_inf(b) && a[31] != b[31]))
      fadd = npu_fp32_core_pkg::QNAN;
    else if (npu_fp32_core_pkg::is_inf(a)) fadd = a;
    else if (npu_fp32_core_pkg::is_inf(b)) fadd = b;
    else if (npu_fp32_core_pkg::is_zero(a) && npu_fp32_core_pkg::is_zero(b))
      fadd = {a[31] & b[31], 31'd0};
    else if (npu_fp32_core_pkg::is_zero(a)) fadd = b;
    else if (npu_fp32_core_pkg::is_zero(b)) fadd = a;
    else
      fadd = npu_fp32_core_pkg::add_terms(a[31], {24'd0, npu_fp32_core_pkg::sig_of(a)},
                                          npu_fp32_core_pkg::exp_of(a), b[31],
                                          {24'd0, npu_fp32_core_pkg::sig_of(b)},
                                          npu_fp32_core_pkg::exp_of(b));
  endfunction
endpackage
