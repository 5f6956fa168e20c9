// The position of a window engine's beat (npu_pool_unit, npu_dwconv_unit):
// loop order (outermost first) oy, ox, channel group grp (channels grp +
// lane, NL per group), ky, kx; one beat per cycle from the start cycle
// (beat 0 combinationally from the start inputs) until the last one.
// Addresses advance incrementally (adders only): in_base is the input byte
// of lane 0 (window origin + ky*ky_step + kx*kx_step + grp), out_base the
// output element of lane 0 (out_addr + oy*out_rs + ox*out_ps + grp).
// KXS > 1 (the DWCONV engine's dwconv_taps) covers taps kx .. kx+KXS-1 of
// a kernel row in one beat: kx advances by KXS, a row's last beat is the
// one with kx + KXS >= kw.
module npu_window_walker #(
    parameter int NL = 1,
    parameter int KXS = 1
) (
    input  logic        clk,
    input  logic        rst,
    input  logic        start,     // the instruction issues this cycle
    // extents and addresses: valid in the start cycle, held by the engine after
    input  logic [7:0]  kh,
    input  logic [7:0]  kw,
    input  logic [15:0] oh,
    input  logic [15:0] ow,
    input  logic [15:0] ch,
    input  logic [63:0] in_addr,   // the first window's origin
    input  logic [63:0] out_addr,  // the first output pixel
    input  logic [63:0] kx_step,   // input: next tap in x
    input  logic [63:0] ky_step,   // input: next tap in y
    input  logic [63:0] pix_step,  // input: next output pixel's window
    input  logic [63:0] row_step,  // input: next output row's window
    input  logic [63:0] out_ps,    // output: next pixel
    input  logic [63:0] out_rs,    // output: next row
    output logic        beat,      // a beat reads in this cycle
    output logic        active,    // beats follow this cycle's (registered)
    output logic [7:0]  kx,
    output logic [7:0]  ky,
    output logic [31:0] grp,       // channel of lane 0
    output logic        first,     // the window's first tap
    output logic        last_win,  // the window's last tap
    output logic        last_pix,  // the output pixel's last beat
    output logic        last_ox,   // the output row's last pixel
    output logic [63:0] in_base,
    output logic [63:0] out_base
);
  logic [7:0] kx_q, ky_q;
  logic [15:0] ox_q, oy_q;
  logic [31:0] grp_q;
  logic [63:0] kcol_q, krow_q, pix_q, row_q, opix_q, orow_q;
  logic [15:0] ox, oy;
  logic [63:0] kcol, krow, pix, row, opix, orow;
  logic last_kx, last_ky, last_grp, last_oy, last_beat;
  always_comb begin
    kx = start ? 8'd0 : kx_q;
    ky = start ? 8'd0 : ky_q;
    ox = start ? 16'd0 : ox_q;
    oy = start ? 16'd0 : oy_q;
    grp = start ? 32'd0 : grp_q;
    kcol = start ? 64'd0 : kcol_q;
    krow = start ? 64'd0 : krow_q;
    pix = start ? in_addr : pix_q;
    row = start ? in_addr : row_q;
    opix = start ? out_addr : opix_q;
    orow = start ? out_addr : orow_q;
    // A verifier-valid instruction has every extent >= 1 (computeCycles =
    // PIPE_DEPTH otherwise: no beats).
    beat = start ? (kh != 0 && kw != 0 && oh != 0 && ow != 0 && ch != 0) : active;
    first = kx == 8'd0 && ky == 8'd0;
    last_kx = 9'(kx) + 9'(KXS) >= 9'(kw);
    last_ky = ky == kh - 8'd1;
    last_win = last_kx && last_ky;
    last_grp = grp + 32'(NL) >= 32'(ch);
    last_pix = last_win && last_grp;
    last_ox = ox == ow - 16'd1;
    last_oy = oy == oh - 16'd1;
    last_beat = last_pix && last_ox && last_oy;
    in_base = pix + krow + kcol + 64'(grp);
    out_base = opix + 64'(grp);
  end

  always_ff @(posedge clk) begin
    if (rst) active <= 1'b0;
    else if (beat) begin
      active <= !last_beat;
      // advance kx, then ky, then the channel group, then ox, then oy
      kx_q <= last_kx ? 8'd0 : kx + 8'(KXS);
      kcol_q <= last_kx ? 64'd0 : kcol + 64'(KXS) * kx_step;
      ky_q <= !last_kx ? ky : last_ky ? 8'd0 : ky + 8'd1;
      krow_q <= !last_kx ? krow : last_ky ? 64'd0 : krow + ky_step;
      grp_q <= !last_win ? grp : last_grp ? 32'd0 : grp + 32'(NL);
      ox_q <= ox;
      pix_q <= pix;
      opix_q <= opix;
      oy_q <= oy;
      row_q <= row;
      orow_q <= orow;
      if (last_pix) begin
        if (!last_ox) begin
          ox_q <= ox + 16'd1;
          pix_q <= pix + pix_step;
          opix_q <= opix + out_ps;
        end else begin
          ox_q <= 16'd0;
          oy_q <= oy + 16'd1;
          row_q <= row + row_step;
          pix_q <= row + row_step;
          orow_q <= orow + out_rs;
          opix_q <= orow + out_rs;
        end
      end
    end
  end
endmodule
