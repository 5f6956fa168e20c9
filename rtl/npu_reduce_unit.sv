// The VREDUCE engine (docs/isa.md, isa::reduceRow): lanes take rows, lane l
// of group g row j = g*LANES + l (the fp32 sum is sequential, so a row is
// never split), lanes with j >= n1 idle. A group takes n0 + 4 slots, so
// isa::computeCycles = ceil(n1/LANES)*(n0 + kReduceFinishCycles) +
// PIPE_DEPTH is its schedule.
//
// A lane follows isa::eigenRowSum for its row's phase ph = (phase + j*n0)
// % 4: st = min((4 - ph) % 4, n0) elements before the first aligned one,
// np = (n0 - st) / 4 whole packets (E = 4*np elements, st .. st+E), a tail
// of T = n0 - E elements (0 .. st, then st+E .. n0). Its n0 + 4 slots are
// n0 reads of one element each and four operations on the accumulators:
//   slots 0 .. K-1          packets: packet 0 loads P, packet 1 loads Q,
//                           then even packets add into P, odd ones into Q
//                           (K = E, or E - 4 with an odd np >= 3);
//   slot K                  P = P + Q (np >= 2), four adds;
//   slots K+1 .. E          (odd np >= 3) the last packet, P += v;
//   slot E+1                lo = P0 + P2, hi = P1 + P3;
//   slot E+2                s = lo + hi;
//   slots E+3 .. E+3+T-1    the tail in order, s += v (np = 0: the whole
//                           row in order, s = v0 first);
//   slot n0+3 (= E+3+T)     the lane's byte: quantizeLinear(s, or s / n0
//                           with mean), written PIPE_DEPTH registers later
//                           (npu_lane_write_pipe).
// Every lane's slot n0+3 is the group's last cycle, so all lanes write
// together. Group 0's first cycle is the start cycle (fields straight from
// `inst`); the last write lands at the edge ending s + computeCycles - 1.
// The verifier keeps the results apart from the rows, so no write reaches
// a byte a later group reads.
module npu_reduce_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
#(
    // int copies of the config's longint parameters (array bounds, indices)
    localparam int L = int'(LANES),
    localparam int P = int'(PIPE_DEPTH)
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,   // VREDUCE issues in this cycle
    // Only the VREDUCE fields are used; the rest of the word is other opcodes' fields.
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [INSTR_BITS-1:0] inst,    // valid in the start cycle only
    /* verilator lint_on UNUSEDSIGNAL */
    output logic                  busy,
    // SP read ports (combinational): A, one per lane
    output logic [63:0]           a_raddr[L],
    input  logic [7:0]            a_rdata[L],
    // SP write port (at the clock edge; same address: highest lane wins)
    output logic                  o_we[L],
    output logic [63:0]           o_waddr[L],
    output logic [7:0]            o_wdata[L]
);
  typedef struct packed {
    logic        mean;
    logic [1:0]  phase;
    logic [31:0] x_zp, y_zp;           // sign-extended int8 fields
    logic [31:0] x_scale, y_scale;
    logic [31:0] nf, lo, hi;           // float(n0), float(-128 - y_zp), float(127 - y_zp)
    logic [16:0] n0, n1;
    // LANES rows on: the next group's row starts
    logic [63:0] a_step, o_step;
  } cfg_t;

  cfg_t cfg_q, cfg;
  logic active_q;            // a cycle after the start cycle reads
  logic [16:0] slot_q, slot; // the group's slot, 0 .. n0+3
  logic [16:0] row0_q, row0; // lane 0's row
  logic [63:0] a_row_q[L], a_row[L], o_row_q[L], o_row[L];
  logic rd;                  // the engine works in this cycle
  logic last_slot;           // the group ends with this cycle
  logic last_group;
  logic emit;                // the lanes compute their bytes in this cycle

  always_comb begin
    cfg.mean = inst[VREDUCE_MEAN_LSB];
    cfg.phase = inst[VREDUCE_PHASE_LSB +: VREDUCE_PHASE_W];
    cfg.x_zp = 32'(signed'(inst[VREDUCE_X_ZP_LSB +: 8]));
    cfg.y_zp = 32'(signed'(inst[VREDUCE_Y_ZP_LSB +: 8]));
    cfg.x_scale = inst[VREDUCE_X_SCALE_LSB +: 32];
    cfg.y_scale = inst[VREDUCE_Y_SCALE_LSB +: 32];
    cfg.nf = npu_fp32_itof_pkg::itof(32'(inst[VREDUCE_N0_LSB +: VREDUCE_N0_W]));
    cfg.lo = npu_postproc_pkg::ql_lo(cfg.y_zp);
    cfg.hi = npu_postproc_pkg::ql_hi(cfg.y_zp);
    cfg.n0 = 17'(inst[VREDUCE_N0_LSB +: VREDUCE_N0_W]);
    cfg.n1 = 17'(inst[VREDUCE_N1_LSB +: VREDUCE_N1_W]);
    cfg.a_step = 64'(L) * 64'(inst[VREDUCE_A_S1_LSB +: VREDUCE_A_S1_W]);
    cfg.o_step = 64'(L) * 64'(inst[VREDUCE_O_S1_LSB +: VREDUCE_O_S1_W]);
    for (int l = 0; l < L; l++) begin
      a_row[l] = 64'(inst[VREDUCE_A_ADDR_LSB +: VREDUCE_A_ADDR_W]) +
                 64'(l) * 64'(inst[VREDUCE_A_S1_LSB +: VREDUCE_A_S1_W]);
      o_row[l] = 64'(inst[VREDUCE_O_ADDR_LSB +: VREDUCE_O_ADDR_W]) +
                 64'(l) * 64'(inst[VREDUCE_O_S1_LSB +: VREDUCE_O_S1_W]);
    end
    slot = '0;
    row0 = '0;
    if (!start) begin
      cfg = cfg_q;
      a_row = a_row_q;
      o_row = o_row_q;
      slot = slot_q;
      row0 = row0_q;
    end
    rd = start | active_q;
    last_slot = slot == cfg.n0 + 17'd3;
    last_group = row0 + 17'(L) >= cfg.n1;
    emit = rd && last_slot;
  end

  always_ff @(posedge clk) begin
    if (rst) active_q <= 1'b0;
    else active_q <= rd && !(last_slot && last_group);
    if (start) cfg_q <= cfg;
    if (rd) begin
      slot_q <= last_slot ? '0 : slot + 17'd1;
      row0_q <= row0;
      a_row_q <= a_row;
      o_row_q <= o_row;
      if (last_slot) begin
        row0_q <= row0 + 17'(L);
        for (int l = 0; l < L; l++) begin
          a_row_q[l] <= a_row[l] + cfg.a_step;
          o_row_q[l] <= o_row[l] + cfg.o_step;
        end
      end
    end
  end

  logic        we_c[L];
  logic [63:0] waddr_c[L];
  logic [7:0]  wdata_c[L];
  for (genvar l = 0; l < L; l++) begin : g_lane
    logic [1:0]  ph;             // the row's phase
    logic [16:0] st, e, k, tb;   // aligned start, packet elements, slot K, tail's first slot
    logic [14:0] np;             // whole packets
    logic [16:0] r;              // tail slot: the tail element's index
    logic [16:0] col;            // the column read in this slot
    logic        pk_slot, last_pk_slot, tail_slot;
    logic [31:0] x;              // the dequantized A(j, col)
    logic [31:0] p_q[4], q_q[4]; // Eigen's two packet accumulators
    logic [31:0] lo_q, hi_q, s_q;
    always_comb begin
      ph = cfg.phase + 2'(row0[1:0] + 2'(l)) * cfg.n0[1:0];
      st = ph == 2'd0 ? 17'd0 : 17'd4 - 17'(ph);
      if (st > cfg.n0) st = cfg.n0;
      np = 15'((cfg.n0 - st) >> 2);
      e = {np, 2'b00};
      k = np[0] && np > 15'd1 ? e - 17'd4 : e;
      tb = e + 17'd3;
      r = slot - tb;
      pk_slot = slot < k;
      last_pk_slot = slot > k && slot <= e;
      tail_slot = slot >= tb && slot < cfg.n0 + 17'd3;
      col = pk_slot ? st + slot : last_pk_slot ? st + slot - 17'd1 : r < st ? r : r + e;
    end
    assign a_raddr[l] = a_row[l] + 64'(col);
    // The fp32 steps are evaluated only in the slots that use them.
    always_comb
      x = rd && (pk_slot || last_pk_slot || tail_slot) ?
          npu_postproc_pkg::dequantize(a_rdata[l], cfg.x_zp, cfg.x_scale) : '0;
    assign we_c[l] = emit && row0 + 17'(l) < cfg.n1;
    assign waddr_c[l] = o_row[l];
    always_comb
      wdata_c[l] = emit ? npu_postproc_pkg::quantize_linear(
          cfg.mean ? npu_fp32_div_pkg::fdiv(s_q, cfg.nf) : s_q, cfg.y_scale, cfg.y_zp, cfg.lo,
          cfg.hi) : 8'd0;
    always_ff @(posedge clk)
      if (rd) begin
        if (pk_slot) begin
          // packet slot>>2 of the first K slots, element slot[1:0]
          if (slot[16:2] == 15'd0) p_q[slot[1:0]] <= x;
          else if (slot[16:2] == 15'd1) q_q[slot[1:0]] <= x;
          else if (!slot[2]) p_q[slot[1:0]] <= npu_fp32_add_pkg::fadd(p_q[slot[1:0]], x);
          else q_q[slot[1:0]] <= npu_fp32_add_pkg::fadd(q_q[slot[1:0]], x);
        end
        if (slot == k && np > 15'd1)
          for (int i = 0; i < 4; i++) p_q[i] <= npu_fp32_add_pkg::fadd(p_q[i], q_q[i]);
        if (last_pk_slot) begin
          p_q[2'(slot - 17'd1)] <= npu_fp32_add_pkg::fadd(p_q[2'(slot - 17'd1)], x);
        end
        if (slot == e + 17'd1 && np != '0) begin
          lo_q <= npu_fp32_add_pkg::fadd(p_q[0], p_q[2]);
          hi_q <= npu_fp32_add_pkg::fadd(p_q[1], p_q[3]);
        end
        if (slot == e + 17'd2 && np != '0) s_q <= npu_fp32_add_pkg::fadd(lo_q, hi_q);
        if (tail_slot) s_q <= np == '0 && r == '0 ? x : npu_fp32_add_pkg::fadd(s_q, x);
      end
  end

  // PIPE_DEPTH register stages between the byte's compute and the write.
  logic pend;  // a byte is in the pipeline
  npu_lane_write_pipe #(
      .PD(P), .NL(L), .DW(8)
  ) u_wpipe (
      .clk, .rst, .valid(emit), .we(we_c), .waddr(waddr_c), .wdata(wdata_c), .out_we(o_we),
      .out_waddr(o_waddr), .out_wdata(o_wdata), .pend);
  assign busy = active_q | pend;
endmodule
