// Streaming REQUANT engine (docs/isa.md §4): M rows x ceil(N/LANES) beats of
// LANES columns through LANES npu_requant_lane, one beat per cycle.
//
// Beat b = m * ceil(N/LANES) + g holds row m, columns n = g*LANES + l < N
// (lane l). It reads C (ACC c_addr + m*c_stride + n), the bias (bias_addr
// + n), the scale (scale_addr + n, or + 0 per tensor) and, with the lut
// flag, the table entry (SP lut_addr + (y+128)&255) in cycle s+b (beat 0
// straight from `inst` in the start cycle s), and its bytes are written to
// SP o_addr + m*o_stride + n at the edge ending cycle s+b+PIPE_DEPTH. So the
// last write lands at the edge ending s + M*ceil(N/LANES) + PIPE_DEPTH - 1
// = s + computeCycles - 1 and `busy` is low from s + computeCycles on.
// Addresses advance incrementally (no multiplier, no per-lane divide).
module npu_requant_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
#(
    // int copies of the config's longint parameters (array bounds, indices)
    localparam int L = int'(LANES),
    localparam int P = int'(PIPE_DEPTH)
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,  // REQUANT issues in this cycle
    input  logic [INSTR_BITS-1:0] inst,   // valid in the start cycle only
    // The occupancy: not needed, the beat count is the formula by construction.
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [63:0]           cycles,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic                  busy,
    // ACC read ports (combinational): C, bias, scale
    output logic [63:0]           c_raddr[L],
    input  logic [31:0]           c_rdata[L],
    output logic [63:0]           bias_raddr[L],
    input  logic [31:0]           bias_rdata[L],
    output logic [63:0]           scale_raddr[L],
    input  logic [31:0]           scale_rdata[L],
    // SP read port (combinational): the activation table
    output logic [63:0]           lut_raddr[L],
    input  logic [7:0]            lut_rdata[L],
    // SP write port (at the clock edge; same address: highest lane wins)
    output logic                  sp_we[L],
    output logic [63:0]           sp_waddr[L],
    output logic [7:0]            sp_wdata[L]
);
  // What stays fixed for the whole instruction.
  typedef struct packed {
    logic        per_tensor, lut, bias;
    logic [31:0] zp, lo, hi;  // sign-extended
    logic [63:0] c_stride, o_stride, scale_addr, bias_addr, lut_addr;
    logic [16:0] n;
  } cfg_t;
  // Where the beat is: row start addresses, first column, columns left in
  // the row (incl. this beat), rows left (incl. this one).
  typedef struct packed {
    logic [63:0] c_row, o_row;
    logic [16:0] col, rem;
    logic [23:0] m_left;
  } pos_t;

  cfg_t cfg_q, cfg;
  pos_t pos_q, pos, pos_d;
  logic active_q;  // a beat after the first one reads in this cycle
  logic rd;        // a beat reads in this cycle
  logic row_end, last_beat;

  function automatic logic [31:0] sext8(input logic [7:0] b);
    return {{24{b[7]}}, b};
  endfunction

  always_comb begin
    if (start) begin
      cfg.per_tensor = inst[REQUANT_PER_TENSOR_LSB];
      cfg.lut = inst[REQUANT_LUT_LSB];
      cfg.bias = inst[REQUANT_BIAS_LSB];
      cfg.zp = sext8(inst[REQUANT_ZP_LSB +: 8]);
      cfg.lo = sext8(inst[REQUANT_LO_LSB +: 8]);
      cfg.hi = sext8(inst[REQUANT_HI_LSB +: 8]);
      cfg.c_stride = 64'(inst[REQUANT_C_STRIDE_LSB +: REQUANT_C_STRIDE_W]);
      cfg.o_stride = 64'(inst[REQUANT_O_STRIDE_LSB +: REQUANT_O_STRIDE_W]);
      cfg.scale_addr = 64'(inst[REQUANT_SCALE_ADDR_LSB +: REQUANT_SCALE_ADDR_W]);
      cfg.bias_addr = 64'(inst[REQUANT_BIAS_ADDR_LSB +: REQUANT_BIAS_ADDR_W]);
      cfg.lut_addr = 64'(inst[REQUANT_LUT_ADDR_LSB +: REQUANT_LUT_ADDR_W]);
      cfg.n = 17'(inst[REQUANT_N_LSB +: REQUANT_N_W]);
      pos.c_row = 64'(inst[REQUANT_C_ADDR_LSB +: REQUANT_C_ADDR_W]);
      pos.o_row = 64'(inst[REQUANT_O_ADDR_LSB +: REQUANT_O_ADDR_W]);
      pos.col = '0;
      pos.rem = cfg.n;
      pos.m_left = inst[REQUANT_M_LSB +: REQUANT_M_W];
    end else begin
      cfg = cfg_q;
      pos = pos_q;
    end
    rd = start | active_q;
    // Next beat: the next LANES columns, or the next row.
    row_end = pos.rem <= 17'(L);
    last_beat = row_end && pos.m_left == 24'd1;
    pos_d.col = row_end ? '0 : pos.col + 17'(L);
    pos_d.rem = row_end ? cfg.n : pos.rem - 17'(L);
    pos_d.c_row = row_end ? pos.c_row + cfg.c_stride : pos.c_row;
    pos_d.o_row = row_end ? pos.o_row + cfg.o_stride : pos.o_row;
    pos_d.m_left = row_end ? pos.m_left - 24'd1 : pos.m_left;
  end

  // The lanes: read, requantize, LUT, all in the read cycle.
  logic        we_c[L];
  logic [63:0] waddr_c[L];
  logic [7:0]  wdata_c[L];
  for (genvar l = 0; l < L; l++) begin : g_lane
    logic [63:0] n;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0] y;  // only its low byte is stored
    /* verilator lint_on UNUSEDSIGNAL */
    logic [7:0] lut_idx;
    assign n = 64'(pos.col) + 64'(l);
    assign c_raddr[l] = pos.c_row + n;
    assign bias_raddr[l] = cfg.bias_addr + n;
    assign scale_raddr[l] = cfg.scale_addr + (cfg.per_tensor ? 64'd0 : n);
    npu_requant_lane u_lane (
        .en(rd), .acc(c_rdata[l]), .bias_en(cfg.bias), .bias(bias_rdata[l]), .scale(scale_rdata[l]),
        .zp(cfg.zp), .lo(cfg.lo), .hi(cfg.hi), .y, .lut_idx);
    assign lut_raddr[l] = cfg.lut_addr + 64'(lut_idx);
    assign we_c[l] = rd && 17'(l) < pos.rem;
    assign waddr_c[l] = pos.o_row + n;
    assign wdata_c[l] = cfg.lut ? lut_rdata[l] : y[7:0];
  end

  always_ff @(posedge clk) begin
    if (rst) active_q <= 1'b0;
    else active_q <= rd && !last_beat;
    if (start) cfg_q <= cfg;
    if (rd) pos_q <= pos_d;
  end

  // PIPE_DEPTH register stages between the read+compute and the write.
  logic pend;  // a beat is in the pipeline
  npu_lane_write_pipe #(
      .PD(P), .NL(L), .DW(8)
  ) u_wpipe (
      .clk, .rst, .valid(rd), .we(we_c), .waddr(waddr_c), .wdata(wdata_c), .out_we(sp_we),
      .out_waddr(sp_waddr), .out_wdata(sp_wdata), .pend);
  assign busy = active_q | pend;
endmodule
