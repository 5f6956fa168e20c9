// Streaming VADD / VMUL / VLUT / VBINARY engine (docs/isa.md §4): the n1 x n0 elements,
// flattened row-major (e = j*n0 + i), go LANES consecutive elements per beat
// through LANES npu_vector_lane; a beat may straddle rows, or cover several
// when n0 < LANES. Element (j, i) reads A at a_addr + j*a_s1 + (a_bcast ? 0
// : i), B likewise, and writes O at o_addr + j*o_s1 + i.
//
// Schedule (= isa::computeCycles): without a bank conflict beat b reads A
// and B in cycle s+b (beat 0 straight from `inst` in the start cycle s);
// with one (A's and B's footprints share an SP bank, npu_timing_pkg) a beat
// takes two cycles, A in s+2b and B in s+2b+1, as a single-ported bank
// serves them. Its bytes are written at the edge ending the cycle of its B
// read + PIPE_DEPTH, so the last write lands at the edge ending
// s + computeCycles - 1 and `busy` is low from s + computeCycles on.
//
// Whether there is a conflict is what the controller already decided from
// the instruction's bank_conflict bit: the occupancy `cycles`
// (npu_timing_pkg::compute_cycles) is 2*beats + PIPE_DEPTH with one and
// beats + PIPE_DEPTH without, so the engine follows the controller's
// occupancy by comparing it with its beat count.
//
// VLUT runs the two-cycle schedule always (its occupancy is 2*beats +
// PIPE_DEPTH): A in the first cycle of a beat, held in a_q; in the second
// the B port reads the table entry a_q indexes, lut_addr (+ 256 * column
// with per_column) + (the byte, XOR 0x80 for int8 codes), and that byte is
// the output. No lane arithmetic.
//
// VBINARY has VADD's addressing, field positions and schedule (bank
// conflict included); only the value differs: per lane
// npu_postproc_pkg::binary_byte (two dequantizations, the fp32 add, sub,
// mul or div, MLAS QuantizeLinear) in place of npu_vector_lane, which idles.
// With b_f32, B is fp32 words in ACC: the same address arithmetic counts
// words (b_addr + j*b_s1 + i), read through the ACC port in the cycle the
// SP port would read B, and the word is B's value, not dequantized. A is
// then the only SP read, so there is never a bank conflict (the verifier
// holds bank_conflict to 0 and the occupancy to beats + PIPE_DEPTH).
//
// Per lane the element position (row j, column i, row start addresses)
// advances by LANES elements per beat incrementally: LANES = dq*n0 + dr,
// found once at start by a chain over the lanes (which also gives beat 0's
// positions), so no per-lane divide and no multiply by a field except the
// one n0*n1 of the beat count.
module npu_vector_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
#(
    // int copies of the config's longint parameters (array bounds, indices)
    localparam int L = int'(LANES),
    localparam int P = int'(PIPE_DEPTH)
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,   // VADD, VMUL, VLUT or VBINARY issues in this cycle
    input  logic [INSTR_BITS-1:0] inst,    // valid in the start cycle only
    input  logic [63:0]           cycles,  // its occupancy (computeCycles)
    output logic                  busy,
    // SP read ports (combinational): A and B
    output logic [63:0]           a_raddr[L],
    input  logic [7:0]            a_rdata[L],
    output logic [63:0]           b_raddr[L],
    input  logic [7:0]            b_rdata[L],
    // ACC read port (combinational, word addresses): VBINARY's fp32 B (b_f32)
    output logic [63:0]           b_acc_raddr[L],
    input  logic [31:0]           b_acc_rdata[L],
    // SP write port (at the clock edge; same address: highest lane wins)
    output logic                  o_we[L],
    output logic [63:0]           o_waddr[L],
    output logic [7:0]            o_wdata[L]
);
  typedef struct packed {
    logic        is_add, is_lut, is_bin, per_col, u8, a_bcast, b_bcast, conflict;
    logic        b_f32;  // VBINARY: B is fp32 words in ACC
    logic [2:0]  mode;
    logic [1:0]  op;  // VBINARY's operation
    logic [31:0] lo, hi, ratio_a, ratio_b, fixed, a_zp, b_zp, o_zp;
    // VBINARY: the scales and QuantizeLinear's fp32 bounds (zero points in
    // a_zp, b_zp, o_zp, int8 domain)
    logic [31:0] a_scale, b_scale, o_scale, q_lo, q_hi;
    logic [16:0] n0, n1;
    logic [63:0] a_s1, b_s1, o_s1;
    // Advance by LANES elements: dq rows and dr columns, dq*s1 bytes.
    logic [16:0] dq, dr;
    logic [63:0] a_step, b_step, o_step;
  } cfg_t;
  // One lane's element: row, column, and the addresses of its row starts.
  typedef struct packed {
    logic [16:0] j, i;
    logic [63:0] a_row, b_row, o_row;
  } pos_t;

  cfg_t cfg_q, cfg;
  pos_t pos_q[L], pos[L], pos_d[L];
  pos_t chain[L+1];  // elements 0 .. LANES from the instruction (start cycle)
  logic active_q;    // a beat after the first one reads in this cycle
  logic phase_q;     // conflict: the beat's A was read in the previous cycle
  logic rd;          // a beat reads in this cycle
  logic compute;     // ... and has both operands (B is read now)
  logic last_beat;


  logic [63:0] beats;
  always_comb begin
    cfg.is_add = inst[7:0] == OP_VADD;
    cfg.is_lut = inst[7:0] == OP_VLUT;
    cfg.is_bin = inst[7:0] == OP_VBINARY;
    cfg.per_col = cfg.is_lut && inst[VLUT_PER_COLUMN_LSB];
    // VADD, VMUL and VLUT share the position of u8; VBINARY is int8 only.
    cfg.u8 = !cfg.is_bin && (cfg.is_add ? inst[VADD_U8_LSB] : inst[VMUL_U8_LSB]);
    cfg.a_bcast = cfg.is_lut ? 1'b0 : cfg.is_add ? inst[VADD_A_BCAST_LSB] :
                  cfg.is_bin ? inst[VBINARY_A_BCAST_LSB] : inst[VMUL_A_BCAST_LSB];
    cfg.b_bcast = cfg.is_lut ? 1'b0 : cfg.is_add ? inst[VADD_B_BCAST_LSB] :
                  cfg.is_bin ? inst[VBINARY_B_BCAST_LSB] : inst[VMUL_B_BCAST_LSB];
    cfg.b_f32 = cfg.is_bin && inst[VBINARY_B_F32_LSB];
    cfg.op = inst[VBINARY_OP_LSB +: VBINARY_OP_W];
    // VMUL has no mode (its value does not depend on one).
    cfg.mode = cfg.is_add ? inst[VADD_MODE_LSB +: VADD_MODE_W] : 3'd0;
    cfg.lo = npu_postproc_pkg::dom_param(cfg.u8, cfg.is_add ? inst[VADD_LO_LSB +: 8] : inst[VMUL_LO_LSB +: 8]);
    cfg.hi = npu_postproc_pkg::dom_param(cfg.u8, cfg.is_add ? inst[VADD_HI_LSB +: 8] : inst[VMUL_HI_LSB +: 8]);
    cfg.ratio_a = cfg.is_add ? inst[VADD_RATIO_A_LSB +: 32] : inst[VMUL_RATIO_LSB +: 32];
    cfg.ratio_b = cfg.is_add ? inst[VADD_RATIO_B_LSB +: 32] : 32'd0;
    cfg.fixed = cfg.is_add ? inst[VADD_FIXED_LSB +: 32] : 32'd0;
    cfg.a_zp = cfg.is_add ? 32'd0 : npu_postproc_pkg::dom_param(cfg.u8, inst[VMUL_A_ZP_LSB +: 8]);
    cfg.b_zp = cfg.is_add ? 32'd0 : npu_postproc_pkg::dom_param(cfg.u8, inst[VMUL_B_ZP_LSB +: 8]);
    cfg.o_zp = cfg.is_add ? 32'd0 : npu_postproc_pkg::dom_param(cfg.u8, inst[VMUL_O_ZP_LSB +: 8]);
    if (cfg.is_bin) begin
      cfg.a_zp = 32'(signed'(inst[VBINARY_A_ZP_LSB +: 8]));
      cfg.b_zp = 32'(signed'(inst[VBINARY_B_ZP_LSB +: 8]));
      cfg.o_zp = 32'(signed'(inst[VBINARY_O_ZP_LSB +: 8]));
    end
    cfg.a_scale = inst[VBINARY_A_SCALE_LSB +: 32];
    cfg.b_scale = inst[VBINARY_B_SCALE_LSB +: 32];
    cfg.o_scale = inst[VBINARY_O_SCALE_LSB +: 32];
    cfg.q_lo = npu_postproc_pkg::ql_lo(cfg.o_zp);
    cfg.q_hi = npu_postproc_pkg::ql_hi(cfg.o_zp);
    // VADD, VMUL, VLUT and VBINARY share the positions of the addressing fields
    // (VLUT's lut_addr is b_addr; the table has no row stride).
    cfg.n0 = 17'(inst[VADD_N0_LSB +: VADD_N0_W]);
    cfg.n1 = 17'(inst[VADD_N1_LSB +: VADD_N1_W]);
    cfg.a_s1 = 64'(inst[VADD_A_S1_LSB +: VADD_A_S1_W]);
    cfg.b_s1 = cfg.is_lut ? 64'd0 : 64'(inst[VADD_B_S1_LSB +: VADD_B_S1_W]);
    cfg.o_s1 = 64'(inst[VADD_O_S1_LSB +: VADD_O_S1_W]);
    beats = (64'(cfg.n0) * 64'(cfg.n1) + 64'(L) - 64'd1) / 64'(L);
    cfg.conflict = cycles != beats + 64'(P);
    // The chain: element k+1 is the next column, or column 0 of the next row.
    chain[0].j = '0;
    chain[0].i = '0;
    chain[0].a_row = 64'(inst[VADD_A_ADDR_LSB +: VADD_A_ADDR_W]);
    chain[0].b_row = 64'(inst[VADD_B_ADDR_LSB +: VADD_B_ADDR_W]);
    chain[0].o_row = 64'(inst[VADD_O_ADDR_LSB +: VADD_O_ADDR_W]);
    for (int k = 0; k < L; k++) begin
      if (chain[k].i + 17'd1 == cfg.n0) begin
        chain[k+1].j = chain[k].j + 17'd1;
        chain[k+1].i = '0;
        chain[k+1].a_row = chain[k].a_row + cfg.a_s1;
        chain[k+1].b_row = chain[k].b_row + cfg.b_s1;
        chain[k+1].o_row = chain[k].o_row + cfg.o_s1;
      end else begin
        chain[k+1] = chain[k];
        chain[k+1].i = chain[k].i + 17'd1;
      end
    end
    cfg.dq = chain[L].j;
    cfg.dr = chain[L].i;
    cfg.a_step = chain[L].a_row - chain[0].a_row;
    cfg.b_step = chain[L].b_row - chain[0].b_row;
    cfg.o_step = chain[L].o_row - chain[0].o_row;
    if (!start) cfg = cfg_q;

    rd = start | active_q;
    compute = rd && (!cfg.conflict || phase_q);
    for (int l = 0; l < L; l++) begin
      pos[l] = start ? chain[l] : pos_q[l];
      // Next beat: LANES elements on, i.e. dq rows and dr columns (plus the
      // carry into the next row).
      pos_d[l].i = pos[l].i + cfg.dr;
      if (pos_d[l].i >= cfg.n0) begin
        pos_d[l].i = pos_d[l].i - cfg.n0;
        pos_d[l].j = pos[l].j + cfg.dq + 17'd1;
        pos_d[l].a_row = pos[l].a_row + cfg.a_step + cfg.a_s1;
        pos_d[l].b_row = pos[l].b_row + cfg.b_step + cfg.b_s1;
        pos_d[l].o_row = pos[l].o_row + cfg.o_step + cfg.o_s1;
      end else begin
        pos_d[l].j = pos[l].j + cfg.dq;
        pos_d[l].a_row = pos[l].a_row + cfg.a_step;
        pos_d[l].b_row = pos[l].b_row + cfg.b_step;
        pos_d[l].o_row = pos[l].o_row + cfg.o_step;
      end
    end
    // Lane 0 of the next beat past the last row: nothing left.
    last_beat = pos_d[0].j >= cfg.n1;
  end

  // The lanes. Conflict: A is held from the first cycle of the beat.
  logic [7:0]  a_q[L];
  logic        we_c[L];
  logic [63:0] waddr_c[L];
  logic [7:0]  wdata_c[L];
  for (genvar l = 0; l < L; l++) begin : g_lane
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0] y;  // clamped to the 8-bit domain: only its low byte is stored
    /* verilator lint_on UNUSEDSIGNAL */
    logic [7:0] bin;  // VBINARY's byte
    logic [31:0] bin_y;  // VBINARY's fp32 B: the ACC word (b_f32) or DQ(code)
    logic [63:0] b_at;  // B's element: an SP byte, or an ACC word with b_f32
    assign a_raddr[l] = pos[l].a_row + (cfg.a_bcast ? 64'd0 : 64'(pos[l].i));
    assign b_at = pos[l].b_row + (cfg.b_bcast ? 64'd0 : 64'(pos[l].i));
    // VLUT: b_row is lut_addr (b_s1 = 0); A's byte, read in the beat's
    // first cycle, is in a_q.
    assign b_raddr[l] = cfg.is_lut ?
        pos[l].b_row + (cfg.per_col ? 64'(pos[l].i) << 8 : 64'd0) +
            64'(8'(a_q[l] ^ {~cfg.u8, 7'd0})) :
        b_at;
    assign b_acc_raddr[l] = b_at;
    npu_vector_lane u_lane (
        .en(compute && !cfg.is_bin), .is_add(cfg.is_add), .mode(cfg.mode),
        .av(npu_postproc_pkg::dom_value(cfg.u8, cfg.conflict ? a_q[l] : a_rdata[l])),
        .bv(npu_postproc_pkg::dom_value(cfg.u8, b_rdata[l])), .ratio_a(cfg.ratio_a), .ratio_b(cfg.ratio_b),
        .fixed(cfg.fixed), .a_zp(cfg.a_zp), .b_zp(cfg.b_zp), .o_zp(cfg.o_zp), .lo(cfg.lo),
        .hi(cfg.hi), .y);
    assign we_c[l] = compute && pos[l].j < cfg.n1;
    assign waddr_c[l] = pos[l].o_row + 64'(pos[l].i);
    // Evaluated only in the cycles that use it.
    always_comb begin
      bin_y = '0;
      bin = 8'd0;
      if (compute && cfg.is_bin) begin
        bin_y = cfg.b_f32 ? b_acc_rdata[l] :
            npu_postproc_pkg::dequantize(b_rdata[l], cfg.b_zp, cfg.b_scale);
        bin = npu_postproc_pkg::binary_byte(cfg.op, cfg.conflict ? a_q[l] : a_rdata[l], cfg.a_zp,
                                            cfg.a_scale, bin_y, cfg.o_scale, cfg.o_zp, cfg.q_lo,
                                            cfg.q_hi);
      end
    end
    assign wdata_c[l] = cfg.is_lut ? b_rdata[l] : cfg.is_bin ? bin : y[7:0] ^ {cfg.u8, 7'd0};
    always_ff @(posedge clk) a_q[l] <= a_rdata[l];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      active_q <= 1'b0;
      phase_q <= 1'b0;
    end else begin
      active_q <= rd && !(compute && last_beat);
      phase_q <= rd && cfg.conflict && !compute;
    end
    if (start) cfg_q <= cfg;
    if (compute) pos_q <= pos_d;
    else if (start) pos_q <= pos;
  end

  // PIPE_DEPTH register stages between the read+compute and the write.
  logic pend;  // a beat is in the pipeline
  npu_lane_write_pipe #(
      .PD(P), .NL(L), .DW(8)
  ) u_wpipe (
      .clk, .rst, .valid(compute), .we(we_c), .waddr(waddr_c), .wdata(wdata_c), .out_we(o_we),
      .out_waddr(o_waddr), .out_wdata(o_wdata), .pend);
  assign busy = active_q | pend;
endmodule
