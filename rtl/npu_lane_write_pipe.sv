// npu_write_pipe for engines whose lanes each compute their own write
// (npu_requant_unit, npu_vector_unit): lane l's {we, waddr, wdata} of a beat
// (valid) comes out PD cycles later, its enable gated by the beat's valid.
module npu_lane_write_pipe #(
    parameter int PD = 1,
    parameter int NL = 1,
    parameter int DW = 8
) (
    input  logic          clk,
    input  logic          rst,
    input  logic          valid,  // a beat computes in this cycle
    input  logic          we[NL],
    input  logic [63:0]   waddr[NL],
    input  logic [DW-1:0] wdata[NL],
    output logic          out_we[NL],
    output logic [63:0]   out_waddr[NL],
    output logic [DW-1:0] out_wdata[NL],
    output logic          pend    // a beat is in the stages
);
  localparam int LW = 1 + 64 + DW;  // a lane's write: {enable, address, data}
  logic out_valid;
  logic [NL*LW-1:0] d, q;
  npu_write_pipe #(
      .PD(PD), .W(NL * LW)
  ) u_pipe (
      .clk, .rst, .in_valid(valid), .in_data(d), .out_valid, .out_data(q), .pend);
  for (genvar l = 0; l < NL; l++) begin : g_lane
    logic we_q;
    assign d[l*LW+:LW] = {we[l], waddr[l], wdata[l]};
    assign {we_q, out_waddr[l], out_wdata[l]} = q[l*LW+:LW];
    assign out_we[l] = out_valid && we_q;
  end
endmodule
