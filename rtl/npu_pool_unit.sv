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
  wire [31:0] lo = dom_param(I[POOL_LO_LSB +: 8]), hi = dom_param(I[POOL_HI_LSB +: 8]);
  wire [31:0] ozp = dom_param(I[POOL_OUT_ZP_LSB +: 8]), izp = dom_param(I[POOL_IN_ZP_LSB +: 8]);
  wire [31:0] scale = I[POOL_SCALE_LSB +: 32], out_scale = I[POOL_OUT_SCALE_LSB +: 32];
  wire [31:0] bias = I[POOL_BIAS_LSB +: 32];
  // Window origin steps to the next output pixel / row.
  wire [63:0] pix_step = 64'(sw) * in_ps, row_step = 64'(sh) * in_rs;

  // u8 domain: bytes are stored XOR 0x80 (isa.md §4), zero points / clamps unsigned.
  function automatic logic [31:0] dom_value(input logic [7:0] b);
    return u8 ? {24'd0, b ^ 8'h80} : 32'(signed'(b));
  endfunction
  function automatic logic [31:0] dom_param(input logic [7:0] b);
    return u8 ? {24'd0, b} : 32'(signed'(b));
  endfunction

  // ---- walker: position of this cycle's beat (start: the first one) ----
  logic [7:0] kx_q, ky_q;
  logic [15:0] ox_q, oy_q;
  logic [31:0] grp_q, xb_q, yb_q, count_q, npos_q;  // grp = channel of lane 0; xb/yb = ox*sw, oy*sh
  logic [63:0] kcol_q, krow_q, pix_q, row_q, opix_q, orow_q;
  wire [7:0] kx = start ? 8'd0 : kx_q, ky = start ? 8'd0 : ky_q;
  wire [15:0] ox = start ? 16'd0 : ox_q, oy = start ? 16'd0 : oy_q;
  wire [31:0] grp = start ? 32'd0 : grp_q, xb = start ? 32'd0 : xb_q, yb = start ? 32'd0 : yb_q;
  wire [63:0] kcol = start ? 64'd0 : kcol_q, krow = start ? 64'd0 : krow_q;
  wire [63:0] pix = start ? 64'(I[POOL_IN_ADDR_LSB +: POOL_IN_ADDR_W]) : pix_q;
  wire [63:0] row = start ? 64'(I[POOL_IN_ADDR_LSB +: POOL_IN_ADDR_W]) : row_q;
  wire [63:0] opix = start ? 64'(I[POOL_OUT_ADDR_LSB +: POOL_OUT_ADDR_W]) : opix_q;
  wire [63:0] orow = start ? 64'(I[POOL_OUT_ADDR_LSB +: POOL_OUT_ADDR_W]) : orow_q;
  // A verifier-valid POOL has every extent >= 1 (computeCycles = PD otherwise: no beats).
  wire beat = start ? (kh != 0 && kw != 0 && oh != 0 && ow != 0 && ch != 0) : active_q;
  wire first = kx == 8'd0 && ky == 8'd0;  // window start: the lanes' accumulators restart
  wire last_kx = kx == kw - 8'd1, last_ky = ky == kh - 8'd1, last_win = last_kx && last_ky;
  wire last_grp = grp + 32'(NL) >= 32'(ch);
  wire last_ox = ox == ow - 16'd1, last_oy = oy == oh - 16'd1;
  wire last_beat = last_win && last_grp && last_ox && last_oy;
  wire [31:0] y = yb + 32'(ky), x = xb + 32'(kx);
  wire pos_ok = y >= y0 && y < y1 && x >= x0 && x < x1;
  wire [63:0] in_base = pix + krow + kcol + 64'(grp);
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
      v = dom_value(sp_rdata[l]);
      mx_c = first ? 32'h80000000 : mx_q[l];
      sum_c = first ? bias : sum_q[l];
      facc_c = first ? 32'd0 : facc_q[l];
      mx_n[l] = pos_ok && $signed(v) > $signed(mx_c) ? v : mx_c;
      sum_n[l] = pos_ok ? sum_c + v : sum_c;
      facc_n[l] = pos_ok ? npu_postproc_pkg::pool_step(facc_c, scale, v, izp) : facc_c;
      if (mode == 2'(POOLMODE_MAX)) yv = count != 0 ? mx_n[l] : (u8 ? 32'd0 : -32'sd128);
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
  wire [63:0] wbase0 = opix + 64'(grp);  // output address of lane 0
  logic [NL-1:0] wmask;
  logic [63:0] wbase;
  logic [7:0] wdata[NL];
  logic drain;  // beats of the instruction still in the pipeline
  if (PD == 0) begin : g_nopipe
    assign wmask = wmask0;
    assign wbase = wbase0;
    assign wdata = res;
    assign drain = 1'b0;
  end else begin : g_pipe
    logic live_q[PD];
    logic [NL-1:0] wmask_q[PD];
    logic [63:0] wbase_q[PD];
    logic [7:0] wdata_q[PD][NL];
    always_ff @(posedge clk) begin
      for (int k = PD - 1; k > 0; k--) begin
        live_q[k] <= rst ? 1'b0 : live_q[k-1];
        wmask_q[k] <= rst ? '0 : wmask_q[k-1];
        wbase_q[k] <= wbase_q[k-1];
        wdata_q[k] <= wdata_q[k-1];
      end
      live_q[0] <= rst ? 1'b0 : beat;
      wmask_q[0] <= rst ? '0 : wmask0;
      wbase_q[0] <= wbase0;
      wdata_q[0] <= res;
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
    assign sp_we[l] = wmask[l];
    assign sp_waddr[l] = wbase + 64'(l);
    assign sp_wdata[l] = wdata[l];
  end
  assign busy = start || active_q || drain;

  always_ff @(posedge clk) begin
    if (rst) active_q <= 1'b0;
    else if (beat) begin
      if (start) I_q <= inst;
      active_q <= !last_beat;
      count_q <= count;
      npos_q <= npos;
      mx_q <= mx_n;
      sum_q <= sum_n;
      facc_q <= facc_n;
      // advance kx, then ky, then the channel group, then ox, then oy
      kx_q <= last_kx ? 8'd0 : kx + 8'd1;
      kcol_q <= last_kx ? 64'd0 : kcol + in_ps;
      ky_q <= !last_kx ? ky : last_ky ? 8'd0 : ky + 8'd1;
      krow_q <= !last_kx ? krow : last_ky ? 64'd0 : krow + in_rs;
      grp_q <= !last_win ? grp : last_grp ? 32'd0 : grp + 32'(NL);
      ox_q <= ox;
      xb_q <= xb;
      pix_q <= pix;
      opix_q <= opix;
      oy_q <= oy;
      yb_q <= yb;
      row_q <= row;
      orow_q <= orow;
      if (last_win && last_grp) begin
        if (!last_ox) begin
          ox_q <= ox + 16'd1;
          xb_q <= xb + 32'(sw);
          pix_q <= pix + pix_step;
          opix_q <= opix + out_ps;
        end else begin
          ox_q <= 16'd0;
          xb_q <= 32'd0;
          oy_q <= oy + 16'd1;
          yb_q <= yb + 32'(sh);
          row_q <= row + row_step;
          pix_q <= row + row_step;
          orow_q <= orow + out_rs;
          opix_q <= orow + out_rs;
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
