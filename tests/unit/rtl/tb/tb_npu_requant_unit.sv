// Test wrapper of npu_requant_unit: behavioral SP and ACC (public, loaded and
// compared by RequantUnitTest.cpp) with as many combinational read ports and
// lane-ordered write ports as the engine has, as npu_datapath will wire it.
module tb_npu_requant_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
#(
    localparam int L = int'(LANES)
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,
    input  logic [INSTR_BITS-1:0] inst,
    input  logic [63:0]           cycles,
    output logic                  busy,
    output logic [31:0]           writes  // lanes writing at the edge ending this cycle
);
  logic [7:0] sp[SP_BYTES]  /*verilator public_flat_rw*/;
  logic [31:0] acc[ACC_WORDS]  /*verilator public_flat_rw*/;

  logic [63:0] c_raddr[L], bias_raddr[L], scale_raddr[L], lut_raddr[L], sp_waddr[L];
  logic [31:0] c_rdata[L], bias_rdata[L], scale_rdata[L];
  logic [7:0] lut_rdata[L], sp_wdata[L];
  logic sp_we[L];
  for (genvar l = 0; l < L; l++) begin : g_port
    assign c_rdata[l] = acc[c_raddr[l]];
    assign bias_rdata[l] = acc[bias_raddr[l]];
    assign scale_rdata[l] = acc[scale_raddr[l]];
    assign lut_rdata[l] = sp[lut_raddr[l]];
  end
  npu_requant_unit dut (.*);

  always_comb begin
    writes = 0;
    for (int l = 0; l < L; l++) writes += 32'(sp_we[l]);
  end
  // Lane order: the highest lane writing an address wins.
  always_ff @(posedge clk)
    for (int l = 0; l < L; l++)
      if (sp_we[l]) sp[sp_waddr[l]] <= sp_wdata[l];
endmodule
