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
  logic [7:0] kx_q, ky_q;
  logic [15:0] ox_q, oy_q;
  logic [31:0] grp_q;  // channel of lane 0
  logic [63:0] kcol_q, krow_q, pix_q, row_q, opix_q, orow_q, wtap_q;
  wire [7:0] kx = start ? 8'd0 : kx_q, ky = start ? 8'd0 : ky_q;
  wire [15:0] ox = start ? 16'd0 : ox_q, oy = start ? 16'd0 : oy_q;
  wire [31:0] grp = start ? 32'd0 : grp_q;
  wire [63:0] kcol = start ? 64'd0 : kcol_q, krow = start ? 64'd0 : krow_q;
  wire [63:0] pix = start ? 64'(I[DWCONV_IN_ADDR_LSB +: DWCONV_IN_ADDR_W]) : pix_q;
  wire [63:0] row = start ? 64'(I[DWCONV_IN_ADDR_LSB +: DWCONV_IN_ADDR_W]) : row_q;
  wire [63:0] opix = start ? 64'(I[DWCONV_C_ADDR_LSB +: DWCONV_C_ADDR_W]) : opix_q;
  wire [63:0] orow = start ? 64'(I[DWCONV_C_ADDR_LSB +: DWCONV_C_ADDR_W]) : orow_q;
  // weight address of this tap's channel 0: w_addr + (ky*kw + kx)*ch
  wire [63:0] wtap = start ? w_addr : wtap_q;
  // A verifier-valid DWCONV has every extent >= 1 (computeCycles = PD otherwise: no beats).
  wire beat = start ? (kh != 0 && kw != 0 && oh != 0 && ow != 0 && ch != 0) : active_q;
  wire first = kx == 8'd0 && ky == 8'd0;  // window start: the lanes' sums restart
  wire last_kx = kx == kw - 8'd1, last_ky = ky == kh - 8'd1, last_win = last_kx && last_ky;
  wire last_grp = grp + 32'(NL) >= 32'(ch);
  wire last_ox = ox == ow - 16'd1, last_oy = oy == oh - 16'd1;
  wire last_beat = last_win && last_grp && last_ox && last_oy;
  wire [63:0] in_base = pix + krow + kcol + 64'(grp);
  wire [63:0] w_base = wtap + 64'(grp);
  wire [63:0] c_base = opix + 64'(grp);

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
  logic [NL-1:0] wmask;
  logic [63:0] wbase;  // output word of lane 0
  logic [31:0] wdata[NL];
  logic drain;  // beats of the instruction still in the pipeline
  if (PD == 0) begin : g_nopipe
    assign wmask = wmask0;
    assign wbase = c_base;
    assign wdata = s_n;
    assign drain = 1'b0;
  end else begin : g_pipe
    logic live_q[PD];
    logic [NL-1:0] wmask_q[PD];
    logic [63:0] wbase_q[PD];
    logic [31:0] wdata_q[PD][NL];
    always_ff @(posedge clk) begin
      for (int k = PD - 1; k > 0; k--) begin
        live_q[k] <= rst ? 1'b0 : live_q[k-1];
        wmask_q[k] <= rst ? '0 : wmask_q[k-1];
        wbase_q[k] <= wbase_q[k-1];
        wdata_q[k] <= wdata_q[k-1];
      end
      live_q[0] <= rst ? 1'b0 : beat;
      wmask_q[0] <= rst ? '0 : wmask0;
      wbase_q[0] <= c_base;
      wdata_q[0] <= s_n;
    end
    assign wmask = wmask_q[PD-1];
    assign wbase = wbase_q[PD-1];
    assign wdata = wdata_q[PD-1];
    always_comb begin
      drain = 1'b0;
      for (int k = 0; k < PD; k++) drain = drain | live_q[k];
    end
  end
  for (genvar l = 0; l < NL; l++) begin : g_wport
    assign acc_we[l] = wmask[l];
    assign acc_waddr[l] = wbase + 64'(l);
    assign acc_wdata[l] = wdata[l];
  end
  assign busy = start || active_q || drain;

  always_ff @(posedge clk) begin
    if (rst) active_q <= 1'b0;
    else if (beat) begin
      if (start) I_q <= inst;
      active_q <= !last_beat;
      s_q <= s_n;
      // advance kx, then ky, then the channel group, then ox, then oy
      kx_q <= last_kx ? 8'd0 : kx + 8'd1;
      kcol_q <= last_kx ? 64'd0 : kcol + tap_x_step;
      ky_q <= !last_kx ? ky : last_ky ? 8'd0 : ky + 8'd1;
      krow_q <= !last_kx ? krow : last_ky ? 64'd0 : krow + tap_y_step;
      wtap_q <= last_win ? w_addr : wtap + 64'(ch);
      grp_q <= !last_win ? grp : last_grp ? 32'd0 : grp + 32'(NL);
      ox_q <= ox;
      pix_q <= pix;
      opix_q <= opix;
      oy_q <= oy;
      row_q <= row;
      orow_q <= orow;
      if (last_win && last_grp) begin
        if (!last_ox) begin
          ox_q <= ox + 16'd1;
          pix_q <= pix + pix_step;
          opix_q <= opix + c_ps;
        end else begin
          ox_q <= 16'd0;
          oy_q <= oy + 16'd1;
          row_q <= row + row_step;
          pix_q <= row + row_step;
          orow_q <= orow + c_rs;
          opix_q <= orow + c_rs;
        end
      end
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
