// The VLAYERNORM engine (docs/isa.md, isa::layerNormRow): lanes take rows,
// lane l of group g row j = g*LANES + l (the fp32 sums are sequential in row
// order, so a row is never split), lanes with j >= n1 idle. Per group two
// passes over the n0 columns around the row statistics, 2*n0 + 6 cycles, so
// isa::computeCycles = ceil(n1/LANES)*(2*n0 + kLayerNormStatCycles) +
// PIPE_DEPTH is its schedule:
//   pass 1 (n0 cycles)  cycle t reads A(j, t): x = fl(float(a - x_zp) *
//                       x_scale), s = fl(s + x), s2 = fl(s2 + fl(x*x)),
//                       both from +0;
//   statistics (6)      one binary32 operation a cycle: mean = s / n0,
//                       ms = s2 / n0, m2 = mean*mean, var = ms - m2,
//                       t = var + eps, d = sqrt(t);
//   pass 2 (n0 cycles)  cycle t reads A(j, t) again and gamma[t] (and
//                       beta[t]): every lane is on the same column, so one
//                       ACC port each serves all lanes. It computes the
//                       byte of column t and writes it PIPE_DEPTH registers
//                       later (npu_lane_write_pipe).
// Group 0's first cycle is the start cycle (fields straight from `inst`);
// the last write lands at the edge ending s + computeCycles - 1. In place
// (O = A, rows apart, the verifier's rule) a write reaches only its own
// column, which pass 2 has read already.
module npu_layernorm_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
#(
    // int copies of the config's longint parameters (array bounds, indices)
    localparam int L = int'(LANES),
    localparam int P = int'(PIPE_DEPTH)
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,    // VLAYERNORM issues in this cycle
    // Only the VLAYERNORM fields are used; the rest of the word is other opcodes' fields.
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [INSTR_BITS-1:0] inst,     // valid in the start cycle only
    /* verilator lint_on UNUSEDSIGNAL */
    output logic                  busy,
    // SP read ports (combinational): A, one per lane
    output logic [63:0]           a_raddr[L],
    input  logic [7:0]            a_rdata[L],
    // ACC read ports (combinational, word addresses): gamma and beta
    output logic [63:0]           g_raddr,
    input  logic [31:0]           g_rdata,
    output logic [63:0]           b_raddr,
    input  logic [31:0]           b_rdata,
    // SP write port (at the clock edge; same address: highest lane wins)
    output logic                  o_we[L],
    output logic [63:0]           o_waddr[L],
    output logic [7:0]            o_wdata[L]
);
  typedef struct packed {
    logic        bias;
    logic [31:0] x_zp, y_zp;           // sign-extended int8 fields
    logic [31:0] x_scale, y_scale, eps;
    logic [31:0] nf, lo, hi;           // float(n0), float(-128 - y_zp), float(127 - y_zp)
    logic [63:0] gamma_addr, beta_addr;
    logic [16:0] n0, n1;
    // LANES rows on: the next group's row starts
    logic [63:0] a_step, o_step;
  } cfg_t;
  localparam logic [1:0] SUM = 2'd0, STAT = 2'd1, OUT = 2'd2;
  localparam logic [16:0] LAST_STAT = 17'd5;  // kLayerNormStatCycles - 1

  // The byte of one element in pass 2 (layerNormRow's second loop).
  function automatic logic [7:0] out_byte(input logic [31:0] x, input logic [31:0] mean,
                                          input logic [31:0] d, input logic [31:0] gamma,
                                          input logic bias, input logic [31:0] beta,
                                          input logic [31:0] y_scale, input logic [31:0] lo,
                                          input logic [31:0] hi, input logic [31:0] y_zp);
    logic [31:0] y;
    y = npu_fp32_add_pkg::fadd(x, {~mean[31], mean[30:0]});
    y = npu_fp32_div_pkg::fdiv(y, d);
    y = npu_fp32_mul_pkg::fmul(y, gamma);
    if (bias) y = npu_fp32_add_pkg::fadd(y, beta);
    out_byte = npu_postproc_pkg::quantize_linear(y, y_scale, y_zp, lo, hi);
  endfunction

  cfg_t cfg_q, cfg;
  logic active_q;            // a cycle after the start cycle reads
  logic [1:0] pass_q, pass;
  logic [16:0] col_q, col;   // passes: the column read; statistics: the step
  logic [16:0] row0_q, row0; // lane 0's row
  logic [63:0] a_row_q[L], a_row[L], o_row_q[L], o_row[L];
  logic rd;                  // the engine works in this cycle
  logic last_col;            // the pass ends with this cycle
  logic last_group;
  logic emit;                // pass 2 computes a byte in this cycle

  always_comb begin
    cfg.bias = inst[VLAYERNORM_BIAS_LSB];
    cfg.x_zp = {{24{inst[VLAYERNORM_X_ZP_LSB + 7]}}, inst[VLAYERNORM_X_ZP_LSB +: 8]};
    cfg.y_zp = {{24{inst[VLAYERNORM_Y_ZP_LSB + 7]}}, inst[VLAYERNORM_Y_ZP_LSB +: 8]};
    cfg.x_scale = inst[VLAYERNORM_X_SCALE_LSB +: 32];
    cfg.y_scale = inst[VLAYERNORM_Y_SCALE_LSB +: 32];
    cfg.eps = inst[VLAYERNORM_EPS_LSB +: 32];
    cfg.nf = npu_fp32_itof_pkg::itof(32'(inst[VLAYERNORM_N0_LSB +: VLAYERNORM_N0_W]));
    cfg.lo = npu_postproc_pkg::ql_lo(cfg.y_zp);
    cfg.hi = npu_postproc_pkg::ql_hi(cfg.y_zp);
    cfg.gamma_addr = 64'(inst[VLAYERNORM_GAMMA_ADDR_LSB +: VLAYERNORM_GAMMA_ADDR_W]);
    cfg.beta_addr = 64'(inst[VLAYERNORM_BETA_ADDR_LSB +: VLAYERNORM_BETA_ADDR_W]);
    cfg.n0 = 17'(inst[VLAYERNORM_N0_LSB +: VLAYERNORM_N0_W]);
    cfg.n1 = 17'(inst[VLAYERNORM_N1_LSB +: VLAYERNORM_N1_W]);
    cfg.a_step = 64'(L) * 64'(inst[VLAYERNORM_A_S1_LSB +: VLAYERNORM_A_S1_W]);
    cfg.o_step = 64'(L) * 64'(inst[VLAYERNORM_O_S1_LSB +: VLAYERNORM_O_S1_W]);
    for (int l = 0; l < L; l++) begin
      a_row[l] = 64'(inst[VLAYERNORM_A_ADDR_LSB +: VLAYERNORM_A_ADDR_W]) +
                 64'(l) * 64'(inst[VLAYERNORM_A_S1_LSB +: VLAYERNORM_A_S1_W]);
      o_row[l] = 64'(inst[VLAYERNORM_O_ADDR_LSB +: VLAYERNORM_O_ADDR_W]) +
                 64'(l) * 64'(inst[VLAYERNORM_O_S1_LSB +: VLAYERNORM_O_S1_W]);
    end
    pass = SUM;
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
    last_col = pass == STAT ? col == LAST_STAT : col + 17'd1 == cfg.n0;
    last_group = row0 + 17'(L) >= cfg.n1;
    emit = rd && pass == OUT;
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
        pass_q <= pass == OUT ? SUM : pass + 2'd1;
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

  assign g_raddr = cfg.gamma_addr + 64'(col);
  assign b_raddr = cfg.beta_addr + 64'(col);

  logic        we_c[L];
  logic [63:0] waddr_c[L];
  logic [7:0]  wdata_c[L];
  for (genvar l = 0; l < L; l++) begin : g_lane
    logic [31:0] x;            // the dequantized A(j, col)
    logic [31:0] s_q, s2_q;    // pass 1's running sums
    logic [31:0] mean_q, ms_q, m2_q, var_q, t_q, d_q;
    assign a_raddr[l] = a_row[l] + 64'(col);
    assign we_c[l] = emit && row0 + 17'(l) < cfg.n1;
    assign waddr_c[l] = o_row[l] + 64'(col);
    // The fp32 chains are evaluated only in the cycles that use them.
    always_comb begin
      x = '0;
      wdata_c[l] = '0;
      if (rd && pass != STAT)
        x = npu_postproc_pkg::dequantize(a_rdata[l], cfg.x_zp, cfg.x_scale);
      if (emit)
        wdata_c[l] = out_byte(x, mean_q, d_q, g_rdata, cfg.bias, b_rdata, cfg.y_scale, cfg.lo,
                              cfg.hi, cfg.y_zp);
    end
    always_ff @(posedge clk) begin
      if (rd && pass == SUM) begin
        s_q <= npu_fp32_add_pkg::fadd(col == '0 ? 32'd0 : s_q, x);
        s2_q <= npu_fp32_add_pkg::fadd(col == '0 ? 32'd0 : s2_q, npu_fp32_mul_pkg::fmul(x, x));
      end
      if (rd && pass == STAT)
        case (col[2:0])
          3'd0: mean_q <= npu_fp32_div_pkg::fdiv(s_q, cfg.nf);
          3'd1: ms_q <= npu_fp32_div_pkg::fdiv(s2_q, cfg.nf);
          3'd2: m2_q <= npu_fp32_mul_pkg::fmul(mean_q, mean_q);
          3'd3: var_q <= npu_fp32_add_pkg::fadd(ms_q, {~m2_q[31], m2_q[30:0]});
          3'd4: t_q <= npu_fp32_add_pkg::fadd(var_q, cfg.eps);
          default: d_q <= npu_fp32_sqrt_pkg::fsqrt(t_q);
        endcase
    end
  end

  // PIPE_DEPTH register stages between pass 2's compute and the write.
  logic pend;  // a byte is in the pipeline
  npu_lane_write_pipe #(
      .PD(P), .NL(L), .DW(8)
  ) u_wpipe (
      .clk, .rst, .valid(emit), .we(we_c), .waddr(waddr_c), .wdata(wdata_c), .out_we(o_we),
      .out_waddr(o_waddr), .out_wdata(o_wdata), .pend);
  assign busy = active_q | pend;
endmodule
