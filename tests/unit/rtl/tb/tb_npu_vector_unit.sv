// Test wrapper of npu_vector_unit: a behavioral SP and ACC (public, loaded
// and compared by VectorUnitTest.cpp and BinaryUnitTest.cpp) with as many
// combinational read ports and lane-ordered write ports as the engine has,
// as npu_datapath wires them (ACC: VBINARY's fp32 B).
module tb_npu_vector_unit
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

  logic [63:0] a_raddr[L], b_raddr[L], b_acc_raddr[L], o_waddr[L];
  logic [7:0] a_rdata[L], b_rdata[L], o_wdata[L];
  logic [31:0] b_acc_rdata[L];
  logic o_we[L];
  for (genvar l = 0; l < L; l++) begin : g_port
    assign a_rdata[l] = sp[a_raddr[l]];
    assign b_rdata[l] = sp[b_raddr[l]];
    // Without b_f32 the ACC address is an SP one, maybe past ACC: masked.
    assign b_acc_rdata[l] = b_acc_raddr[l] < 64'(ACC_WORDS) ? acc[b_acc_raddr[l]] : 32'd0;
  end
  npu_vector_unit dut (.*);

  always_comb begin
    writes = 0;
    for (int l = 0; l < L; l++) writes += 32'(o_we[l]);
  end
  // Lane order: the highest lane writing an address wins.
  always_ff @(posedge clk)
    for (int l = 0; l < L; l++)
      if (o_we[l]) sp[o_waddr[l]] <= o_wdata[l];
endmodule
