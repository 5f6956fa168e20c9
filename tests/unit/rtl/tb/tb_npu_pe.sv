// Self-checking testbench of npu_pe (driven by tb_main.cpp's clock): 4000
// random cycles switching between WS and OS stretches, checked every cycle
// against the PE of docs/isa.md §6 written out here: A and B pass through
// one register; WS latches the raw int8 weight shifting past (load_w) and
// adds A * (W - w_zp) to the partial sum from above (the current w_zp, 32-bit
// wraparound); OS accumulates A * B, `capture` moves acc + A * B to the
// output register and clears acc, `shift` passes the output from above.
// A second PE with DOUBLE_BUF (array.matmul_inflight > 1) beside it: load_w
// latches the shadow weight; in a cycle whose flip_in is set the WS product
// uses the shadow weight and it becomes the weight in use; the zero point
// is zp_in, which moves right with A like flip_in.
module tb_npu_pe (
    input logic clk
);
  logic rst = 1'b1, os_mode = 1'b0, load_w = 1'b0, capture = 1'b0, shift = 1'b0;
  logic signed [8:0] w_zp = '0, a_in = '0, b_in = '0, a_out, b_out;
  logic signed [31:0] psum_in = '0, psum_out;
  // One weight register (DOUBLE_BUF = 0): switch bit and zero point unused.
  logic flip_in = 1'b0, flip_out;
  logic signed [8:0] zp_in = '0, zp_out;
  npu_pe dut (.*);
  logic signed [8:0] a_out2, b_out2, zp_out2;
  logic flip_out2;
  logic signed [31:0] psum_out2;
  npu_pe #(.DOUBLE_BUF(1'b1)) dut2 (
      .clk, .rst, .os_mode, .load_w, .w_zp, .capture, .shift, .a_in, .flip_in, .zp_in, .b_in,
      .psum_in, .a_out(a_out2), .flip_out(flip_out2), .zp_out(zp_out2), .b_out(b_out2),
      .psum_out(psum_out2));
  int w_sh2 = 0, w2 = 0, acc2 = 0, rpsum2 = 0, rzp2 = 0, n_flip = 0;
  logic rflip2 = 1'b0;

  int cyc = -1, checks = 0, n_ws = 0, n_cap = 0, n_shift = 0, n_wrap = 0;
  int w = 0, acc = 0, ra = 0, rb = 0, rpsum = 0;

  function automatic logic signed [8:0] r9(input int lo, input int hi);
    return 9'($urandom_range(0, hi - lo) + lo);
  endfunction

  always_ff @(negedge clk) begin
    automatic int t = cyc;
    automatic logic os;
    rst <= t < 0;
    os = ((t / 37) % 2) == 1;  // WS and OS stretches
    os_mode <= os;
    load_w <= !os && $urandom_range(0, 3) == 0;
    capture <= os && $urandom_range(0, 5) == 0;
    shift <= os && $urandom_range(0, 2) == 0;
    w_zp <= r9(-128, 127);
    flip_in <= !os && $urandom_range(0, 4) == 0;
    zp_in <= r9(-128, 127);
    a_in <= os ? r9(-256, 255) : r9(-255, 255);
    b_in <= os ? r9(-256, 255) : r9(-128, 127);  // WS: raw int8 weights
    psum_in <= $urandom_range(0, 3) == 0 ? 32'sh7fff0000 + $signed(32'($urandom_range(0, 'hffff)))
                                          : $signed($urandom());
  end

  always_ff @(posedge clk) begin
    cyc <= cyc + 1;
    if (cyc >= 0) begin
      if (a_out !== 9'(ra) || b_out !== 9'(rb) || psum_out !== 32'(rpsum))
        $error("cycle %0d: a_out %0d b_out %0d psum_out %0d, expected %0d %0d %0d", cyc, a_out,
               b_out, psum_out, ra, rb, rpsum);
      if (a_out2 !== 9'(ra) || b_out2 !== 9'(rb) || psum_out2 !== 32'(rpsum2) ||
          flip_out2 !== rflip2 || zp_out2 !== 9'(rzp2))
        $error("cycle %0d: double-buffered PE a_out %0d b_out %0d psum_out %0d flip %0d zp %0d, expected %0d %0d %0d %0d %0d",
               cyc, a_out2, b_out2, psum_out2, flip_out2, zp_out2, ra, rb, rpsum2, rflip2, rzp2);
      if (flip_out !== 1'b0 || zp_out !== 9'sd0)
        $error("cycle %0d: the single-register PE passes flip %0d zp %0d on", cyc, flip_out, zp_out);
      checks++;
      // The double-buffered PE's reference (before the shared one below
      // updates os-mode state; it reads the same inputs).
      rflip2 = flip_in;
      rzp2 = int'(zp_in);
      if (!os_mode) begin
        automatic int wu = flip_in ? w_sh2 : w2;
        rpsum2 = int'(psum_in) + int'(a_in) * (wu - int'(zp_in));
        if (flip_in) begin
          w2 = w_sh2;
          n_flip++;
        end
      end else if (capture) begin
        rpsum2 = acc2 + int'(a_in) * int'(b_in);
        acc2 = 0;
      end else begin
        acc2 = acc2 + int'(a_in) * int'(b_in);
        if (shift) rpsum2 = int'(psum_in);
      end
      if (load_w) w_sh2 = int'(b_in);
      // The reference registers for the next cycle (int arithmetic wraps at 32 bits).
      ra = int'(a_in);
      rb = int'(b_in);
      if (!os_mode) begin
        rpsum = int'(psum_in) + int'(a_in) * (w - int'(w_zp));
        n_ws++;
        n_wrap += int'((longint'(psum_in) + longint'(int'(a_in) * (w - int'(w_zp)))) != longint'(rpsum));
      end else if (capture) begin
        rpsum = acc + int'(a_in) * int'(b_in);
        acc = 0;
        n_cap++;
      end else begin
        acc = acc + int'(a_in) * int'(b_in);
        if (shift) begin
          rpsum = int'(psum_in);
          n_shift++;
        end
      end
      if (load_w) w = int'(b_in);
    end
    if (cyc == 4000) begin
      if (n_ws < 1000 || n_cap < 100 || n_shift < 300 || n_wrap < 10 || n_flip < 200)
        $error("coverage: %0d WS, %0d captures, %0d shifts, %0d wraps, %0d switches", n_ws,
               n_cap, n_shift, n_wrap, n_flip);
      $display("tb_npu_pe: %0d cycles checked (%0d WS MACs, %0d OS captures, %0d shifts, %0d wraps; double-buffered PE: %0d weight switches)",
               checks, n_ws, n_cap, n_shift, n_wrap, n_flip);
      $finish;
    end
  end
endmodule
