// Test wrapper of npu_layernorm_unit: a behavioral SP and ACC (public, loaded
// and compared by LayernormUnitTest.cpp) with the engine's combinational read
// ports and lane-ordered SP write ports, as npu_datapath wires them.
module tb_npu_layernorm_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
#(
    localparam int L = int'(LANES)
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,
    input  logic [INSTR_BITS-1:0] inst,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [63:0]           cycles,  // EngineDut drives it; the engine needs none
    /* verilator lint_on UNUSEDSIGNAL */
    output logic                  busy,
    output logic [31:0]           writes  // lanes writing at the edge ending this cycle
);
  logic [7:0] sp[SP_BYTES]  /*verilator public_flat_rw*/;
  logic [31:0] acc[ACC_WORDS]  /*verilator public_flat_rw*/;

  logic [63:0] a_raddr[L], o_waddr[L], g_raddr, b_raddr;
  logic [7:0] a_rdata[L], o_wdata[L];
  logic [31:0] g_rdata, b_rdata;
  logic o_we[L];
  for (genvar l = 0; l < L; l++) begin : g_port
    assign a_rdata[l] = a_raddr[l] < 64'(SP_BYTES) ? sp[a_raddr[l]] : 8'd0;
  end
  assign g_rdata = g_raddr < 64'(ACC_WORDS) ? acc[g_raddr] : 32'd0;
  assign b_rdata = b_raddr < 64'(ACC_WORDS) ? acc[b_raddr] : 32'd0;
  npu_layernorm_unit dut (.clk, .rst, .start, .inst, .busy, .a_raddr, .a_rdata, .g_raddr,
                          .g_rdata, .b_raddr, .b_rdata, .o_we, .o_waddr, .o_wdata);

  always_comb begin
    writes = 0;
    for (int l = 0; l < L; l++) writes += 32'(o_we[l]);
  end
  // Lane order: the highest lane writing an address wins.
  always_ff @(posedge clk)
    for (int l = 0; l < L; l++)
      if (o_we[l]) sp[o_waddr[l]] <= o_wdata[l];
endmodule
