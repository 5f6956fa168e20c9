// Self-checking testbench of the whole RTL core, npu_top (controller + DMA +
// datapath), on the tiny-4x4 config, driven only through npu_top's ports
// (clock from tb_main.cpp). The bench is the instruction memory (fetch_inst
// for fetch_idx in the same cycle) and the DRAM (always ready; the request
// registered by the core is served in the next cycle: read data on
// dram_rsp_rdata, write data stored at that cycle's edge, as the
// co-simulation in simulator/lib/rtl/RtlCosim.h does). Nothing inside the
// core is looked at, so the bench holds across internal rewrites.
//
// Program A (instructions encoded with the generated systole_isa_pkg field
// positions): LOADs with padding into SP and an ACC tile, a WS MATMUL with
// zero points, a REQUANT with bias, per-column scales, clamps and ties, two
// STOREs (the int32 C tile and the int8 result, the latter at an unaligned
// DRAM address), tokens, END. Checked against values derived by hand below:
//   (a) the whole DRAM image after the run, byte for byte;
//   (b) every fetch, issue (per queue), channel grant and completion event
//       (the cycle it is reported, the completion cycle, the channel end),
//       the total and the `done` cycle;
// Program D (deadlock): a STORE whose compute->store token is never pushed:
//   (c) `quiescent` rises in the hand-derived cycle and stays; no `done`.
module tb_npu_top
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
(
    input logic clk
);
  localparam int BW = int'(DRAM_BW), DN = 1024;  // the DRAM bytes the bench models
  logic rst = 1'b1, start = 1'b0, dram_req_ready = 1'b1;
  logic [31:0] fetch_idx;
  logic [INSTR_BITS-1:0] fetch_inst;
  logic dram_req_valid, dram_req_write;
  logic [63:0] dram_req_addr;
  logic [DRAM_BW*8-1:0] dram_req_wdata, dram_rsp_rdata;
  logic [DRAM_BW-1:0] dram_req_wstrb;
  logic [63:0] cycle, ev_chan_end;
  logic done, quiescent, fault_overflow, fault_internal;
  logic ev_fetch_valid, ev_grant_valid;
  logic [31:0] ev_fetch_idx, ev_grant_idx;
  logic [2:0] ev_issue_valid, ev_sched_valid;
  logic [95:0] ev_issue_idx, ev_sched_idx;
  logic [191:0] ev_sched_end;
  npu_top dut (.*);

  // ---- instruction encoding (docs/isa.md §2 and §9) ----
  typedef logic [INSTR_BITS-1:0] inst_t;
  function automatic void put(inout inst_t I, input int lsb, input int w, input longint v);
    for (int b = 0; b < w; b++) I[lsb+b] = v[b];
  endfunction
  // Header: opcode and pop_prev, pop_next, push_prev, push_next (bits 8-11).
  function automatic inst_t hdr(input logic [7:0] op, input logic pp, input logic pn,
                                input logic up, input logic un);
    inst_t I = '0;
    I[7:0] = op;
    I[8] = pp;
    I[9] = pn;
    I[10] = up;
    I[11] = un;
    return I;
  endfunction
  // A 2-D DMA box (n2 = n3 = 1); LOAD and STORE share these field positions.
  function automatic inst_t dma(input inst_t H, input int acc, input int elem, input int sa,
                                input int da, input int n0, input int n1, input int s1,
                                input int t1);
    inst_t I = H;
    put(I, LOAD_SRAM_LSB, LOAD_SRAM_W, acc ? MEMORY_ACC : MEMORY_SP);
    put(I, LOAD_ELEM_BYTES_LSB, LOAD_ELEM_BYTES_W, elem);
    put(I, LOAD_SRAM_ADDR_LSB, LOAD_SRAM_ADDR_W, sa);
    put(I, LOAD_DRAM_ADDR_LSB, LOAD_DRAM_ADDR_W, da);
    put(I, LOAD_N0_LSB, LOAD_N0_W, n0);
    put(I, LOAD_N1_LSB, LOAD_N1_W, n1);
    put(I, LOAD_N2_LSB, LOAD_N2_W, 1);
    put(I, LOAD_N3_LSB, LOAD_N3_W, 1);
    put(I, LOAD_S1_LSB, LOAD_S1_W, s1);
    put(I, LOAD_T1_LSB, LOAD_T1_W, t1);
    return I;
  endfunction
  function automatic inst_t requant(input inst_t H);
    inst_t I = H;
    put(I, REQUANT_BIAS_LSB, REQUANT_BIAS_W, 1);
    put(I, REQUANT_ZP_LSB, REQUANT_ZP_W, 2);
    put(I, REQUANT_LO_LSB, REQUANT_LO_W, -10);
    put(I, REQUANT_HI_LSB, REQUANT_HI_W, 20);
    put(I, REQUANT_C_ADDR_LSB, REQUANT_C_ADDR_W, 16);
    put(I, REQUANT_C_STRIDE_LSB, REQUANT_C_STRIDE_W, 4);
    put(I, REQUANT_SCALE_ADDR_LSB, REQUANT_SCALE_ADDR_W, 4);
    put(I, REQUANT_O_ADDR_LSB, REQUANT_O_ADDR_W, 8192);
    put(I, REQUANT_O_STRIDE_LSB, REQUANT_O_STRIDE_W, 4);
    put(I, REQUANT_M_LSB, REQUANT_M_W, 4);
    put(I, REQUANT_N_LSB, REQUANT_N_W, 4);
    put(I, REQUANT_BIAS_ADDR_LSB, REQUANT_BIAS_ADDR_W, 0);
    return I;
  endfunction

  inst_t prog[8];
  assign fetch_inst = prog[fetch_idx % 8];

  // ---- the DRAM: bytes 0..DN-1 (every address the programs touch) ----
  logic [7:0] dram[DN], exp_dram[DN];
  always_comb
    for (int j = 0; j < BW; j++)
      dram_rsp_rdata[j*8 +: 8] = dram_req_valid && !dram_req_write ?
                                 dram[(int'(dram_req_addr) + j) % DN] : 8'h00;
  always_ff @(posedge clk)
    if (!rst && dram_req_valid) begin
      if (dram_req_addr >= 64'(DN) || dram_req_addr % 64'(BW) != 0)
        $error("DRAM request at %0h: outside the modelled DRAM or not beat-aligned", dram_req_addr);
      if (dram_req_write)
        for (int j = 0; j < BW; j++)
          if (dram_req_wstrb[j]) dram[(int'(dram_req_addr) + j) % DN] <= dram_req_wdata[j*8 +: 8];
    end

  // Byte / little-endian word writes into the DRAM (exp = 0) or into the
  // expected image (exp = 1).
  function automatic void put8(input bit to_exp, input int a, input int v);
    if (to_exp) exp_dram[a] = 8'(v);
    else dram[a] = 8'(v);
  endfunction
  function automatic void put32(input bit to_exp, input int a, input int v);
    for (int j = 0; j < 4; j++) put8(to_exp, a + j, v >> (8 * j));
  endfunction

  // Expected events: "cycle:idx" (fetch, issue per queue, grant) and
  // "cycle:idx->end/chan_end" (completion, reported when it is known: a
  // compute instruction at issue, a DMA at its last beat, whose channel end
  // is that beat + 1).
  string exp_fetch, exp_issue[3], exp_grant, exp_sched;
  string got_fetch, got_issue[3], got_grant, got_sched;
  int exp_total, exp_done, exp_quiescent, max_end, quiescent_at;

  task automatic load_program(input int p);
    inst_t I;
    for (int i = 0; i < 8; i++) prog[i] = hdr(OP_END, 0, 0, 0, 0);
    for (int a = 0; a < DN; a++) dram[a] = 8'ha5;  // untouched bytes must stay 0xa5
    if (p == 0) begin
      // ---- DRAM contents ----
      // A's two data rows at 0x10e (unaligned): d0 = [2, 3, -1, 0],
      // d1 = [5, 1, 1, -2].
      put8(0, 'h10e, 2); put8(0, 'h10f, 3); put8(0, 'h110, -1); put8(0, 'h111, 0);
      put8(0, 'h112, 5); put8(0, 'h113, 1); put8(0, 'h114, 1); put8(0, 'h115, -2);
      // B (4x4, row-major) at 0x120: rows k0 = [0, -1, -1, 1],
      // k1 = [-1, 0, -1, -1], k2 = [-1, -1, 0, 0], k3 = [-1, -1, -1, 2].
      begin
        automatic int b[16] = '{0, -1, -1, 1, -1, 0, -1, -1, -1, -1, 0, 0, -1, -1, -1, 2};
        for (int i = 0; i < 16; i++) put8(0, 'h120 + i, b[i]);
      end
      // ACC tile at 0x140: the int32 bias [-14, 3, 1, 5], then at 0x150 the
      // fp32 scales [1.0, 0.5, 0.5, 4.0] (bit patterns).
      put32(0, 'h140, -14); put32(0, 'h144, 3); put32(0, 'h148, 1); put32(0, 'h14c, 5);
      put32(0, 'h150, 'h3f800000); put32(0, 'h154, 'h3f000000);
      put32(0, 'h158, 'h3f000000); put32(0, 'h15c, 'h40800000);

      // ---- the program and its timing (docs/simulator.md "Timing rules";
      // tiny-4x4: 16-byte bursts = 4 beats of 4 bytes, latency 10,
      // cmd_depth 4, lanes 4, pipeline depth 2) ----
      // Fetch: one instruction per cycle, #i at cycle i (0..7). No queue
      // holds more than 2 waiting instructions (< cmd_depth 4): no stall.
      //
      // #0 LOAD A -> SP 0, pad_value 1, pad_left 1, pad_right 1: SP rows
      //   (4 bytes, t1 = 4) 0 = pad, 1 = d0, 2 = d1, 3 = pad.
      //   Runs: 0x10e..0x111 touches bursts 0x100 and 0x110 (2), 0x112..0x115
      //   touches 0x110 (1): 3 bursts x 4 = 12 beats. Issue + grant 0, beats
      //   0-11, end 11 + 1 + 10 = 22 (reported at 11, channel end 12).
      I = dma(hdr(OP_LOAD, 0, 0, 0, 0), 0, 1, 0, 'h10e, 4, 2, 4, 4);
      put(I, LOAD_PAD_VALUE_LSB, LOAD_PAD_VALUE_W, 1);
      put(I, LOAD_PAD_LEFT_LSB, LOAD_PAD_LEFT_W, 1);
      put(I, LOAD_PAD_RIGHT_LSB, LOAD_PAD_RIGHT_W, 1);
      prog[0] = I;
      // #1 LOAD B -> SP 4096 (bank 1), one 16-byte run at 0x120: 1 burst,
      //   4 beats. The load queue issues when #0 has left the channel: issue
      //   + grant 12, beats 12-15, end 26 (reported at 15, channel end 16).
      prog[1] = dma(hdr(OP_LOAD, 0, 0, 0, 0), 0, 1, 4096, 'h120, 16, 1, 16, 16);
      // #2 LOAD ACC words 0..7 (bias 0..3, scales 4..7), 2 runs of 16 bytes
      //   at 0x140 and 0x150: 2 bursts, 8 beats. Issue + grant 16, beats
      //   16-23, end 34 (reported at 23, channel end 24); push_next: the
      //   load->compute token appears at 34 (in-order retirement: #0 and
      //   #1 are done by then).
      prog[2] = dma(hdr(OP_LOAD, 0, 0, 0, 1), 1, 4, 0, 'h140, 4, 2, 16, 4);
      // #3 MATMUL WS, preload, M = K = N = 4, A at SP 0 (pitch 4), B at 4096,
      //   C at ACC 16 (stride 4), a_zp = 1, b_zp = -1; pop_prev, push_next.
      //   Fetched at 3, issues at 34 (the token is visible in its push
      //   cycle). T = R (preload) + M + R + C - 1 = 4 + 4 + 4 + 4 - 1 = 15:
      //   end 49 (reported at 34). Pushes compute->store at 49.
      I = hdr(OP_MATMUL, 1, 0, 0, 1);
      put(I, MATMUL_DATAFLOW_LSB, MATMUL_DATAFLOW_W, DATAFLOW_WS);
      put(I, MATMUL_PRELOAD_LSB, MATMUL_PRELOAD_W, 1);
      put(I, MATMUL_A_ZP_LSB, MATMUL_A_ZP_W, 1);
      put(I, MATMUL_B_ZP_LSB, MATMUL_B_ZP_W, -1);
      put(I, MATMUL_A_ADDR_LSB, MATMUL_A_ADDR_W, 0);
      put(I, MATMUL_A_M_INNER_STRIDE_LSB, MATMUL_A_M_INNER_STRIDE_W, 4);
      put(I, MATMUL_B_STRIDE_LSB, MATMUL_B_STRIDE_W, 4);
      put(I, MATMUL_A_M_INNER_LSB, MATMUL_A_M_INNER_W, 1000);  // a plain matrix
      put(I, MATMUL_A_K_INNER_LSB, MATMUL_A_K_INNER_W, 4);
      put(I, MATMUL_M_LSB, MATMUL_M_W, 4);
      put(I, MATMUL_K_LSB, MATMUL_K_W, 4);
      put(I, MATMUL_N_LSB, MATMUL_N_W, 4);
      put(I, MATMUL_B_ADDR_LSB, MATMUL_B_ADDR_W, 4096);
      put(I, MATMUL_C_ADDR_LSB, MATMUL_C_ADDR_W, 16);
      put(I, MATMUL_C_STRIDE_LSB, MATMUL_C_STRIDE_W, 4);
      prog[3] = I;
      // #4 REQUANT ACC 16.. (stride 4) -> SP 8192 (stride 4), M = N = 4,
      //   bias at ACC 0, per-column scales at ACC 4, zp 2, lo -10, hi 20;
      //   push_next. Issues when the MATMUL completes, 49;
      //   T = M * ceil(N / lanes) + P = 4 * 1 + 2 = 6: end 55 (reported at
      //   49). Pushes compute->store at 55.
      prog[4] = requant(hdr(OP_REQUANT, 0, 0, 0, 1));
      // #5 STORE ACC 16..31 (C, int32) -> DRAM 0x180, 4 runs of 16 bytes
      //   (s1 = 16, t1 = 4 words), aligned: 4 bursts, 16 beats; pop_prev.
      //   Fetched at 5; the MATMUL's token is there at 49: issue + grant 49
      //   (channel idle since 24), beats 49-64, end 75 (reported at 64,
      //   channel end 65).
      prog[5] = dma(hdr(OP_STORE, 1, 0, 0, 0), 1, 4, 16, 'h180, 4, 4, 16, 4);
      // #6 STORE SP 8192..8207 -> DRAM 0x202 + 4 i1 + i0 (n0 = 4, n1 = 4,
      //   s1 = t1 = 4); pop_prev. Runs 0x202..5, 0x206..9, 0x20a..d touch one
      //   burst each (0x200), 0x20e..0x211 two (0x200, 0x210): 5 bursts, 20
      //   beats. Its token is there at 55, the store queue is free when #5
      //   leaves the channel: issue + grant 65, beats 65-84, end 95
      //   (reported at 84, channel end 85).
      prog[6] = dma(hdr(OP_STORE, 1, 0, 0, 0), 0, 1, 8192, 'h202, 4, 4, 4, 4);
      // #7 END, fetched at 7. Total = max(last completion 95, 7 + 1) = 95;
      // the last retirement (cycle 95) empties the queues at the end of its
      // cycle, so `done` is raised in cycle 96.
      exp_fetch = "0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7 ";
      exp_issue[0] = "0:0 12:1 16:2 ";
      exp_issue[1] = "34:3 49:4 ";
      exp_issue[2] = "49:5 65:6 ";
      exp_grant = "0:0 12:1 16:2 49:5 65:6 ";
      exp_sched = "11:0->22/12 15:1->26/16 23:2->34/24 34:3->49 49:4->55 64:5->75/65 84:6->95/85 ";
      exp_total = 95;
      exp_done = 96;
      exp_quiescent = -1;

      // ---- expected DRAM image ----
      for (int a = 0; a < DN; a++) exp_dram[a] = dram[a];
      // SP after #0: rows pad [1,1,1,1], d0, d1, pad. A - a_zp (a_zp = 1):
      //   A' row 0 = [0,0,0,0] (padding with pad_value = a_zp contributes 0),
      //   row 1 = [1, 2, -2, -1], row 2 = [4, 0, 0, -3], row 3 = [0,0,0,0].
      // B - b_zp (b_zp = -1), B' = B + 1: k0 = [1,0,0,2], k1 = [0,1,0,0],
      //   k2 = [0,0,1,1], k3 = [0,0,0,3].
      // C = A' B': row 1 = 1*k0 + 2*k1 - 2*k2 - 1*k3 = [1, 2, -2, 2-2-3 = -3],
      //   row 2 = 4*k0 - 3*k3 = [4, 0, 0, 8-9 = -1], rows 0 and 3 = 0.
      // #5 stores C as int32 little-endian, row r at 0x180 + 16 r.
      begin
        automatic int c[16] = '{0, 0, 0, 0, 1, 2, -2, -3, 4, 0, 0, -1, 0, 0, 0, 0};
        for (int i = 0; i < 16; i++) put32(1, 'h180 + 4 * i, c[i]);
      end
      // REQUANT per element: v = C + bias[n], f = v * scale[n] (exact here),
      //   clamp f to [lo - zp, hi - zp] = [-12, 18], round half to even, + 2.
      //   v   row 0/3 = [-14, 3, 1, 5]   row 1 = [-13, 5, -1, 2]
      //       row 2   = [-10, 3, 1, 4]
      //   f   row 0/3 = [-14, 1.5, 0.5, 20]  row 1 = [-13, 2.5, -0.5, 8]
      //       row 2   = [-10, 1.5, 0.5, 16]
      //   clamp: -14, -13 -> -12; 20 -> 18.
      //   rne: 1.5 -> 2, 2.5 -> 2, 0.5 -> 0, -0.5 -> 0 (ties to even).
      //   y   row 0/3 = [-10, 4, 2, 20]  row 1 = [-10, 4, 2, 10]
      //       row 2   = [-8, 4, 2, 18]
      // #6 stores row r at 0x202 + 4 r; 0x200, 0x201 and 0x212.. keep 0xa5
      // (byte strobes of the partial beats).
      begin
        automatic int y[16] = '{-10, 4, 2, 20, -10, 4, 2, 10, -8, 4, 2, 18, -10, 4, 2, 20};
        for (int i = 0; i < 16; i++) put8(1, 'h202 + i, y[i]);
      end
    end else begin
      // Program D (deadlock).
      // #0 LOAD 16 bytes at 0x120 -> SP 4096, push_next: 4 beats 0-3, end 14
      //   (reported at 3, channel end 4).
      prog[0] = dma(hdr(OP_LOAD, 0, 0, 0, 1), 0, 1, 4096, 'h120, 16, 1, 16, 16);
      // #1 REQUANT, pop_prev, no push: issues at 14, 6 cycles, end 20.
      prog[1] = requant(hdr(OP_REQUANT, 1, 0, 0, 0));
      // #2 STORE pop_prev: waits for a compute->store token nobody pushes.
      prog[2] = dma(hdr(OP_STORE, 1, 0, 0, 0), 0, 1, 8192, 'h300, 16, 1, 16, 16);
      // #3 END, fetched at 3.
      // After the REQUANT retires (cycle 20) nothing is in flight, nothing
      // fetches and the STORE cannot issue: `quiescent` from cycle 21 on
      // (the retire queue empties at the end of cycle 20, as `done` comes
      // the cycle after the total), never `done`. The SystemC model reports
      // this deadlock at cycle 20, its last event (docs/simulator.md); the
      // co-simulation reports the cycle before the first `quiescent` one,
      // the same 20 (RtlCosim.DeadlocksAtTheSameInstructionAndCycle).
      exp_fetch = "0:0 1:1 2:2 3:3 ";
      exp_issue[0] = "0:0 ";
      exp_issue[1] = "14:1 ";
      exp_issue[2] = "";
      exp_grant = "0:0 ";
      exp_sched = "3:0->14/4 14:1->20 ";
      exp_total = -1;
      exp_done = -1;
      exp_quiescent = 21;
      for (int a = 0; a < DN; a++) exp_dram[a] = dram[a];  // no STORE runs
    end
    got_fetch = "";
    got_grant = "";
    got_sched = "";
    for (int q = 0; q < 3; q++) got_issue[q] = "";
    max_end = 0;
    quiescent_at = -1;
  endtask

  task automatic check_common(input int p);
    if (got_fetch != exp_fetch) $error("program %0d fetch: %s, expected %s", p, got_fetch, exp_fetch);
    for (int q = 0; q < 3; q++)
      if (got_issue[q] != exp_issue[q])
        $error("program %0d issue queue %0d: %s, expected %s", p, q, got_issue[q], exp_issue[q]);
    if (got_grant != exp_grant) $error("program %0d grants: %s, expected %s", p, got_grant, exp_grant);
    if (got_sched != exp_sched)
      $error("program %0d completions: %s, expected %s", p, got_sched, exp_sched);
    for (int a = 0; a < DN; a++)
      if (dram[a] !== exp_dram[a])
        $error("program %0d DRAM[0x%0h] = 0x%0h, expected 0x%0h", p, a, dram[a], exp_dram[a]);
  endtask

  // ---- stimulus: program A from t = 1, program D from t = 301 ----
  int t = -1, phase = -1;
  bit a_checked = 1'b0;
  always_ff @(negedge clk) begin
    t <= t + 1;
    rst <= t < 1 || t == 300;
    start <= t == 1 || t == 301;
    if (t == 0) begin
      // The hand derivations above assume tiny-4x4.
      if (ROWS != 4 || COLS != 4 || DRAM_BW != 4 || DRAM_BURST != 16 || DRAM_LATENCY != 10 ||
          CMD_DEPTH != 4 || TOKEN_DEPTH != 4 || LANES != 4 || PIPE_DEPTH != 2 ||
          SP_BYTES != 16384 || SP_BANKS != 4)
        $fatal(1, "tb_npu_top expects the tiny-4x4 config, got %s", CFG_NAME);
      load_program(0);
    end
    if (t == 300) load_program(1);
    if (t == 1) phase <= 0;
    if (t == 301) phase <= 1;
  end

  // ---- monitor: every event in the cycle it is reported ----
  always_ff @(posedge clk) begin
    if (!rst && phase >= 0 && t >= 2 && !done) begin
      if (ev_fetch_valid) got_fetch = {got_fetch, $sformatf("%0d:%0d ", cycle, ev_fetch_idx)};
      for (int q = 0; q < 3; q++)
        if (ev_issue_valid[q])
          got_issue[q] = {got_issue[q], $sformatf("%0d:%0d ", cycle, ev_issue_idx[q*32 +: 32])};
      if (ev_grant_valid) got_grant = {got_grant, $sformatf("%0d:%0d ", cycle, ev_grant_idx)};
      for (int q = 0; q < 3; q++)
        if (ev_sched_valid[q]) begin
          automatic longint e = longint'(ev_sched_end[q*64 +: 64]);
          got_sched = {got_sched, $sformatf("%0d:%0d->%0d", cycle, ev_sched_idx[q*32 +: 32], e)};
          // Load and store queues (0, 2) are DMAs here: their channel end.
          got_sched = {got_sched, q != 1 ? $sformatf("/%0d ", ev_chan_end) : " "};
          if (int'(e) > max_end) max_end = int'(e);
        end
      if (fault_overflow || fault_internal)
        $error("program %0d: fault (overflow %0d, internal %0d) at cycle %0d", phase,
               fault_overflow, fault_internal, cycle);
      if (quiescent && quiescent_at < 0) quiescent_at = int'(cycle);
      if (!quiescent && quiescent_at >= 0)
        $error("program %0d: quiescent dropped at cycle %0d", phase, cycle);
      if (phase == 0 && cycle > 200) $fatal(1, "program 0: not done by cycle 200");
      // Program D: let the deadlock stand 40 cycles, then check.
      if (phase == 1 && int'(cycle) == exp_quiescent + 40) begin
        check_common(1);
        if (quiescent_at != exp_quiescent)
          $error("program 1: quiescent from cycle %0d, expected %0d", quiescent_at, exp_quiescent);
        $display("tb_npu_top: program D (deadlock) equal: quiescent from cycle %0d, held to %0d, no done",
                 quiescent_at, cycle);
        $finish;
      end
    end
    if (!rst && phase == 0 && t >= 2 && done && !a_checked) begin
      check_common(0);
      // Total cycles = max(last completion, END's fetch cycle + 1).
      if (max_end < 8) max_end = 8;
      if (max_end != exp_total) $error("program 0: total %0d, expected %0d", max_end, exp_total);
      if (int'(cycle) != exp_done) $error("program 0: done at %0d, expected %0d", cycle, exp_done);
      if (quiescent_at >= 0) $error("program 0: quiescent at cycle %0d", quiescent_at);
      $display("tb_npu_top: program A equal (completions %s| total %0d, done at %0d; DRAM image %0d bytes)",
               got_sched, max_end, cycle, DN);
      a_checked <= 1'b1;
    end
    if (phase == 1 && done) $fatal(1, "program 1 (deadlock) raised done at cycle %0d", cycle);
  end
endmodule
