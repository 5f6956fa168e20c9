// Self-checking testbench of npu_token_fifo (driven by tb_main.cpp's clock):
// directed cases of docs/isa.md §3 (a token pushed in cycle t can be popped
// in cycle t; a push beyond DEPTH overflows) and 3000 random cycles against
// a token count, checking `available` and `overflow` every cycle.
module tb_npu_token_fifo (
    input logic clk
);
  localparam int DEPTH = 3;
  logic rst = 1'b1, pop = 1'b0;
  logic [7:0] push_count = '0;
  logic available, overflow;
  npu_token_fifo #(.DEPTH(DEPTH), .PUSHW(8)) dut (.*);

  int cyc = -1, tokens = 0, checks = 0, n_over = 0, n_empty = 0, n_same = 0;

  // Stimulus of cycle t (applied before the edge that ends it).
  always_ff @(negedge clk) begin
    automatic int t = cyc;
    rst <= t < 0;
    push_count <= '0;
    pop <= 1'b0;
    if (t == 0) push_count <= 8'd1;        // push and pop in the same cycle
    if (t == 0) pop <= 1'b1;
    if (t == 1) pop <= 1'b0;               // nothing available
    if (t == 2) push_count <= 8'd3;        // fill to DEPTH: no overflow
    if (t == 3) push_count <= 8'd1;        // one more: overflow (checked below)
    if (t == 4) push_count <= 8'd0;
    if (t >= 5) begin
      // Pops only what is available (the controller's rule), 3 in 4
      // cycles; pushes alternate between filling (0.9 per cycle) and
      // draining (0.1) stretches of 100 cycles.
      automatic int r = $urandom_range(0, 9);
      automatic logic [7:0] p;
      if ((t / 100) % 2 == 0) p = r < 3 ? 8'd0 : (r < 8 ? 8'd1 : 8'd2);
      else p = r < 9 ? 8'd0 : 8'd1;
      push_count <= p;
      pop <= (tokens + int'(p) != 0) && $urandom_range(0, 3) != 0;
    end
  end

  always_ff @(posedge clk) begin
    cyc <= cyc + 1;
    if (cyc >= 0) begin
      automatic int after = tokens + int'(push_count);
      if (available !== (after != 0))
        $error("cycle %0d: available %0d with %0d tokens + %0d pushed", cyc, available,
               tokens, push_count);
      if (overflow !== (after > DEPTH))
        $error("cycle %0d: overflow %0d with %0d tokens + %0d pushed", cyc, overflow,
               tokens, push_count);
      if (cyc == 0 && !available) $error("a token pushed in cycle t must be poppable in t");
      if (cyc == 2 && overflow) $error("DEPTH tokens must not overflow");
      if (cyc == 3 && !overflow) $error("DEPTH + 1 tokens must overflow");
      checks <= checks + 1;
      n_over <= n_over + int'(overflow);
      n_empty <= n_empty + int'(!available);
      n_same <= n_same + int'(tokens == 0 && push_count != 0 && pop);
      tokens <= after - int'(pop);
    end
    if (cyc == 3000) begin
      if (checks < 3000 || n_over < 5 || n_empty < 20 || n_same < 20)
        $error("coverage: %0d checks, %0d overflows, %0d empty, %0d same-cycle", checks,
               n_over, n_empty, n_same);
      $display("tb_npu_token_fifo: %0d cycles checked (%0d overflow, %0d empty, %0d same-cycle push+pop)",
               checks, n_over, n_empty, n_same);
      $finish;
    end
  end
endmodule
