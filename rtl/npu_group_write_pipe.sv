// npu_write_pipe for engines that write one group of NL consecutive
// addresses per beat (npu_pool_unit, npu_dwconv_unit): lane l writes
// data[l] to base + l if mask[l]; the beat's write (valid) comes out PD
// cycles later. Only the mask and the base address go through the stages,
// not NL addresses.
module npu_group_write_pipe #(
    parameter int PD = 1,
    parameter int NL = 1,
    parameter int DW = 8
) (
    input  logic          clk,
    input  logic          rst,
    input  logic          valid,  // a beat computes in this cycle
    input  logic [NL-1:0] mask,   // lanes that write
    input  logic [63:0]   base,   // lane 0's address
    input  logic [DW-1:0] data[NL],
    output logic          we[NL],
    output logic [63:0]   waddr[NL],
    output logic [DW-1:0] wdata[NL],
    output logic          pend    // a beat is in the stages
);
  logic out_valid;
  logic [NL-1:0] mask_q;
  logic [63:0] base_q;
  logic [NL*DW-1:0] d, q;
  npu_write_pipe #(
      .PD(PD), .W(NL + 64 + NL * DW)
  ) u_pipe (
      .clk, .rst, .in_valid(valid), .in_data({mask, base, d}), .out_valid,
      .out_data({mask_q, base_q, q}), .pend);
  for (genvar l = 0; l < NL; l++) begin : g_lane
    assign d[l*DW+:DW] = data[l];
    assign we[l] = out_valid && mask_q[l];
    assign waddr[l] = base_q + 64'(l);
    assign wdata[l] = q[l*DW+:DW];
  end
endmodule
