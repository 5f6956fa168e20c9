// Self-checking testbench of npu_controller on the tiny-4x4 config
// (cmd_depth 4, DRAM latency 10; driven by tb_main.cpp's clock). A DMA stub
// holds the channel for n0 beats (the controller only sees active /
// last_beat). Two programs whose every event cycle is derived by hand from
// docs/simulator.md "Timing rules" (derivations in the comments):
//   A (tokens): LOAD -> compute FENCE -> STORE chained by tokens.
//   B (queues, channel order): seven 4-beat LOADs fill the load queue and
//     stall fetch; a STORE requesting earlier wins the channel over a LOAD.
// Checked: the cycle and index of every fetch, issue (per queue) and
// channel grant, each instruction's completion cycle, and the total.
module tb_npu_controller
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
(
    input logic clk
);
  logic rst = 1'b1, start = 1'b0, dma_active, dma_last_beat;
  logic [31:0] fetch_idx;
  logic [INSTR_BITS-1:0] fetch_inst, dma_start_inst, exec_inst, mm_inst;
  logic pp_exec, c_issue;
  logic [7:0] pp_exec_op;
  logic dma_start, exec, running, done, quiescent, fault_overflow, fault_internal;
  logic [63:0] mm_cycles, cycle, ev_chan_end;
  logic ev_fetch_valid, ev_grant_valid;
  logic [31:0] ev_fetch_idx, ev_grant_idx;
  logic [2:0] ev_issue_valid, ev_sched_valid;
  logic [95:0] ev_issue_idx, ev_sched_idx;
  logic [191:0] ev_sched_end;
  npu_controller dut (.*);

  // ---- programs ----
  function automatic logic [INSTR_BITS-1:0] dma(input logic st, input int beats,
                                                input logic [3:0] deps);
    logic [INSTR_BITS-1:0] I = '0;
    I[7:0] = st ? OP_STORE : OP_LOAD;
    I[11:8] = deps;  // pop_prev, pop_next, push_prev, push_next
    I[LOAD_N0_LSB +: LOAD_N0_W] = LOAD_N0_W'(beats);  // the stub's beat count
    return I;
  endfunction
  function automatic logic [INSTR_BITS-1:0] op(input logic [7:0] code, input int queue,
                                               input logic [3:0] deps);
    logic [INSTR_BITS-1:0] I = '0;
    I[7:0] = code;
    I[11:8] = deps;
    I[FENCE_QUEUE_LSB +: FENCE_QUEUE_W] = FENCE_QUEUE_W'(queue);
    return I;
  endfunction

  logic [INSTR_BITS-1:0] prog[16];
  int phase = 0;
  // Expected events: "cycle:idx" strings in order, per kind.
  string exp_fetch, exp_issue[3], exp_grant, exp_end;
  string got_fetch, got_issue[3], got_grant, got_end;
  int exp_total, max_end;

  task automatic load_program(input int p);
    for (int i = 0; i < 16; i++) prog[i] = op(OP_END, 0, 4'b0000);
    if (p == 0) begin
      // LOAD 4 beats, push_next: issue and grant at 0, beats 0-3, last beat
      //   3 -> end 3 + 1 + 10 = 14; the load unit is free from 4.
      prog[0] = dma(0, 4, 4'b1000);
      // LOAD 2 beats: fetched at 1, issues and is granted at 4 -> end 16.
      prog[1] = dma(0, 2, 4'b0000);
      // compute FENCE, pop_prev + push_next: fetched at 2, issues at 14 when
      //   the LOAD's token is pushed (visible the same cycle), ends at 15.
      prog[2] = op(OP_FENCE, 1, 4'b1001);
      // STORE 3 beats, pop_prev: fetched at 3, issues and is granted at 15
      //   (the FENCE's token), beats 15-17 -> end 28.
      prog[3] = dma(1, 3, 4'b0001);
      prog[4] = op(OP_END, 0, 4'b0000);  // fetched at 4
      exp_fetch = "0:0 1:1 2:2 3:3 4:4 ";
      exp_issue[0] = "0:0 4:1 ";
      exp_issue[1] = "14:2 ";
      exp_issue[2] = "15:3 ";
      exp_grant = "0:0 4:1 15:3 ";
      exp_end = "0->14 1->16 2->15 3->28 ";
      exp_total = 28;
    end else begin
      // L0..L6: 4-beat LOADs. L0 issues at 0 (beats 0-3), L1..L3 queue at
      // 1..3, L4 at 4 (3 queued at the start of 4; L1 issues at 4), L5 at 5
      // fills the queue (4). L6 stalls at 6, 7, 8 (L2's issue at 8 frees a
      // slot usable at 9) and is fetched at 9.
      for (int i = 0; i < 7; i++) prog[i] = dma(0, 4, 4'b0000);
      // STORE 2 beats: fetched at 10, issues at 10 and requests the channel
      // (L2 holds it, 8-11). At 12 L3 issues and requests too: the STORE's
      // earlier request wins (12-13, end 13 + 1 + 10 = 24), L3 is granted at
      // 14 (14-17, end 28), then L4 at 18 (end 32), L5 at 22 (36), L6 at 26
      // (40).
      prog[7] = dma(1, 2, 4'b0000);
      prog[8] = op(OP_END, 0, 4'b0000);  // fetched at 11
      exp_fetch = "0:0 1:1 2:2 3:3 4:4 5:5 9:6 10:7 11:8 ";
      exp_issue[0] = "0:0 4:1 8:2 12:3 18:4 22:5 26:6 ";
      exp_issue[1] = "";
      exp_issue[2] = "10:7 ";
      exp_grant = "0:0 4:1 8:2 12:7 14:3 18:4 22:5 26:6 ";
      exp_end = "0->14 1->18 2->22 7->24 3->28 4->32 5->36 6->40 ";
      exp_total = 40;
    end
    got_fetch = "";
    max_end = 0;
    got_grant = "";
    got_end = "";
    for (int q = 0; q < 3; q++) got_issue[q] = "";
  endtask

  assign fetch_inst = prog[fetch_idx % 16];

  // ---- DMA stub: the grant cycle is the first beat ----
  int rem = 0;
  logic act = 1'b0;
  assign dma_active = act;
  assign dma_last_beat = dma_start ? int'(dma_start_inst[LOAD_N0_LSB +: LOAD_N0_W]) == 1
                                   : act && rem == 1;

  int t = -1;
  always_ff @(negedge clk) begin
    t <= t + 1;
    rst <= t < 1 || t == 200;
    start <= t == 1 || t == 201;
    if (t == 0) load_program(0);
    if (t == 200) load_program(1);
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      act <= 1'b0;
      rem <= 0;
    end else begin
      if (dma_start) begin
        automatic int b = int'(dma_start_inst[LOAD_N0_LSB +: LOAD_N0_W]);
        act <= b > 1;
        rem <= b - 1;
      end else if (act) begin
        rem <= rem - 1;
        if (rem == 1) act <= 1'b0;
      end
      if (running && !done) begin
        if (ev_fetch_valid) got_fetch = {got_fetch, $sformatf("%0d:%0d ", cycle, ev_fetch_idx)};
        // Total cycles = max(last completion, END's fetch cycle + 1).
        if (ev_fetch_valid && fetch_inst[7:0] == OP_END && int'(cycle) + 1 > max_end)
          max_end = int'(cycle) + 1;
        for (int q = 0; q < 3; q++)
          if (ev_issue_valid[q])
            got_issue[q] = {got_issue[q], $sformatf("%0d:%0d ", cycle, ev_issue_idx[q*32 +: 32])};
        if (ev_grant_valid) got_grant = {got_grant, $sformatf("%0d:%0d ", cycle, ev_grant_idx)};
        for (int q = 0; q < 3; q++)
          if (ev_sched_valid[q]) begin
            got_end = {got_end, $sformatf("%0d->%0d ", ev_sched_idx[q*32 +: 32],
                                          ev_sched_end[q*64 +: 64])};
            if (int'(ev_sched_end[q*64 +: 64]) > max_end) max_end = int'(ev_sched_end[q*64 +: 64]);
          end
        if (fault_overflow || fault_internal) $error("program %0d: fault at cycle %0d", phase, cycle);
        if (cycle > 100) $error("program %0d: not done by cycle 100", phase);
      end
      if (running && done && phase >= 0) begin
        if (got_fetch != exp_fetch) $error("program %0d fetch: %s, expected %s", phase, got_fetch, exp_fetch);
        for (int q = 0; q < 3; q++)
          if (got_issue[q] != exp_issue[q])
            $error("program %0d issue queue %0d: %s, expected %s", phase, q, got_issue[q], exp_issue[q]);
        if (got_grant != exp_grant) $error("program %0d grants: %s, expected %s", phase, got_grant, exp_grant);
        if (got_end != exp_end) $error("program %0d ends: %s, expected %s", phase, got_end, exp_end);
        if (max_end != exp_total) $error("program %0d: total %0d, expected %0d", phase, max_end, exp_total);
        // The last retirement empties the queues at the end of its cycle:
        // `done` is raised in the next one.
        if (int'(cycle) != exp_total + 1)
          $error("program %0d: done at %0d, expected %0d", phase, cycle, exp_total + 1);
        $display("tb_npu_controller: program %0d equal (fetch %s| grants %s| ends %s| total %0d)",
                 phase, got_fetch, got_grant, got_end, max_end);
        if (phase == 1) $finish;
        phase <= -1;  // until the next program starts
      end
      if (start && t > 100) phase <= 1;
    end
  end
endmodule
