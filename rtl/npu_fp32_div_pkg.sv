// binary32 divide, one rounding (RNE), denormals honoured. The normalized
// significands give a 28-bit quotient by restoring division (one
// compare-subtract per bit); the remainder is jammed into its bit 0.
package npu_fp32_div_pkg;
  function automatic logic [31:0] fdiv(input logic [31:0] a, input logic [31:0] b);
    logic s;
    logic [5:0] la, lb;
    logic [23:0] ma, mb;
    logic [24:0] r;
    logic [27:0] q;
    logic signed [11:0] e;
    s = a[31] ^ b[31];
    la = npu_fp32_core_pkg::lzc56({32'd0, npu_fp32_core_pkg::sig_of(a)}) - 6'd32;
    lb = npu_fp32_core_pkg::lzc56({32'd0, npu_fp32_core_pkg::sig_of(b)}) - 6'd32;
    ma = npu_fp32_core_pkg::sig_of(a) << la;
    mb = npu_fp32_core_pkg::sig_of(b) << lb;
    // a / b = (ma / mb) * 2^e', ma / mb in (1/2, 2): q = floor(ma * 2^27 / mb).
    r = {1'b0, ma};
    q = '0;
    for (int i = 27; i >= 0; i--) begin
      if (r >= {1'b0, mb}) begin
        q[i] = 1'b1;
        r = r - {1'b0, mb};
      end
      if (i != 0) r = r << 1;
    end
    e = npu_fp32_core_pkg::exp_of(a) - $signed({6'd0, la}) - npu_fp32_core_pkg::exp_of(b) +
        $signed({6'd0, lb}) - 12'sd27;
    if (npu_fp32_core_pkg::is_nan(a) || npu_fp32_core_pkg::is_nan(b) ||
        (npu_fp32_core_pkg::is_inf(a) && npu_fp32_core_pkg::is_inf(b)) ||
        (npu_fp32_core_pkg::is_zero(a) && npu_fp32_core_pkg::is_zero(b)))
      fdiv = npu_fp32_core_pkg::QNAN;
    else if (npu_fp32_core_pkg::is_inf(a) || npu_fp32_core_pkg::is_zero(b))
      fdiv = {s, 8'hff, 23'd0};
    else if (npu_fp32_core_pkg::is_zero(a) || npu_fp32_core_pkg::is_inf(b))
      fdiv = {s, 31'd0};
    else
      fdiv = npu_fp32_core_pkg::round_pack(s, {28'd0, q[27:1], q[0] | (r != '0)}, e);
  endfunction
endpackage
