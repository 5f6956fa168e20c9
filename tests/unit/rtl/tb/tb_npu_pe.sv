// Self-checking testbench of npu_pe (driven by tb_main.cpp's clock): 4000
// random cycles switching between WS and OS stretches, checked every cycle
// against the PE of docs/isa.md §6 written out here: A and B pass through
// one register; WS latches the raw int8 weight shifting past (load_w) and
// adds A * (W - w_zp) to the partial sum from above (the current w_zp, 32-bit
// wraparound); OS accumulates A * B, `capture` moves acc + A * B to the
// output register and clears acc, `shift` passes the output from above.
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
      checks++;
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
      if (n_ws < 1000 || n_cap < 100 || n_shift < 300 || n_wrap < 10)
        $error("coverage: %0d WS, %0d captures, %0d shifts, %0d wraps", n_ws, n_cap, n_shift, n_wrap);
      $display("tb_npu_pe: %0d cycles checked (%0d WS MACs, %0d OS captures, %0d shifts, %0d wraps)",
               checks, n_ws, n_cap, n_shift, n_wrap);
      $finish;
    end
  end
endmodule
