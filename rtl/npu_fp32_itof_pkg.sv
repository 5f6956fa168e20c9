// int32 -> binary32, round to nearest even (cvtdq2ps; docs/isa.md §4 float(v)).
package npu_fp32_itof_pkg;
  function automatic logic [31:0] itof(input logic [31:0] v);
    logic [31:0] mag;
    mag = v[31] ? (32'd0 - v) : v;
    itof = npu_fp32_core_pkg::round_pack(v[31], {24'd0, mag}, 12'sd0);
  endfunction
endpackage
