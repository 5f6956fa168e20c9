// _mm_max_ps(a, b) / _mm_min_ps(a, b) on one lane: a > b ? a : b and
// a < b ? a : b with IEEE ordering (NaN unordered, so a NaN either side
// yields b; +0 == -0 yields b).
package npu_fp32_cmp_pkg;
  // a > b, IEEE (false if either is NaN).
  function automatic logic fgt(input logic [31:0] a, input logic [31:0] b);
    logic signed [31:0] ka, kb;
    ka = a[31] ? -$signed({1'b0, a[30:0]}) : $signed({1'b0, a[30:0]});
    kb = b[31] ? -$signed({1'b0, b[30:0]}) : $signed({1'b0, b[30:0]});
    fgt = !npu_fp32_core_pkg::is_nan(a) && !npu_fp32_core_pkg::is_nan(b) && (ka > kb);
  endfunction
  function automatic logic [31:0] fmaxps(input logic [31:0] a, input logic [31:0] b);
    fmaxps = fgt(a, b) ? a : b;
  endfunction
  function automatic logic [31:0] fminps(input logic [31:0] a, input logic [31:0] b);
    fminps = fgt(b, a) ? a : b;
  endfunction
endpackage
