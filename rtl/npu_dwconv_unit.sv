// The streaming DWCONV engine (docs/isa.md §4): one kernel tap per cycle
// through NL lanes, so isa::computeCycles = oh*ow*kh*kw*ceil(ch/NL) + PD is
// its schedule. Loop order (outermost first): oy, ox, channel group g
// (channels g*NL + l), ky, kx. Beat b reads one input byte and one weight
// byte per lane in cycle s+b (beat 0 combinationally from `inst`); the
// group's first tap also reads the old ACC word when accumulating (outputs
// never overlap each other or the inputs, so any cycle of the group would
// do). Each lane multiply-accumulates in int32 wraparound as do_dwconv; the
// last tap's sum is written PD registers later, so the last write lands at
// the edge ending s+cdur-1. Address arithmetic is incremental (adders only);
// the only multipliers are the four per-instruction steps stride*pitch and
// dilation*pitch used when the window moves.
module npu_dwconv_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
#(
    parameter int NL = int'(LANES),
    parameter int PD = int'(PIPE_DEPTH)
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,   // DWCONV issues this cycle
    // Only the DWCONV fields are used; the rest of the word is other opcodes' fields.
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [INSTR_BITS-1:0] inst,    // valid in the start cycle only
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [63:0]           cycles,  // its occupancy (computeCycles), simulation check only
    output logic                  busy,
    // scratchpad read ports (combinational): input and weight, one each per lane
    output logic [63:0]           in_raddr[NL],
    input  logic [7:0]            in_rdata[NL],
    output logic [63:0]           w_raddr[NL],
    input  logic [7:0]            w_rdata[NL],
    // accumulator read ports (combinational, word addresses), one per lane
    output logic [63:0]           acc_raddr[NL],
    input  logic [31:0]           acc_rdata[NL],
    // accumulator write ports, written at the clock edge ending the cycle
    output logic                  acc_we[NL],
    output logic [63:0]           acc_waddr[NL],
    output logic [31:0]           acc_wdata[NL]
);
  logic [INSTR_BITS-1:0] I_q;
  logic active_q;
  wire [INSTR_BITS-1:0] I = start ? inst : I_q;

  // ---- fields ----
  wire [7:0] kh = I[DWCONV_KH_LSB +: DWCONV_KH_W], kw = I[DWCONV_KW_LSB +: DWCONV_KW_W];
  wire [7:0] sh = I[DWCONV_SH_LSB +: DWCONV_SH_W], sw = I[DWCONV_SW_LSB +: DWCONV_SW_W];
  wire [7:0] dh = I[DWCONV_DH_LSB +: DWCONV_DH_W], dw = I[DWCONV_DW_LSB +: DWCONV_DW_W];
  wire [15:0] oh = I[DWCONV_OH_LSB +: DWCONV_OH_W], ow = I[DWCONV_OW_LSB +: DWCONV_OW_W];
  wire [15:0] ch = I[DWCONV_CH_LSB +: DWCONV_CH_W];
  wire [63:0] in_rs = 64'(I[DWCONV_IN_ROW_STRIDE_LSB +: DWCONV_IN_ROW_STRIDE_W]);
  wire [63:0] in_ps = 64'(I[DWCONV_IN_PIX_STRIDE_LSB +: DWCONV_IN_PIX_STRIDE_W]);
  wire [63:0] c_rs = 64'(I[DWCONV_C_ROW_STRIDE_LSB +: DWCONV_C_ROW_STRIDE_W]);
  wire [63:0] c_ps = 64'(I[DWCONV_C_PIX_STRIDE_LSB +: DWCONV_C_PIX_STRIDE_W]);
  wire [63:0] w_addr = 64'(I[DWCONV_W_ADDR_LSB +: DWCONV_W_ADDR_W]);
  wire accumulate = I[DWCONV_ACCUMULATE_LSB];
  wire signed [8:0] izp = 9'(signed'(I[DWCONV_IN_ZP_LSB +: DWCONV_IN_ZP_W]));
  wire signed [8:0] wzp = 9'(signed'(I[DWCONV_W_ZP_LSB +: DWCONV_W_ZP_W]));
  // Input steps: next tap in x / y (dilation), next output pixel / row (stride).
  wire [63:0] tap_x_step = 64'(dw) * in_ps, tap_y_step = 64'(dh) * in_rs;
  wire [63:0] pix_step = 64'(sw) * in_ps, row_step = 64'(sh) * in_rs;

  // ---- walker: position of this cycle's beat (start: the first one) ----
  logic beat, first, last_win;
  logic [31:0] grp;  // channel of lane 0
  logic [63:0] in_base, c_base;  // input byte / output word of lane 0
  // The tap indices and pixel flags are POOL's (its valid region); unused here.
  /* verilator lint_off PINCONNECTEMPTY */
  npu_window_walker #(
      .NL(NL)
  ) u_walk (
      .clk, .rst, .start, .kh, .kw, .oh, .ow, .ch,
      .in_addr(64'(I[DWCONV_IN_ADDR_LSB +: DWCONV_IN_ADDR_W])),
      .out_addr(64'(I[DWCONV_C_ADDR_LSB +: DWCONV_C_ADDR_W])), .kx_step(tap_x_step),
      .ky_step(tap_y_step), .pix_step, .row_step, .out_ps(c_ps), .out_rs(c_rs), .beat,
      .active(active_q), .kx(), .ky(), .grp, .first, .last_win, .last_pix(), .last_ox(), .in_base,
      .out_base(c_base));
  /* verilator lint_on PINCONNECTEMPTY */
  // weight address of this tap's channel 0: w_addr + (ky*kw + kx)*ch
  logic [63:0] wtap_q;
  wire [63:0] wtap = start ? w_addr : wtap_q;
  wire [63:0] w_base = wtap + 64'(grp);

  // ---- lanes: one MAC per tap ----
  logic [31:0] s_q[NL], s_n[NL];
  logic [NL-1:0] ch_ok;
  for (genvar l = 0; l < NL; l++) begin : g_lane
    logic signed [8:0] a, b;
    logic signed [17:0] p;
    logic [31:0] s_c;
    always_comb begin
      in_raddr[l] = in_base + 64'(l);
      w_raddr[l] = w_base + 64'(l);
      acc_raddr[l] = c_base + 64'(l);
      ch_ok[l] = grp + 32'(l) < 32'(ch);
      a = 9'(signed'(in_rdata[l])) - izp;
      b = 9'(signed'(w_rdata[l])) - wzp;
      s_c = first ? (accumulate ? acc_rdata[l] : 32'd0) : s_q[l];
      // |a|, |b| <= 255: the 18-bit product is exact, the sum wraps in int32.
      p = a * b;
      s_n[l] = s_c + 32'(p);
    end
  end

  // ---- write pipeline: this cycle's last tap, PD registers, then the write ----
  wire [NL-1:0] wmask0 = beat && last_win ? ch_ok : '0;
  logic drain;  // beats of the instruction still in the pipeline
  npu_group_write_pipe #(
      .PD(PD), .NL(NL), .DW(32)
  ) u_wpipe (
      .clk, .rst, .valid(beat), .mask(wmask0), .base(c_base), .data(s_n), .we(acc_we),
      .waddr(acc_waddr), .wdata(acc_wdata), .pend(drain));
  assign busy = start || active_q || drain;

  always_ff @(posedge clk) begin
    if (!rst && beat) begin
      if (start) I_q <= inst;
      s_q <= s_n;
      wtap_q <= last_win ? w_addr : wtap + 64'(ch);
    end
  end

`ifndef SYNTHESIS
  // The controller holds the unit for `cycles` (isa::computeCycles); this
  // schedule must end exactly then.
  logic [63:0] left_q;
  always_ff @(posedge clk) begin
    if (rst) left_q <= 64'd0;
    else if (start) left_q <= cycles - 64'd1;
    else if (left_q != 64'd0) left_q <= left_q - 64'd1;
    if (!rst && busy != (start || left_q != 64'd0))
      $error("npu_dwconv_unit: busy disagrees with the occupancy of computeCycles");
  end
`endif
endmodule
