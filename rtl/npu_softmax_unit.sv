// The VSOFTMAX engine (docs/isa.md §4, isa::softmaxRow): lanes take rows,
// lane l of group g row j = g*LANES + l (the fp32 sum is sequential in row
// order, so a row is never split), lanes with j >= n1 idle. Per group three
// passes over the n0 columns, 3*n0 + 2 cycles, so isa::computeCycles =
// ceil(n1/LANES)*(3*n0 + 2) + PIPE_DEPTH is its schedule:
//   pass 1 (n0 cycles)     cycle t reads A(j, t): the running int8 maximum m;
//   pass 2 (n0 + 1 cycles) cycle t reads A(j, t) (held in x_q), cycle t+1
//                          the table entry e = ACC[table_addr + 255 - (m - x)]
//                          of it: sum = fl(sum + e) from +0;
//   pass 3 (n0 + 1 cycles) the same reads; cycle t+1 computes the byte of
//                          column t, rne(fl(fl(e*c)/sum)) converted as
//                          softmaxRow, and writes it PIPE_DEPTH registers
//                          later (npu_lane_write_pipe).
// Group 0's first cycle is the start cycle (fields straight from `inst`);
// the last write lands at the edge ending s + computeCycles - 1. In place
// (O = A, rows apart, the verifier's rule) a write reaches only its own
// column, which pass 3 has read already.
module npu_softmax_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
#(
    // int copies of the config's longint parameters (array bounds, indices)
    localparam int L = int'(LANES),
    localparam int P = int'(PIPE_DEPTH)
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,   // VSOFTMAX issues in this cycle
    // Only the VSOFTMAX fields are used; the rest of the word is other opcodes' fields.
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [INSTR_BITS-1:0] inst,    // valid in the start cycle only
    /* verilator lint_on UNUSEDSIGNAL */
    output logic                  busy,
    // SP read ports (combinational): A, one per lane
    output logic [63:0]           a_raddr[L],
    input  logic [7:0]            a_rdata[L],
    // ACC read ports (combinational, word addresses): the table, one per lane
    output logic [63:0]           t_raddr[L],
    input  logic [31:0]           t_rdata[L],
    // SP write port (at the clock edge; same address: highest lane wins)
    output logic                  o_we[L],
    output logic [63:0]           o_waddr[L],
    output logic [7:0]            o_wdata[L]
);
  typedef struct packed {
    logic        u8;
    logic [31:0] zp, c;
    logic [63:0] table_addr;
    logic [16:0] n0, n1;
    // LANES rows on: the next group's row starts
    logic [63:0] a_step, o_step;
  } cfg_t;
  localparam logic [1:0] MAX = 2'd0, SUM = 2'd1, OUT = 2'd2;

  cfg_t cfg_q, cfg;
  logic active_q;            // a cycle after the start cycle reads
  logic [1:0] pass_q, pass;
  logic [16:0] col_q, col;   // pass 1: the column read; 2, 3: ... and col-1's entry
  logic [16:0] row0_q, row0; // lane 0's row
  logic [63:0] a_row_q[L], a_row[L], o_row_q[L], o_row[L];
  logic rd;                  // the engine works in this cycle
  logic last_col;            // the pass ends with this cycle
  logic last_group;
  logic emit;                // pass 3 computes a byte in this cycle

  always_comb begin
    cfg.u8 = inst[VSOFTMAX_U8_LSB];
    cfg.zp = npu_postproc_pkg::dom_param(cfg.u8, inst[VSOFTMAX_ZP_LSB +: VSOFTMAX_ZP_W]);
    cfg.c = inst[VSOFTMAX_C_LSB +: VSOFTMAX_C_W];
    cfg.table_addr = 64'(inst[VSOFTMAX_TABLE_ADDR_LSB +: VSOFTMAX_TABLE_ADDR_W]);
    cfg.n0 = 17'(inst[VSOFTMAX_N0_LSB +: VSOFTMAX_N0_W]);
    cfg.n1 = 17'(inst[VSOFTMAX_N1_LSB +: VSOFTMAX_N1_W]);
    cfg.a_step = 64'(L) * 64'(inst[VSOFTMAX_A_S1_LSB +: VSOFTMAX_A_S1_W]);
    cfg.o_step = 64'(L) * 64'(inst[VSOFTMAX_O_S1_LSB +: VSOFTMAX_O_S1_W]);
    for (int l = 0; l < L; l++) begin
      a_row[l] = 64'(inst[VSOFTMAX_A_ADDR_LSB +: VSOFTMAX_A_ADDR_W]) +
                 64'(l) * 64'(inst[VSOFTMAX_A_S1_LSB +: VSOFTMAX_A_S1_W]);
      o_row[l] = 64'(inst[VSOFTMAX_O_ADDR_LSB +: VSOFTMAX_O_ADDR_W]) +
                 64'(l) * 64'(inst[VSOFTMAX_O_S1_LSB +: VSOFTMAX_O_S1_W]);
    end
    pass = MAX;
    col = '0;
    row0 = '0;
    if (!start) begin
      cfg = cfg_q;
      a_row = a_row_q;
      o_row = o_row_q;
      pass = pass_q;
      col = col_q;
      row0 = row0_q;
    end
    rd = start | active_q;
    last_col = pass == MAX ? col + 17'd1 == cfg.n0 : col == cfg.n0;
    last_group = row0 + 17'(L) >= cfg.n1;
    emit = rd && pass == OUT && col != '0;
  end

  always_ff @(posedge clk) begin
    if (rst) active_q <= 1'b0;
    else active_q <= rd && !(pass == OUT && last_col && last_group);
    if (start) cfg_q <= cfg;
    if (rd) begin
      pass_q <= pass;
      col_q <= col + 17'd1;
      row0_q <= row0;
      a_row_q <= a_row;
      o_row_q <= o_row;
      if (last_col) begin
        col_q <= '0;
        pass_q <= pass == OUT ? MAX : pass + 2'd1;
        if (pass == OUT) begin
          row0_q <= row0 + 17'(L);
          for (int l = 0; l < L; l++) begin
            a_row_q[l] <= a_row[l] + cfg.a_step;
            o_row_q[l] <= o_row[l] + cfg.o_step;
          end
        end
      end
    end
  end

  logic        we_c[L];
  logic [63:0] waddr_c[L];
  logic [7:0]  wdata_c[L];
  for (genvar l = 0; l < L; l++) begin : g_lane
    logic [7:0] x_q;     // A(j, col-1), read in the previous cycle
    logic [7:0] m_q;     // the row's maximum (int8), from pass 1 on
    logic [31:0] sum_q;  // the running fp32 sum of pass 2
    logic [7:0] idx;
    assign a_raddr[l] = a_row[l] + 64'(col);
    assign idx = 8'd255 - (m_q - x_q);
    assign t_raddr[l] = cfg.table_addr + 64'(idx);
    assign we_c[l] = emit && row0 + 17'(l) < cfg.n1;
    assign waddr_c[l] = o_row[l] + 64'(col) - 64'd1;
    assign wdata_c[l] = npu_postproc_pkg::softmax_byte(t_rdata[l], cfg.c, sum_q, cfg.zp, cfg.u8);
    always_ff @(posedge clk) begin
      x_q <= a_rdata[l];
      if (rd && pass == MAX && (col == '0 || $signed(a_rdata[l]) > $signed(m_q)))
        m_q <= a_rdata[l];
      if (rd && pass == SUM && col != '0)
        sum_q <= npu_fp32_add_pkg::fadd(col == 17'd1 ? 32'd0 : sum_q, t_rdata[l]);
    end
  end

  // PIPE_DEPTH register stages between pass 3's compute and the write.
  logic pend;  // a byte is in the pipeline
  npu_lane_write_pipe #(
      .PD(P), .NL(L), .DW(8)
  ) u_wpipe (
      .clk, .rst, .valid(emit), .we(we_c), .waddr(waddr_c), .wdata(wdata_c), .out_we(o_we),
      .out_waddr(o_waddr), .out_wdata(o_wdata), .pend);
  assign busy = active_q | pend;
endmodule
