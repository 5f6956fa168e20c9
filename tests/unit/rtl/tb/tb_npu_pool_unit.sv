// Test top for npu_pool_unit: the engine around a behavioral scratchpad
// (public, loaded and read back from C++) with its combinational read ports
// and lane-ordered write ports; the write ports are also outputs so the
// test (PoolUnitTest.cpp) can check the cycle and address of every write.
module tb_npu_pool_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
(
    input  logic                    clk,
    input  logic                    rst,
    input  logic                    start,
    input  logic [INSTR_BITS-1:0]   inst,
    input  logic [63:0]             cycles,
    output logic                    busy,
    output logic [LANES-1:0]        we,
    output logic [LANES*64-1:0]     waddr
);
  localparam int NL = int'(LANES);
  logic [7:0] sp[SP_BYTES]  /*verilator public_flat_rw*/;
  logic [63:0] raddr[NL], wa[NL];
  logic [7:0] rdata[NL], wdata[NL];
  logic wen[NL];
  npu_pool_unit u_pool (
      .clk, .rst, .start, .inst, .cycles, .busy, .sp_raddr(raddr), .sp_rdata(rdata),
      .sp_we(wen), .sp_waddr(wa), .sp_wdata(wdata));
  for (genvar l = 0; l < NL; l++) begin : g_port
    assign rdata[l] = raddr[l] < 64'(SP_BYTES) ? sp[raddr[l][$clog2(SP_BYTES)-1:0]] : 8'h00;
    assign we[l] = wen[l];
    assign waddr[l*64 +: 64] = wa[l];
  end
  // Lanes in order: the highest lane writing an address wins.
  always_ff @(posedge clk)
    for (int l = 0; l < NL; l++)
      if (wen[l] && wa[l] < 64'(SP_BYTES)) sp[wa[l][$clog2(SP_BYTES)-1:0]] <= wdata[l];
endmodule
