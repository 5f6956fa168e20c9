// The NPU compute core: controller, DMA engine and datapath (SRAMs, systolic
// array, post-processor, vector unit). Instructions arrive through a fetch
// port (index out, 64-byte instruction in, same cycle); DRAM is reached
// through a valid/ready port whose read data returns in the cycle after the
// request. The co-simulation (simulator/lib/rtl) drives both from C++.
module npu_top
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
(
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,
    output logic [31:0]           fetch_idx,
    input  logic [INSTR_BITS-1:0] fetch_inst,
    output logic                  dram_req_valid,
    input  logic                  dram_req_ready,
    output logic                  dram_req_write,
    output logic [63:0]           dram_req_addr,
    output logic [DRAM_BW*8-1:0]  dram_req_wdata,
    output logic [DRAM_BW-1:0]    dram_req_wstrb,
    input  logic [DRAM_BW*8-1:0]  dram_rsp_rdata,
    output logic [63:0]           cycle,
    output logic                  done,
    output logic                  quiescent,
    output logic                  fault_overflow,
    output logic                  fault_internal,
    output logic                  ev_fetch_valid,
    output logic [31:0]           ev_fetch_idx,
    output logic [2:0]            ev_issue_valid,
    output logic [95:0]           ev_issue_idx,
    output logic                  ev_grant_valid,
    output logic [31:0]           ev_grant_idx,
    output logic [2:0]            ev_sched_valid,
    output logic [95:0]           ev_sched_idx,
    output logic [191:0]          ev_sched_end,
    output logic [63:0]           ev_chan_end
);
  logic dma_start, dma_active, dma_last_beat, exec, pp_exec, running, c_issue;
  logic [7:0] pp_exec_op;
  logic schedule_error;
  logic [63:0] mm_cycles;
  logic [INSTR_BITS-1:0] dma_start_inst, exec_inst, mm_inst;
  logic wr_valid, wr_acc, rd_acc, pad_we, pad_acc;
  logic [63:0] wr_addr, rd_addr, pad_addr;
  logic [31:0] wr_len, rd_len, pad_len;
  logic [DRAM_BW*8-1:0] wr_data, rd_data, pad_data;
  logic ctrl_internal;

  npu_controller u_ctrl (
      .clk, .rst, .start, .fetch_idx, .fetch_inst,
      .dma_start, .dma_start_inst, .dma_active, .dma_last_beat,
      .exec, .exec_inst, .pp_exec, .pp_exec_op, .c_issue, .mm_inst, .mm_cycles, .cycle, .running, .done, .quiescent, .fault_overflow,
      .fault_internal(ctrl_internal),
      .ev_fetch_valid, .ev_fetch_idx, .ev_issue_valid, .ev_issue_idx,
      .ev_grant_valid, .ev_grant_idx, .ev_sched_valid, .ev_sched_idx,
      .ev_sched_end, .ev_chan_end);

  npu_dma u_dma (
      .clk, .rst, .start(dma_start), .start_inst(dma_start_inst),
      .active(dma_active), .last_beat(dma_last_beat),
      .dram_req_valid, .dram_req_ready, .dram_req_write, .dram_req_addr,
      .dram_req_wdata, .dram_req_wstrb, .dram_rsp_rdata,
      .wr_valid, .wr_acc, .wr_addr, .wr_len, .wr_data,
      .rd_acc, .rd_addr, .rd_len, .rd_data,
      .pad_we, .pad_acc, .pad_addr, .pad_len, .pad_data);

  npu_datapath u_dp (
      .clk, .rst, .c_start(c_issue), .c_inst(mm_inst), .c_cycles(mm_cycles),
      .exec, .exec_inst, .pp_exec, .pp_exec_op,
      .dma_wr_valid(wr_valid), .dma_wr_acc(wr_acc), .dma_wr_addr(wr_addr),
      .dma_wr_len(wr_len), .dma_wr_data(wr_data),
      .pad_we, .pad_acc, .pad_addr, .pad_len, .pad_data,
      .dma_rd_acc(rd_acc), .dma_rd_addr(rd_addr), .dma_rd_len(rd_len),
      .dma_rd_data(rd_data), .schedule_error);

  assign fault_internal = ctrl_internal || schedule_error;
  wire unused = running;
endmodule
