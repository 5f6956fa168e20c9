// One processing element of the systolic array (docs/isa.md §6): a 9 x 9-bit
// signed multiplier (operands minus zero point) and a 32-bit wrapping adder.
//   WS: the raw weight shifts in from the top during the preload and is
//       latched; A moves right, the partial sum moves down, adding
//       A * (W - w_zp): the zero point is the current instruction's, so a
//       reused weight block (preload = 0) follows isa.md.
//   OS: A moves right, B moves down, the PE accumulates A * B. `capture`
//       (in the cycle of the array's last MATMUL) moves acc + A * B into the
//       output register and clears acc; `shift` then moves the captured
//       results down one row per cycle (R cycles of drain, isa.md §6).
// DOUBLE_BUF (array.matmul_inflight > 1): the preload latches a shadow
// weight, and the weight in use switches to it when the switch bit
// travelling with the next MATMUL's first row of A arrives (that product
// already uses it), so one MATMUL's preload overlaps the previous one's
// stream. The weight zero point then travels with A too (zp_in), since
// neighbouring PEs may serve different MATMULs in the same cycle.
module npu_pe #(
    parameter bit DOUBLE_BUF = 1'b0
) (
    input  logic               clk,
    input  logic               rst,
    input  logic               os_mode,
    input  logic               load_w,    // WS: latch the weight shifting past
    input  logic signed [8:0]  w_zp,      // WS, !DOUBLE_BUF: weight zero point
    input  logic               capture,   // OS: results to the output register
    input  logic               shift,     // OS: output registers shift down
    input  logic signed [8:0]  a_in,
    input  logic               flip_in,   // DOUBLE_BUF: switch to the shadow
    input  logic signed [8:0]  zp_in,     // DOUBLE_BUF: weight zero point
    input  logic signed [8:0]  b_in,
    input  logic signed [31:0] psum_in,
    output logic signed [8:0]  a_out,
    output logic               flip_out,
    output logic signed [8:0]  zp_out,
    output logic signed [8:0]  b_out,
    output logic signed [31:0] psum_out
);
  logic signed [8:0] w;
  logic signed [31:0] acc;
  logic signed [8:0] mul_b;
  logic signed [17:0] prod;
  logic signed [8:0] w_use, zp_use;
  if (DOUBLE_BUF) begin : g_double
    logic signed [8:0] w_sh;
    assign w_use = flip_in ? w_sh : w;
    assign zp_use = zp_in;
    wire unused = ^w_zp;
    always_ff @(posedge clk) begin
      if (rst) begin
        w_sh <= '0;
        flip_out <= 1'b0;
        zp_out <= '0;
        w <= '0;
      end else begin
        flip_out <= flip_in;
        zp_out <= zp_in;
        if (load_w) w_sh <= b_in;
        if (flip_in) w <= w_sh;
      end
    end
  end else begin : g_single
    assign w_use = w;
    assign zp_use = w_zp;
    assign flip_out = 1'b0;
    assign zp_out = '0;
    wire unused = flip_in ^ (^zp_in);
    always_ff @(posedge clk)
      if (rst) w <= '0;
      else if (load_w) w <= b_in;
  end
  assign mul_b = os_mode ? b_in : w_use - zp_use;
  assign prod = 18'(a_in) * 18'(mul_b);
  always_ff @(posedge clk) begin
    if (rst) begin
      acc <= '0;
      a_out <= '0;
      b_out <= '0;
      psum_out <= '0;
    end else begin
      a_out <= a_in;
      b_out <= b_in;
      if (!os_mode) psum_out <= psum_in + 32'(prod);
      else if (capture) begin
        psum_out <= acc + 32'(prod);
        acc <= '0;
      end else begin
        acc <= acc + 32'(prod);
        if (shift) psum_out <= psum_in;
      end
    end
  end
endmodule
