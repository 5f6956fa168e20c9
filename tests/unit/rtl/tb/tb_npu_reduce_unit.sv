// Test wrapper of npu_reduce_unit: a behavioral SP (public, loaded and
// compared by ReduceUnitTest.cpp) with the engine's combinational read ports
// and lane-ordered SP write ports, as npu_datapath wires them.
module tb_npu_reduce_unit
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

  logic [63:0] a_raddr[L], o_waddr[L];
  logic [7:0] a_rdata[L], o_wdata[L];
  logic o_we[L];
  for (genvar l = 0; l < L; l++) begin : g_port
    assign a_rdata[l] = a_raddr[l] < 64'(SP_BYTES) ? sp[a_raddr[l]] : 8'd0;
  end
  npu_reduce_unit dut (.clk, .rst, .start, .inst, .busy, .a_raddr, .a_rdata, .o_we, .o_waddr,
                       .o_wdata);

  always_comb begin
    writes = 0;
    for (int l = 0; l < L; l++) writes += 32'(o_we[l]);
  end
  // Lane order: the highest lane writing an address wins.
  always_ff @(posedge clk)
    for (int l = 0; l < L; l++)
      if (o_we[l]) sp[o_waddr[l]] <= o_wdata[l];
endmodule
