// The controller (docs/isa.md §3, docs/simulator.md "Timing rules"): fetch
// (one instruction per cycle into the cmd_depth-deep load/compute/store
// queues, stalling on a full queue), in-order issue per queue gated by the
// unit and the dependency tokens (popped at issue), the DRAM channel
// arbiter (request order, ties to the load path, non-preemptive), and
// in-order retirement that pushes tokens at completion. With
// REQUANT_OVERLAP (vector.requant_overlap) a REQUANT (VADD, VMUL, VLUT)
// holds only the post-processor: a second busy timer and its own retire
// stream, so the MATMULs after it issue once the array is free (isa.md §3).
//
// With MATMUL_INFLIGHT (array.matmul_inflight) > 1 the array takes a WS
// MATMUL before the previous ones have drained, by isa::MatmulPipeline's
// rule (isa/lib/MatmulPipeline.cpp), kept here over the last
// MATMUL_INFLIGHT MATMULs; every other compute instruction waits until the
// array has drained.
//
// Order of decisions inside one cycle, as in the SystemC model: retirement
// pushes, then fetch (sees queue occupancy at the start of the cycle), then
// issue (sees this cycle's pushes and a just-fetched head), then arbitration
// (sees this cycle's requests).
module npu_controller
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
  import npu_timing_pkg::*;
(
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,
    // instruction fetch port
    // instruction fetch port: the instruction at fetch_idx, supplied in the
    // same cycle, is latched at the clock edge (the fetch unit reads one
    // instruction ahead, so no logic depends combinationally on the port)
    output logic [31:0]           fetch_idx,
    input  logic [INSTR_BITS-1:0] fetch_inst,
    // DMA engine
    output logic                  dma_start,
    output logic [INSTR_BITS-1:0] dma_start_inst,
    input  logic                  dma_active,
    input  logic                  dma_last_beat,
    // datapath: compute instruction completing at the end of this cycle
    output logic                  exec,
    output logic [INSTR_BITS-1:0] exec_inst,
    // datapath: an instruction on the post-processor (REQUANT, VADD, VMUL,
    // VLUT) completing at the end of this cycle, and its opcode
    // (REQUANT_OVERLAP only; otherwise they complete through exec)
    output logic                  pp_exec,
    output logic [7:0]            pp_exec_op,
    // compute instruction (not FENCE) issuing this cycle
    output logic                  c_issue,
    // the compute queue's head and its occupancy (computeCycles), valid
    // with c_issue
    output logic [INSTR_BITS-1:0] mm_inst,
    output logic [63:0]           mm_cycles,
    // status
    output logic [63:0]           cycle,
    output logic                  running,
    output logic                  done,
    output logic                  quiescent,
    output logic                  fault_overflow,
    output logic                  fault_internal,
    // per-cycle events for traces and the per-instruction comparison
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
  localparam int QL = 0, QC = 1, QS = 2;
  // Token FIFOs: load->compute, compute->load, compute->store, store->compute.
  localparam int L2C = 0, C2L = 1, C2S = 2, S2C = 3;
  localparam logic [63:0] NEVER = '1;

  logic end_seen, fault_q;
  logic [31:0] pc;

  // ---- fetch ----
  logic [7:0] fop;
  logic [1:0] fq;
  logic fetch_go, fetch_end;
  logic [2:0] qpush, qfull, qempty, hvalid;
  logic [31:0] hidx[3];
  logic [INSTR_BITS-1:0] hinst[3];
  // The instruction at pc, read in the previous cycle (fetch_idx below is
  // the next cycle's pc). Without this register the command queues' bypass
  // would put the whole issue logic and every engine's start decode behind
  // the input port (Verilator evaluates that logic on every eval).
  logic [INSTR_BITS-1:0] cur_inst;
  always_ff @(posedge clk) cur_inst <= fetch_inst;
  assign fop = cur_inst[7:0];
  assign fq = fop == OP_LOAD ? 2'(QL) : fop == OP_STORE ? 2'(QS) :
              fop == OP_FENCE ? cur_inst[FENCE_QUEUE_LSB +: 2] : 2'(QC);
  assign fetch_go = running && !end_seen && !fault_q;
  assign fetch_end = fetch_go && fop == OP_END;
  always_comb
    for (int q = 0; q < 3; q++)
      qpush[q] = fetch_go && fop != OP_END && 32'(fq) == q && !qfull[q];
  assign fetch_idx = ev_fetch_valid ? pc + 1 : pc;
  assign ev_fetch_valid = fetch_end || qpush != 0;
  assign ev_fetch_idx = pc;

  logic [2:0] issue;
  for (genvar q = 0; q < 3; q++) begin : g_queue
    npu_cmd_queue #(.DEPTH(int'(CMD_DEPTH))) u_queue (
        .clk, .rst,
        .push(qpush[q]), .push_idx(pc), .push_inst(cur_inst),
        .pop(issue[q]),
        .full(qfull[q]), .empty(qempty[q]),
        .head_valid(hvalid[q]), .head_idx(hidx[q]), .head_inst(hinst[q]));
  end

  // ---- retirement and tokens ----
  logic [2:0] rpush, rempty, roverrun;
  logic [63:0] rend[3];
  logic [7:0] rprev[3], rnext[3];
  for (genvar q = 0; q < 3; q++) begin : g_retire
    npu_retire_queue #(.DEPTH(q == QC ? NS + 4 : int'(INFLIGHT_DEPTH))) u_retire (
        .clk, .rst, .cycle,
        .push(rpush[q]), .push_end(rend[q]),
        .push_prev_flag(rq_flags[q][1]), .push_next_flag(rq_flags[q][0]),
        .retire_prev(rprev[q]), .retire_next(rnext[q]),
        .empty(rempty[q]), .overrun(roverrun[q]));
  end
  logic [1:0] rq_flags[3];

  // The post-processor's retire stream: REQUANTs complete in their own
  // order beside the other compute instructions (at most one runs at a time).
  logic pp_push, pp_empty, pp_overrun;
  logic [7:0] pp_prev, pp_next;
  npu_retire_queue #(.DEPTH(4)) u_retire_pp (
      .clk, .rst, .cycle,
      .push(pp_push), .push_end(cend),
      .push_prev_flag(hinst[QC][10]), .push_next_flag(hinst[QC][11]),
      .retire_prev(pp_prev), .retire_next(pp_next),
      .empty(pp_empty), .overrun(pp_overrun));

  logic [3:0] tpop, tavail, tover;
  logic [7:0] tpush[4];
  assign tpush[L2C] = rnext[QL];
  assign tpush[C2L] = rprev[QC] + pp_prev;
  assign tpush[C2S] = rnext[QC] + pp_next;
  assign tpush[S2C] = rprev[QS];
  for (genvar f = 0; f < 4; f++) begin : g_tokens
    npu_token_fifo #(.DEPTH(int'(TOKEN_DEPTH))) u_fifo (
        .clk, .rst, .push_count(tpush[f]), .pop(tpop[f]),
        .available(tavail[f]), .overflow(tover[f]));
  end

  // ---- the MATMUL pipeline: the last NS MATMULs (0 = newest) ----
  localparam int NS = int'(MATMUL_INFLIGHT);
  logic [NS-1:0] mh_valid;
  logic [INSTR_BITS-1:0] mh_inst[NS];
  logic [63:0] mh_start[NS], mh_end[NS];
  logic lp_valid;  // lp_start: issue cycle of the last preloading WS MATMUL
  logic [63:0] lp_start;
  function automatic logic mm_ws(input logic [INSTR_BITS-1:0] I);
    return I[MATMUL_DATAFLOW_LSB +: MATMUL_DATAFLOW_W] == 1'(DATAFLOW_WS);
  endfunction
  function automatic logic [63:0] mm_p(input logic [INSTR_BITS-1:0] I);
    return I[MATMUL_PRELOAD_LSB] ? 64'(ROWS) : 64'd0;
  endfunction
  // MatmulPipeline::mayFollow: both WS, accumulator boxes disjoint or the
  // same tile (the fields' widths keep these sums within 64 bits).
  function automatic logic may_follow(input logic [INSTR_BITS-1:0] E,
                                      input logic [INSTR_BITS-1:0] L);
    logic [63:0] ea, es, em, en, la, ls, lm, ln;
    ea = 64'(E[MATMUL_C_ADDR_LSB +: MATMUL_C_ADDR_W]);
    es = 64'(E[MATMUL_C_STRIDE_LSB +: MATMUL_C_STRIDE_W]);
    em = 64'(E[MATMUL_M_LSB +: MATMUL_M_W]);
    en = 64'(E[MATMUL_N_LSB +: MATMUL_N_W]);
    la = 64'(L[MATMUL_C_ADDR_LSB +: MATMUL_C_ADDR_W]);
    ls = 64'(L[MATMUL_C_STRIDE_LSB +: MATMUL_C_STRIDE_W]);
    lm = 64'(L[MATMUL_M_LSB +: MATMUL_M_W]);
    ln = 64'(L[MATMUL_N_LSB +: MATMUL_N_W]);
    if (!mm_ws(E) || !mm_ws(L)) return 1'b0;
    if (ea + (em == 0 ? 0 : em - 1) * es + en <= la ||
        la + (lm == 0 ? 0 : lm - 1) * ls + ln <= ea)
      return 1'b1;
    if (ea == la && es == ls && en == ln && (es >= en || (em <= 1 && lm <= 1)))
      return 1'b1;
    // Column slices of one tile: one row pitch, the higher box's rows
    // between the lower one's.
    if (es != ls) return 1'b0;
    if (ea <= la) return la - ea >= en && la - ea + ln <= es;
    return ea - la >= ln && ea - la + en <= es;
  endfunction
  // MatmulPipeline::earliestIssue of the MATMUL I.
  function automatic logic [63:0] mm_ready(input logic [INSTR_BITS-1:0] I);
    logic [63:0] r, rows_free;
    if (!mh_valid[0]) return 64'd0;
    if (NS <= 1 || !may_follow(mh_inst[0], I)) return mh_end[0];
    rows_free = mh_start[0] + mm_p(mh_inst[0]) + 64'(mh_inst[0][MATMUL_M_LSB +: MATMUL_M_W]);
    r = rows_free > mm_p(I) ? rows_free - mm_p(I) : 64'd0;
    if (mm_p(I) != 0 && lp_valid && lp_start + ROWS > r) r = lp_start + ROWS;
    if (mh_valid[NS-1] && mh_end[NS-1] > r) r = mh_end[NS-1];
    for (int k = 0; k < NS; k++)
      if (mh_valid[k] && !may_follow(mh_inst[k], I) && mh_end[k] > r) r = mh_end[k];
    return r;
  endfunction
  wire [63:0] mm_drained = mh_valid[0] ? mh_end[0] : 64'd0;
  wire head_mm = hinst[QC][7:0] == OP_MATMUL;
  logic mm_busy;

  // ---- issue ----
  logic [63:0] unit_free[3], last_end[3], post_free;
  logic [2:0] tok_ok, unit_ok, is_dma;
  // The post-processor takes REQUANT and the vector unit's elementwise
  // instructions (isa::onPostProcessor).
  wire [7:0] hop_c = hinst[QC][7:0];
  wire head_on_pp = REQUANT_OVERLAP && (hop_c == OP_REQUANT || hop_c == OP_VADD ||
                                        hop_c == OP_VMUL || hop_c == OP_VLUT);
  always_comb begin
    tok_ok[QL] = !hinst[QL][9] || tavail[C2L];
    tok_ok[QC] = (!hinst[QC][8] || tavail[L2C]) && (!hinst[QC][9] || tavail[S2C]);
    tok_ok[QS] = !hinst[QS][8] || tavail[C2S];
    for (int q = 0; q < 3; q++) begin
      unit_ok[q] = cycle >= unit_free[q];
      // Only MATMULs issue past a running REQUANT.
      if (q == QC && REQUANT_OVERLAP && hinst[q][7:0] != OP_MATMUL)
        unit_ok[q] = unit_ok[q] && cycle >= post_free;
      // The array's rule for MATMULs; the rest waits until it has drained.
      if (q == QC)
        unit_ok[q] = unit_ok[q] && cycle >= (head_mm ? mm_ready(hinst[q]) : mm_drained);
      is_dma[q] = hinst[q][7:0] == OP_LOAD || hinst[q][7:0] == OP_STORE;
      issue[q] = running && !fault_q && hvalid[q] && unit_ok[q] && tok_ok[q];
    end
    tpop[L2C] = issue[QC] && hinst[QC][8];
    tpop[C2L] = issue[QL] && hinst[QL][9];
    tpop[C2S] = issue[QS] && hinst[QS][8];
    tpop[S2C] = issue[QC] && hinst[QC][9];
  end
  assign ev_issue_valid = issue;
  assign ev_issue_idx = {hidx[2], hidx[1], hidx[0]};

  // Compute: occupancy and completion are known at issue.
  logic [63:0] cdur, cend;
  logic c_busy, p_busy;
  logic [63:0] c_end, p_end;
  logic [7:0] p_op;
  logic [INSTR_BITS-1:0] c_inst;
  assign cdur = compute_cycles(hinst[QC]);
  // The post-processor's work is not ordered after the array's.
  assign cend = head_on_pp || cycle + cdur > last_end[QC] ? cycle + cdur : last_end[QC];
  wire c_exec_now = issue[QC] && cdur == 1 && hinst[QC][7:0] != OP_FENCE && !head_on_pp;
  assign exec = c_exec_now || (c_busy && cycle + 1 == c_end);
  assign exec_inst = c_exec_now ? hinst[QC] : c_inst;
  wire p_exec_now = issue[QC] && cdur == 1 && head_on_pp;
  assign pp_exec = p_exec_now || (p_busy && cycle + 1 == p_end);
  assign pp_exec_op = p_exec_now ? hop_c : p_op;
  assign pp_push = issue[QC] && head_on_pp;
  assign c_issue = issue[QC] && hinst[QC][7:0] != OP_FENCE;
  assign mm_inst = hinst[QC];
  assign mm_cycles = cdur;

  // ---- DRAM channel: a pending request per path (load = 0, store = 1) ----
  logic [1:0] req_q, req_v, grant;
  logic [63:0] req_cyc_q[2], req_cyc[2];
  logic [31:0] req_idx_q[2], req_idx[2];
  logic [INSTR_BITS-1:0] req_inst_q[2], req_inst[2];
  always_comb begin
    for (int p = 0; p < 2; p++) begin
      automatic logic [1:0] q = p == 0 ? 2'(QL) : 2'(QS);
      req_v[p] = req_q[p] || (issue[q] && is_dma[q]);
      req_cyc[p] = req_q[p] ? req_cyc_q[p] : cycle;
      req_idx[p] = req_q[p] ? req_idx_q[p] : hidx[q];
      req_inst[p] = req_q[p] ? req_inst_q[p] : hinst[q];
    end
    grant[0] = !dma_active && req_v[0] && (!req_v[1] || req_cyc[0] <= req_cyc[1]);
    grant[1] = !dma_active && req_v[1] && !grant[0];
  end
  assign dma_start = grant != 0;
  assign dma_start_inst = grant[1] ? req_inst[1] : req_inst[0];
  assign ev_grant_valid = dma_start;
  assign ev_grant_idx = grant[1] ? req_idx[1] : req_idx[0];
  logic owner;  // path of the transfer on the channel
  logic [31:0] owner_idx;
  logic [1:0] owner_flags;
  wire oq_is_store = dma_start ? grant[1] : owner;
  wire [31:0] oidx = dma_start ? ev_grant_idx : owner_idx;
  wire [1:0] oflags = dma_start ? {dma_start_inst[10], dma_start_inst[11]} : owner_flags;

  // ---- retire queue pushes and the scheduling events ----
  always_comb begin
    for (int q = 0; q < 3; q++) begin
      rpush[q] = 1'b0;
      rend[q] = '0;
      rq_flags[q] = {hinst[q][10], hinst[q][11]};  // {push_prev, push_next}
      ev_sched_idx[q*32 +: 32] = hidx[q];
    end
    ev_chan_end = cycle + 1;
    // compute queue: every instruction, at issue
    rpush[QC] = issue[QC] && !head_on_pp;
    rend[QC] = cend;
    // load/store queue FENCE: one cycle, retires in order
    for (int q = 0; q < 3; q += 2)
      if (issue[q] && !is_dma[q]) begin
        rpush[q] = 1'b1;
        rend[q] = cycle + 1 > last_end[q] ? cycle + 1 : last_end[q];
      end
    // a DMA's completion is known at its last beat
    for (int q = 0; q < 3; q += 2)
      if (dma_last_beat && oq_is_store == (q == QS)) begin
        rpush[q] = 1'b1;
        rend[q] = cycle + 1 + 64'(DRAM_LATENCY) > last_end[q] ?
                  cycle + 1 + 64'(DRAM_LATENCY) : last_end[q];
        rq_flags[q] = oflags;
        ev_sched_idx[q*32 +: 32] = oidx;
      end
    ev_sched_valid = rpush | {1'b0, pp_push, 1'b0};
    ev_sched_end = {rend[2], rend[1], rend[0]};
  end

  // ---- status ----
  wire idle = rempty == 3'b111 && pp_empty && qempty == 3'b111 && req_q == 2'b00 &&
              !dma_active && !c_busy && !p_busy && !mm_busy;
  assign done = running && end_seen && idle;
  assign quiescent = running && !done && issue == 0 && !ev_fetch_valid &&
                     rempty == 3'b111 && pp_empty && req_q == 2'b00 && !dma_active &&
                     !c_busy && !p_busy && !mm_busy;
  assign fault_overflow = fault_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
      cycle <= '0;
      pc <= '0;
      end_seen <= 1'b0;
      fault_q <= 1'b0;
      fault_internal <= 1'b0;
      c_busy <= 1'b0;
      p_busy <= 1'b0;
      mm_busy <= 1'b0;
      mh_valid <= '0;
      lp_valid <= 1'b0;
      post_free <= '0;
      req_q <= '0;
      for (int q = 0; q < 3; q++) begin
        unit_free[q] <= '0;
        last_end[q] <= '0;
      end
    end else begin
      if (start) running <= 1'b1;
      if (running && !done) cycle <= cycle + 1;
      if (tover != 0) fault_q <= 1'b1;
      if (roverrun != 0 || pp_overrun) fault_internal <= 1'b1;
      if (ev_fetch_valid) pc <= pc + 1;
      if (fetch_end) end_seen <= 1'b1;
      for (int q = 0; q < 3; q++)
        if (rpush[q]) last_end[q] <= rend[q];
      // compute unit
      if (c_busy && cycle + 1 == c_end) c_busy <= 1'b0;
      if (p_busy && cycle + 1 == p_end) p_busy <= 1'b0;
      if (issue[QC] && head_on_pp) begin
        post_free <= cycle + cdur;
        if (cdur > 1) begin
          p_busy <= 1'b1;
          p_end <= cycle + cdur;
          p_op <= hop_c;
        end
      end
      if (mm_busy && cycle + 1 == mh_end[0]) mm_busy <= 1'b0;
      if (issue[QC] && head_mm) begin
        for (int k = NS - 1; k > 0; k--) begin
          mh_valid[k] <= mh_valid[k-1];
          mh_inst[k] <= mh_inst[k-1];
          mh_start[k] <= mh_start[k-1];
          mh_end[k] <= mh_end[k-1];
        end
        mh_valid[0] <= 1'b1;
        mh_inst[0] <= hinst[QC];
        mh_start[0] <= cycle;
        mh_end[0] <= cycle + cdur;
        if (mm_ws(hinst[QC]) && hinst[QC][MATMUL_PRELOAD_LSB]) begin
          lp_valid <= 1'b1;
          lp_start <= cycle;
        end
        if (cdur > 1) mm_busy <= 1'b1;
      end
      if (issue[QC] && !head_on_pp && !head_mm) begin
        unit_free[QC] <= cycle + cdur;
        if (hinst[QC][7:0] != OP_FENCE && cdur > 1) begin
          c_busy <= 1'b1;
          c_end <= cycle + cdur;
          c_inst <= hinst[QC];
        end
      end
      // load/store queues
      for (int p = 0; p < 2; p++) begin
        automatic logic [1:0] q = p == 0 ? 2'(QL) : 2'(QS);
        if (issue[q]) unit_free[q] <= is_dma[q] ? NEVER : cycle + 1;
        if (issue[q] && is_dma[q] && !grant[p]) begin
          req_q[p] <= 1'b1;
          req_cyc_q[p] <= cycle;
          req_idx_q[p] <= hidx[q];
          req_inst_q[p] <= hinst[q];
        end
        if (grant[p]) req_q[p] <= 1'b0;
      end
      if (dma_start) begin
        owner <= grant[1];
        owner_idx <= ev_grant_idx;
        owner_flags <= {dma_start_inst[10], dma_start_inst[11]};
      end
      if (dma_last_beat) unit_free[oq_is_store ? QS : QL] <= cycle + 1;
    end
  end
endmodule
