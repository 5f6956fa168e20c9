// Test top for npu_dwconv_unit: the engine around behavioral SP and ACC
// arrays (public, loaded and read back from C++) with its combinational
// read ports and lane-ordered write ports; the ACC write ports are also
// outputs so the test (DwconvUnitTest.cpp) can check the cycle and address
// of every write.
module tb_npu_dwconv_unit
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
  localparam int NL = int'(LANES), NT = int'(DW_TAPS);
  localparam int SPW = $clog2(SP_BYTES), ACW = $clog2(ACC_WORDS);
  logic [7:0] sp[SP_BYTES]  /*verilator public_flat_rw*/;
  logic [31:0] acc[ACC_WORDS]  /*verilator public_flat_rw*/;
  logic [63:0] in_ra[NL*NT], w_ra[NL*NT], acc_ra[NL], wa[NL];
  logic [7:0] in_rd[NL*NT], w_rd[NL*NT];
  logic [31:0] acc_rd[NL], wdata[NL];
  logic wen[NL];
  npu_dwconv_unit u_dwconv (
      .clk, .rst, .start, .inst, .cycles, .busy, .in_raddr(in_ra), .in_rdata(in_rd),
      .w_raddr(w_ra), .w_rdata(w_rd), .acc_raddr(acc_ra), .acc_rdata(acc_rd), .acc_we(wen),
      .acc_waddr(wa), .acc_wdata(wdata));
  for (genvar i = 0; i < NL * NT; i++) begin : g_tap
    assign in_rd[i] = in_ra[i] < 64'(SP_BYTES) ? sp[in_ra[i][SPW-1:0]] : 8'h00;
    assign w_rd[i] = w_ra[i] < 64'(SP_BYTES) ? sp[w_ra[i][SPW-1:0]] : 8'h00;
  end
  for (genvar l = 0; l < NL; l++) begin : g_port
    assign acc_rd[l] = acc_ra[l] < 64'(ACC_WORDS) ? acc[acc_ra[l][ACW-1:0]] : 32'h0;
    assign we[l] = wen[l];
    assign waddr[l*64 +: 64] = wa[l];
  end
  // Lanes in order: the highest lane writing an address wins.
  always_ff @(posedge clk)
    for (int l = 0; l < NL; l++)
      if (wen[l] && wa[l] < 64'(ACC_WORDS)) acc[wa[l][ACW-1:0]] <= wdata[l];
endmodule
