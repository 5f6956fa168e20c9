// One processing element of the systolic array (docs/isa.md §6): a 9 x 9-bit
// signed multiplier (operands minus zero point) and a 32-bit wrapping adder.
//   WS: the weight shifts in from the top during the preload and is latched;
//       A moves right, the partial sum moves down, adding A * W.
//   OS: A moves right, B moves down, the PE accumulates A * B; `drain`
//       shifts the accumulators down one row per cycle.
module npu_pe (
    input  logic               clk,
    input  logic               rst,
    input  logic               os_mode,
    input  logic               load_w,    // WS: latch the weight shifting past
    input  logic               clear,     // OS: start a new tile
    input  logic               drain,     // OS: accumulators shift down
    input  logic signed [8:0]  a_in,
    input  logic signed [8:0]  b_in,
    input  logic signed [31:0] psum_in,
    output logic signed [8:0]  a_out,
    output logic signed [8:0]  b_out,
    output logic signed [31:0] psum_out
);
  logic signed [8:0] w;
  logic signed [31:0] acc;
  logic signed [8:0] mul_b;
  logic signed [17:0] prod;
  assign mul_b = os_mode ? b_in : w;
  assign prod = 18'(a_in) * 18'(mul_b);
  always_ff @(posedge clk) begin
    if (rst) begin
      w <= '0;
      acc <= '0;
      a_out <= '0;
      b_out <= '0;
      psum_out <= '0;
    end else begin
      a_out <= a_in;
      b_out <= b_in;
      if (load_w) w <= b_in;
      if (!os_mode) psum_out <= psum_in + 32'(prod);
      else if (drain) begin
        psum_out <= acc;
        acc <= psum_in;
      end else acc <= (clear ? 32'sd0 : acc) + 32'(prod);
    end
  end
endmodule
