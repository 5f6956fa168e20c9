// Scratchpad and accumulator SRAMs (behavioral memories) with the DMA ports,
// and the compute engines that produce the values of the compute
// instructions (docs/isa.md §4): the systolic array (npu_matmul_unit) and
// the streaming REQUANT, VADD/VMUL/VLUT/VBINARY, POOL, DWCONV, VSOFTMAX, VLAYERNORM and VREDUCE
// engines. Each starts in
// its instruction's issue cycle and follows the computeCycles formula as its
// schedule, so its last result is written at the edge ending the completion
// cycle the controller (npu_controller) computes; `exec` / `pp_exec` (that
// completion) only feed a self-check of that agreement.
module npu_datapath
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
(
    input  logic                  clk,
    input  logic                  rst,
    // compute instruction issuing this cycle (any opcode of the compute
    // queue), with its occupancy (computeCycles)
    input  logic                  c_start,
    input  logic [INSTR_BITS-1:0] c_inst,
    input  logic [63:0]           c_cycles,
    // compute instruction completing at the end of this cycle (the array or
    // vector unit, and the post-processor with REQUANT_OVERLAP)
    input  logic                  exec,
    input  logic [INSTR_BITS-1:0] exec_inst,
    input  logic                  pp_exec,
    input  logic [7:0]            pp_exec_op,
    // DMA load data
    input  logic                  dma_wr_valid,
    input  logic                  dma_wr_acc,
    input  logic [63:0]           dma_wr_addr,
    input  logic [31:0]           dma_wr_len,
    input  logic [DRAM_BW*8-1:0]  dma_wr_data,
    // DMA padding of a LOAD (npu_pad_unit)
    input  logic                  pad_we,
    input  logic                  pad_acc,
    input  logic [63:0]           pad_addr,
    input  logic [31:0]           pad_len,
    input  logic [DRAM_BW*8-1:0]  pad_data,
    // DMA store data (combinational read)
    input  logic                  dma_rd_acc,
    input  logic [63:0]           dma_rd_addr,
    input  logic [31:0]           dma_rd_len,
    output logic [DRAM_BW*8-1:0]  dma_rd_data,
    // an engine's schedule disagreed with the controller's (an RTL bug)
    output logic                  schedule_error
);
  // The memories. The co-simulation writes them through Verilator's handle
  // while the core is held in reset and reads them back at the end; they
  // are public read-only (public_flat_rw makes Verilator re-evaluate every
  // combinational reader on each eval(): the ResNet-18 bench took 4.9x as
  // long, docs/rtl.md). Every read port is gated
  // by `mem_ready`, a register that rises on the first edge out of reset,
  // so each reader is re-evaluated once after the contents were loaded.
  logic [7:0] sp[SP_BYTES]  /*verilator public_flat_rd*/;
  logic [31:0] acc[ACC_WORDS]  /*verilator public_flat_rd*/;
  logic mem_ready;
  always_ff @(posedge clk) mem_ready <= !rst;

  function automatic logic [7:0] sp_read(input logic [63:0] a);
    return mem_ready && a < 64'(SP_BYTES) ? sp[a] : 8'd0;
  endfunction
  function automatic logic [31:0] acc_read(input logic [63:0] a);
    return mem_ready && a < 64'(ACC_WORDS) ? acc[a] : 32'd0;
  endfunction
  function automatic logic [7:0] acc_byte(input logic [63:0] a);
    logic [31:0] w;
    w = acc_read(a >> 2);
    return w[a[1:0]*8 +: 8];
  endfunction

  always_comb begin
    dma_rd_data = '0;
    for (int j = 0; j < DRAM_BW; j++)
      if (32'(j) < dma_rd_len)
        dma_rd_data[j*8 +: 8] = dma_rd_acc ? acc_byte(dma_rd_addr + 64'(j))
                                           : sp_read(dma_rd_addr + 64'(j));
  end

  // ---- MATMUL: the systolic array with its feeders ----
  logic [63:0] mm_a_addr[ROWS], mm_b_addr[COLS], mm_c_addr[COLS];
  logic [7:0] mm_a_data[ROWS], mm_b_data[COLS];
  logic [COLS-1:0] mm_c_en;
  logic [COLS-1:0] mm_c_acc;
  logic mm_overrun;
  logic [31:0] mm_c_data[COLS];
  for (genvar i = 0; i < ROWS; i++) begin : g_a_port
    assign mm_a_data[i] = sp_read(mm_a_addr[i]);
  end
  for (genvar j = 0; j < COLS; j++) begin : g_b_port
    assign mm_b_data[j] = sp_read(mm_b_addr[j]);
  end
  npu_matmul_unit u_matmul (
      .clk, .rst, .start(c_start && c_inst[7:0] == OP_MATMUL), .start_inst(c_inst),
      .start_cycles(c_cycles),
      .a_addr(mm_a_addr), .a_data(mm_a_data), .b_addr(mm_b_addr), .b_data(mm_b_data),
      .c_wr_en(mm_c_en), .c_wr_accumulate(mm_c_acc), .c_wr_addr(mm_c_addr),
      .c_wr_data(mm_c_data), .overrun(mm_overrun));

  // ---- the streaming engines (REQUANT, VADD/VMUL/VLUT/VBINARY, POOL, DWCONV, VSOFTMAX,
  // VLAYERNORM, VREDUCE) ----
  // Each starts in the issue cycle of its instruction and writes its results
  // beat by beat during the occupancy, the last at the edge ending the
  // completion cycle (the computeCycles formulas are their schedules). The
  // ISA forbids outputs that partially overlap inputs (isa.md §4), so
  // streaming writes give the values the SystemC model applies at completion.
  localparam int L = int'(LANES);
  wire [7:0] c_op = c_inst[7:0];

  logic rq_busy;
  logic [63:0] rq_c_addr[L], rq_bias_addr[L], rq_scale_addr[L], rq_lut_addr[L], rq_waddr[L];
  logic [31:0] rq_c_data[L], rq_bias_data[L], rq_scale_data[L];
  logic [7:0] rq_lut_data[L], rq_wdata[L];
  logic rq_we[L];
  npu_requant_unit u_requant (
      .clk, .rst, .start(c_start && c_op == OP_REQUANT), .inst(c_inst), .cycles(c_cycles),
      .busy(rq_busy),
      .c_raddr(rq_c_addr), .c_rdata(rq_c_data), .bias_raddr(rq_bias_addr),
      .bias_rdata(rq_bias_data), .scale_raddr(rq_scale_addr), .scale_rdata(rq_scale_data),
      .lut_raddr(rq_lut_addr), .lut_rdata(rq_lut_data),
      .sp_we(rq_we), .sp_waddr(rq_waddr), .sp_wdata(rq_wdata));

  // VBINARY with b_f32 reads B from ACC (one word per lane) instead of SP.
  logic vu_busy;
  logic [63:0] vu_a_addr[L], vu_b_addr[L], vu_b_acc_addr[L], vu_waddr[L];
  logic [7:0] vu_a_data[L], vu_b_data[L], vu_wdata[L];
  logic [31:0] vu_b_acc_data[L];
  logic vu_we[L];
  npu_vector_unit u_vector (
      .clk, .rst,
      .start(c_start && (c_op == OP_VADD || c_op == OP_VMUL || c_op == OP_VLUT || c_op == OP_VBINARY)),
      .inst(c_inst),
      .cycles(c_cycles), .busy(vu_busy),
      .a_raddr(vu_a_addr), .a_rdata(vu_a_data), .b_raddr(vu_b_addr), .b_rdata(vu_b_data),
      .b_acc_raddr(vu_b_acc_addr), .b_acc_rdata(vu_b_acc_data),
      .o_we(vu_we), .o_waddr(vu_waddr), .o_wdata(vu_wdata));

  logic pl_busy;
  logic [63:0] pl_raddr[L], pl_waddr[L];
  logic [7:0] pl_rdata[L], pl_wdata[L];
  logic pl_we[L];
  npu_pool_unit u_pool (
      .clk, .rst, .start(c_start && c_op == OP_POOL), .inst(c_inst), .cycles(c_cycles),
      .busy(pl_busy),
      .sp_raddr(pl_raddr), .sp_rdata(pl_rdata),
      .sp_we(pl_we), .sp_waddr(pl_waddr), .sp_wdata(pl_wdata));

  logic dw_busy;
  localparam int DT = int'(DW_TAPS);  // DWCONV reads DT taps per lane
  logic [63:0] dw_in_addr[L*DT], dw_w_addr[L*DT], dw_acc_addr[L], dw_waddr[L];
  logic [7:0] dw_in_data[L*DT], dw_w_data[L*DT];
  logic [31:0] dw_acc_data[L], dw_wdata[L];
  logic dw_we[L];
  npu_dwconv_unit u_dwconv (
      .clk, .rst, .start(c_start && c_op == OP_DWCONV), .inst(c_inst), .cycles(c_cycles),
      .busy(dw_busy),
      .in_raddr(dw_in_addr), .in_rdata(dw_in_data), .w_raddr(dw_w_addr), .w_rdata(dw_w_data),
      .acc_raddr(dw_acc_addr), .acc_rdata(dw_acc_data),
      .acc_we(dw_we), .acc_waddr(dw_waddr), .acc_wdata(dw_wdata));

  logic sm_busy;
  logic [63:0] sm_a_addr[L], sm_t_addr[L], sm_waddr[L];
  logic [7:0] sm_a_data[L], sm_wdata[L];
  logic [31:0] sm_t_data[L];
  logic sm_we[L];
  npu_softmax_unit u_softmax (
      .clk, .rst, .start(c_start && c_op == OP_VSOFTMAX), .inst(c_inst), .busy(sm_busy),
      .a_raddr(sm_a_addr), .a_rdata(sm_a_data), .t_raddr(sm_t_addr), .t_rdata(sm_t_data),
      .o_we(sm_we), .o_waddr(sm_waddr), .o_wdata(sm_wdata));

  // VLAYERNORM: its lanes are on one column at a time, so gamma and beta
  // take one ACC port each.
  logic ln_busy;
  logic [63:0] ln_a_addr[L], ln_waddr[L], ln_g_addr, ln_b_addr;
  logic [7:0] ln_a_data[L], ln_wdata[L];
  logic [31:0] ln_g_data, ln_b_data;
  logic ln_we[L];
  npu_layernorm_unit u_layernorm (
      .clk, .rst, .start(c_start && c_op == OP_VLAYERNORM), .inst(c_inst), .busy(ln_busy),
      .a_raddr(ln_a_addr), .a_rdata(ln_a_data), .g_raddr(ln_g_addr), .g_rdata(ln_g_data),
      .b_raddr(ln_b_addr), .b_rdata(ln_b_data), .o_we(ln_we), .o_waddr(ln_waddr),
      .o_wdata(ln_wdata));
  assign ln_g_data = acc_read(ln_g_addr);
  assign ln_b_data = acc_read(ln_b_addr);

  logic rd_busy;
  logic [63:0] rd_a_addr[L], rd_waddr[L];
  logic [7:0] rd_a_data[L], rd_wdata[L];
  logic rd_we[L];
  npu_reduce_unit u_reduce (
      .clk, .rst, .start(c_start && c_op == OP_VREDUCE), .inst(c_inst), .busy(rd_busy),
      .a_raddr(rd_a_addr), .a_rdata(rd_a_data), .o_we(rd_we), .o_waddr(rd_waddr),
      .o_wdata(rd_wdata));

  // Read ports of the behavioral memories. An idle engine's address may be
  // anything: out-of-range reads are masked (they feed nothing).
  always_comb
    for (int l = 0; l < L; l++) begin
      rq_c_data[l] = acc_read(rq_c_addr[l]);
      rq_bias_data[l] = acc_read(rq_bias_addr[l]);
      rq_scale_data[l] = acc_read(rq_scale_addr[l]);
      rq_lut_data[l] = sp_read(rq_lut_addr[l]);
      vu_a_data[l] = sp_read(vu_a_addr[l]);
      vu_b_data[l] = sp_read(vu_b_addr[l]);
      vu_b_acc_data[l] = acc_read(vu_b_acc_addr[l]);
      pl_rdata[l] = sp_read(pl_raddr[l]);
      dw_acc_data[l] = acc_read(dw_acc_addr[l]);
      sm_a_data[l] = sp_read(sm_a_addr[l]);
      sm_t_data[l] = acc_read(sm_t_addr[l]);
      ln_a_data[l] = sp_read(ln_a_addr[l]);
      rd_a_data[l] = sp_read(rd_a_addr[l]);
    end
  always_comb
    for (int i = 0; i < L * DT; i++) begin
      dw_in_data[i] = sp_read(dw_in_addr[i]);
      dw_w_data[i] = sp_read(dw_w_addr[i]);
    end

  // The controller's completion and the engines' schedules must agree: an
  // engine is busy in the cycle its instruction completes and idle in the
  // next one, unless the next instruction of its kind issues then. A
  // mismatch is a bug in the RTL; the co-simulation reports it
  // (fault_internal).
  function automatic logic [2:0] engine_of(input logic [7:0] op);
    case (op)
      OP_REQUANT: return 3'd0;
      OP_VADD, OP_VMUL, OP_VLUT, OP_VBINARY: return 3'd1;
      OP_POOL: return 3'd2;
      OP_VSOFTMAX: return 3'd4;
      OP_VLAYERNORM: return 3'd5;
      OP_VREDUCE: return 3'd6;
      default: return 3'd3;  // DWCONV
    endcase
  endfunction
  logic [6:0] engine_busy;
  assign engine_busy = {rd_busy, ln_busy, sm_busy, dw_busy, pl_busy, vu_busy, rq_busy};
  function automatic logic is_engine_op(input logic [7:0] op);
    return op == OP_REQUANT || op == OP_VADD || op == OP_VMUL || op == OP_VLUT || op == OP_POOL ||
           op == OP_DWCONV || op == OP_VSOFTMAX || op == OP_VLAYERNORM || op == OP_VBINARY ||
           op == OP_VREDUCE;
  endfunction
  logic [6:0] done_q;  // engines whose instruction completed last cycle
  logic [6:0] done_now, start_now;
  always_comb begin
    done_now = '0;
    start_now = '0;
    if (exec && is_engine_op(exec_inst[7:0])) done_now[engine_of(exec_inst[7:0])] = 1'b1;
    if (pp_exec) done_now[engine_of(pp_exec_op)] = 1'b1;
    if (c_start && is_engine_op(c_op)) start_now[engine_of(c_op)] = 1'b1;
  end
  always_ff @(posedge clk)
    if (rst) begin
      schedule_error <= 1'b0;
      done_q <= '0;
    end else begin
      done_q <= done_now;
      if ((done_now & ~engine_busy) != 0 || (done_q & engine_busy & ~start_now) != 0 ||
          mm_overrun)
        schedule_error <= 1'b1;
    end

  // Byte writes of the DMA's data beats and padding chunks (ACC: byte
  // address 4 * word + byte).
  task automatic write_bytes(input logic to_acc, input logic [63:0] a, input logic [31:0] n,
                             input logic [DRAM_BW*8-1:0] d);
    for (int j = 0; j < DRAM_BW; j++)
      if (32'(j) < n) begin
        if (to_acc) acc[(a + 64'(j)) >> 2][((a[1:0] + 2'(j)) * 8) +: 8] = d[j*8 +: 8];
        else sp[a + 64'(j)] = d[j*8 +: 8];
      end
  endtask

  // Blocking writes in one block (the memories have a single writer
  // process): DMA data and padding, MATMUL results, then the engines in
  // lane order (same address: the highest lane wins, the ISA's loop order).
  /* verilator lint_off BLKSEQ */
  always_ff @(posedge clk) begin
    if (!rst) begin
      if (dma_wr_valid) write_bytes(dma_wr_acc, dma_wr_addr, dma_wr_len, dma_wr_data);
      if (pad_we) write_bytes(pad_acc, pad_addr, pad_len, pad_data);
      for (int j = 0; j < COLS; j++)
        if (mm_c_en[j]) acc[mm_c_addr[j]] = (mm_c_acc[j] ? acc[mm_c_addr[j]] : 32'd0) + mm_c_data[j];
      for (int l = 0; l < L; l++) begin
        if (rq_we[l]) sp[rq_waddr[l]] = rq_wdata[l];
        if (vu_we[l]) sp[vu_waddr[l]] = vu_wdata[l];
        if (pl_we[l]) sp[pl_waddr[l]] = pl_wdata[l];
        if (dw_we[l]) acc[dw_waddr[l]] = dw_wdata[l];
        if (sm_we[l]) sp[sm_waddr[l]] = sm_wdata[l];
        if (ln_we[l]) sp[ln_waddr[l]] = ln_wdata[l];
        if (rd_we[l]) sp[rd_waddr[l]] = rd_wdata[l];
      end
    end
  end
  /* verilator lint_on BLKSEQ */
endmodule
