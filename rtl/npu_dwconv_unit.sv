// The streaming DWCONV engine (docs/isa.md §4): NT taps of a kernel row per
// cycle (vector.dwconv_taps) through NL lanes, so isa::computeCycles =
// oh*ow*kh*ceil(kw/NT)*ceil(ch/NL) + PD is its schedule. Loop order
// (outermost first): oy, ox, channel group g (channels g*NL + l), ky, kx in
// steps of NT. Beat b reads NT input bytes and NT weight bytes per lane
// (taps kx .. kx+NT-1 of row ky; those past the row's end add nothing) in
// cycle s+b (beat 0 combinationally from `inst`); the
// group's first tap also reads the old ACC word when accumulating (outputs
// never overlap each other or the inputs, so any cycle of the group would
// do). Each lane multiply-accumulates in int32 wraparound as do_dwconv; the
// last tap's sum is written PD registers later, so the last write lands at
// the edge ending s+cdur-1. Address arithmetic is incremental (adders only);
// the only multipliers compute per-instruction steps (stride*pitch and
// dilation*pitch used when the window moves, kw*ch between kernel rows, and
// the NT taps' constant offsets j*dilation*pitch and j*ch).
module npu_dwconv_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
#(
    parameter int NL = int'(LANES),
    parameter int PD = int'(PIPE_DEPTH),
    parameter int NT = int'(DW_TAPS)
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
    // scratchpad read ports (combinational): input and weight, NT each per
    // lane (port l*NT + j: lane l, tap kx + j)
    output logic [63:0]           in_raddr[NL*NT],
    input  logic [7:0]            in_rdata[NL*NT],
    output logic [63:0]           w_raddr[NL*NT],
    input  logic [7:0]            w_rdata[NL*NT],
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
  logic beat, first, last_win, last_kx;
  logic [7:0] kx;
  logic [31:0] grp;  // channel of lane 0
  logic [63:0] in_base, c_base;  // input byte / output word of lane 0
  // The tap indices and pixel flags are POOL's (its valid region); unused here.
  /* verilator lint_off PINCONNECTEMPTY */
  npu_window_walker #(
      .NL(NL), .KXS(NT)
  ) u_walk (
      .clk, .rst, .start, .kh, .kw, .oh, .ow, .ch,
      .in_addr(64'(I[DWCONV_IN_ADDR_LSB +: DWCONV_IN_ADDR_W])),
      .out_addr(64'(I[DWCONV_C_ADDR_LSB +: DWCONV_C_ADDR_W])), .kx_step(tap_x_step),
      .ky_step(tap_y_step), .pix_step, .row_step, .out_ps(c_ps), .out_rs(c_rs), .beat,
      .active(active_q), .kx, .ky(), .grp, .first, .last_win, .last_pix(), .last_ox(), .in_base,
      .out_base(c_base));
  /* verilator lint_on PINCONNECTEMPTY */
  // weight address of the beat's first tap, channel 0: w_addr + (ky*kw +
  // kx)*ch, and of its kernel row: w_addr + ky*kw*ch
  logic [63:0] wtap_q, wrow_q;
  wire [63:0] wtap = start ? w_addr : wtap_q, wrow = start ? w_addr : wrow_q;
  wire [63:0] w_base = wtap + 64'(grp);
  wire [63:0] row_w_step = 64'(kw) * 64'(ch);
  assign last_kx = 9'(kx) + 9'(NT) >= 9'(kw);
  // taps kx + j of the row that exist, and their offsets from tap kx
  logic [NT-1:0] tap_ok;
  logic [63:0] tap_in_off[NT], tap_w_off[NT];
  always_comb
    for (int j = 0; j < NT; j++) begin
      tap_ok[j] = 9'(kx) + 9'(j) < 9'(kw);
      tap_in_off[j] = 64'(j) * tap_x_step;
      tap_w_off[j] = 64'(j) * 64'(ch);
    end

  // ---- lanes: NT MACs per beat ----
  logic [31:0] s_q[NL], s_n[NL];
  logic [NL-1:0] ch_ok;
  for (genvar l = 0; l < NL; l++) begin : g_lane
    logic signed [8:0] a[NT], b[NT];
    logic signed [17:0] p[NT];
    logic [31:0] s_c, s_t;
    always_comb begin
      acc_raddr[l] = c_base + 64'(l);
      ch_ok[l] = grp + 32'(l) < 32'(ch);
      s_c = first ? (accumulate ? acc_rdata[l] : 32'd0) : s_q[l];
      s_t = s_c;
      for (int j = 0; j < NT; j++) begin
        // A missing tap reads lane 0's tap kx (any address in range would
        // do) and adds nothing.
        in_raddr[l*NT+j] = in_base + (tap_ok[j] ? tap_in_off[j] : 64'd0) + 64'(l);
        w_raddr[l*NT+j] = w_base + (tap_ok[j] ? tap_w_off[j] : 64'd0) + 64'(l);
        a[j] = 9'(signed'(in_rdata[l*NT+j])) - izp;
        b[j] = 9'(signed'(w_rdata[l*NT+j])) - wzp;
        // |a|, |b| <= 255: the 18-bit product is exact, the sum wraps in
        // int32 (so the order of the taps does not matter).
        p[j] = a[j] * b[j];
        if (tap_ok[j]) s_t = s_t + 32'(p[j]);
      end
      s_n[l] = s_t;
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
      wtap_q <= last_win ? w_addr : last_kx ? wrow + row_w_step : wtap + 64'(NT) * 64'(ch);
      wrow_q <= last_win ? w_addr : last_kx ? wrow + row_w_step : wrow;
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
