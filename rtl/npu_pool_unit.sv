// The streaming POOL engine (docs/isa.md §4): one window position per cycle
// through NL lanes, so isa::computeCycles = oh*ow*kh*kw*ceil(ch/NL) + PD is
// its schedule. Loop order (outermost first): oy, ox, channel group g
// (channels g*NL + l), ky, kx. Beat b reads the NL bytes of one window
// position in cycle s+b (beat 0 combinationally from `inst`), positions
// outside the valid region still take their cycle but contribute nothing.
// The last position of (oy, ox, g) finalizes the group's NL outputs in the
// same cycle (max / avg_int / avg_float through npu_postproc_pkg, as
// npu_datapath's do_pool) and PD registers later they are written, so the
// last write lands at the edge ending s+cdur-1 and the writes come in the
// ISA's output order (self-overlapping output pixels: the later one wins).
// Address arithmetic is incremental (adders only); the only multipliers are
// the two per-instruction steps stride*pitch used when the window moves.
module npu_pool_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
#(
    parameter int NL = int'(LANES),
    parameter int PD = int'(PIPE_DEPTH)
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,   // POOL issues this cycle
    // Only the POOL fields are used; the rest of the word is other opcodes' fields.
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [INSTR_BITS-1:0] inst,    // valid in the start cycle only
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [63:0]           cycles,  // its occupancy (computeCycles), simulation check only
    output logic                  busy,
    // scratchpad read ports (combinational), one per lane
    output logic [63:0]           sp_raddr[NL],
    input  logic [7:0]            sp_rdata[NL],
    // scratchpad write ports, written at the clock edge ending the cycle
    output logic                  sp_we[NL],
    output logic [63:0]           sp_waddr[NL],
    output logic [7:0]            sp_wdata[NL]
);
  logic [INSTR_BITS-1:0] I_q;
  logic active_q;
  wire [INSTR_BITS-1:0] I = start ? inst : I_q;

  // ---- fields ----
  wire [7:0] kh = I[POOL_KH_LSB +: POOL_KH_W], kw = I[POOL_KW_LSB +: POOL_KW_W];
  wire [7:0] sh = I[POOL_SH_LSB +: POOL_SH_W], sw = I[POOL_SW_LSB +: POOL_SW_W];
  wire [15:0] oh = I[POOL_OH_LSB +: POOL_OH_W], ow = I[POOL_OW_LSB +: POOL_OW_W];
  wire [15:0] ch = I[POOL_CH_LSB +: POOL_CH_W];
  wire [63:0] in_rs = 64'(I[POOL_IN_ROW_STRIDE_LSB +: POOL_IN_ROW_STRIDE_W]);
  wire [63:0] in_ps = 64'(I[POOL_IN_PIX_STRIDE_LSB +: POOL_IN_PIX_STRIDE_W]);
  wire [63:0] out_rs = 64'(I[POOL_OUT_ROW_STRIDE_LSB +: POOL_OUT_ROW_STRIDE_W]);
  wire [63:0] out_ps = 64'(I[POOL_OUT_PIX_STRIDE_LSB +: POOL_OUT_PIX_STRIDE_W]);
  wire [31:0] y0 = 32'(I[POOL_VALID_Y0_LSB +: POOL_VALID_Y0_W]);
  wire [31:0] y1 = 32'(I[POOL_VALID_Y1_LSB +: POOL_VALID_Y1_W]);
  wire [31:0] x0 = 32'(I[POOL_VALID_X0_LSB +: POOL_VALID_X0_W]);
  wire [31:0] x1 = 32'(I[POOL_VALID_X1_LSB +: POOL_VALID_X1_W]);
  wire u8 = I[POOL_U8_LSB];
  wire [1:0] mode = I[POOL_MODE_LSB +: POOL_MODE_W];
  wire [31:0] lo = npu_postproc_pkg::dom_param(u8, I[POOL_LO_LSB +: 8]),
                     hi = npu_postproc_pkg::dom_param(u8, I[POOL_HI_LSB +: 8]);
  wire [31:0] ozp = npu_postproc_pkg::dom_param(u8, I[POOL_OUT_ZP_LSB +: 8]),
                     izp = npu_postproc_pkg::dom_param(u8, I[POOL_IN_ZP_LSB +: 8]);
  wire [31:0] scale = I[POOL_SCALE_LSB +: 32], out_scale = I[POOL_OUT_SCALE_LSB +: 32];
  wire [31:0] bias = I[POOL_BIAS_LSB +: 32];
  // Window origin steps to the next output pixel / row.
  wire [63:0] pix_step = 64'(sw) * in_ps, row_step = 64'(sh) * in_rs;


  // ---- walker: position of this cycle's beat (start: the first one) ----
  logic beat, first, last_win, last_pix, last_ox;
  logic [7:0] kx, ky;
  logic [31:0] grp;  // channel of lane 0
  logic [63:0] in_base, wbase0;  // input byte / output address of lane 0
  npu_window_walker #(
      .NL(NL)
  ) u_walk (
      .clk, .rst, .start, .kh, .kw, .oh, .ow, .ch, .in_addr(64'(I[POOL_IN_ADDR_LSB +: POOL_IN_ADDR_W])),
      .out_addr(64'(I[POOL_OUT_ADDR_LSB +: POOL_OUT_ADDR_W])), .kx_step(in_ps), .ky_step(in_rs),
      .pix_step, .row_step, .out_ps, .out_rs, .beat, .active(active_q), .kx, .ky, .grp, .first,
      .last_win, .last_pix, .last_ox, .in_base, .out_base(wbase0));
  // The window origin's row and column: yb = oy*sh, xb = ox*sw.
  logic [31:0] xb_q, yb_q, count_q, npos_q;
  wire [31:0] xb = start ? 32'd0 : xb_q, yb = start ? 32'd0 : yb_q;
  wire [31:0] y = yb + 32'(ky), x = xb + 32'(kx);
  wire pos_ok = y >= y0 && y < y1 && x >= x0 && x < x1;
  // Window counters shared by the lanes: valid elements and positions so far.
  wire [31:0] count = (first ? 32'd0 : count_q) + 32'(pos_ok);
  wire [31:0] npos = (first ? 32'd0 : npos_q) + 32'd1;
  wire [31:0] div = npu_fp32_itof_pkg::itof(I[POOL_COUNT_INCLUDE_PAD_LSB] ? npos : count);

  // ---- lanes: accumulate this position, finalize at the window's last one ----
  logic [31:0] mx_q[NL], sum_q[NL], facc_q[NL];
  logic [31:0] mx_n[NL], sum_n[NL], facc_n[NL];
  logic [7:0] res[NL];
  logic [NL-1:0] ch_ok;
  for (genvar l = 0; l < NL; l++) begin : g_lane
    logic [31:0] v, mx_c, sum_c, facc_c;
    // The store keeps the low byte of the (clamped) int32 result.
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0] yv;
    /* verilator lint_on UNUSEDSIGNAL */
    always_comb begin
      sp_raddr[l] = in_base + 64'(l);
      ch_ok[l] = grp + 32'(l) < 32'(ch);
      v = npu_postproc_pkg::dom_value(u8, sp_rdata[l]);
      mx_c = first ? 32'h80000000 : mx_q[l];
      sum_c = first ? bias : sum_q[l];
      facc_c = first ? 32'd0 : facc_q[l];
      mx_n[l] = pos_ok && $signed(v) > $signed(mx_c) ? v : mx_c;
      sum_n[l] = pos_ok ? sum_c + v : sum_c;
      facc_n[l] = beat && pos_ok ? npu_postproc_pkg::pool_step(facc_c, scale, v, izp) : facc_c;
      // Only a group's last window position produces a result; skipping
      // the finalization otherwise keeps the Verilated model fast (in
      // hardware it is a mux).
      if (!(beat && last_win)) yv = '0;
      else if (mode == 2'(POOLMODE_MAX)) yv = count != 0 ? mx_n[l] : (u8 ? 32'd0 : -32'sd128);
      else if (mode == 2'(POOLMODE_AVG_INT))
        yv = npu_postproc_pkg::requantize(sum_n[l], scale, ozp, lo, hi);
      else
        yv = npu_postproc_pkg::clampi(npu_postproc_pkg::pool_avg(facc_n[l], div, out_scale, ozp),
                                      lo, hi);
      res[l] = yv[7:0] ^ {u8, 7'd0};
    end
  end

  // ---- write pipeline: this cycle's finalize, PD registers, then the write ----
  wire [NL-1:0] wmask0 = beat && last_win ? ch_ok : '0;
  logic drain;  // beats of the instruction still in the pipeline
  npu_group_write_pipe #(
      .PD(PD), .NL(NL), .DW(8)
  ) u_wpipe (
      .clk, .rst, .valid(beat), .mask(wmask0), .base(wbase0), .data(res), .we(sp_we),
      .waddr(sp_waddr), .wdata(sp_wdata), .pend(drain));
  assign busy = start || active_q || drain;

  always_ff @(posedge clk) begin
    if (!rst && beat) begin
      if (start) I_q <= inst;
      count_q <= count;
      npos_q <= npos;
      mx_q <= mx_n;
      sum_q <= sum_n;
      facc_q <= facc_n;
      xb_q <= xb;
      yb_q <= yb;
      if (last_pix) begin
        if (!last_ox) begin
          xb_q <= xb + 32'(sw);
        end else begin
          xb_q <= 32'd0;
          yb_q <= yb + 32'(sh);
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
      $error("npu_pool_unit: busy disagrees with the occupancy of computeCycles");
  end
`endif
endmodule
