// Self-checking testbench of npu_retire_queue (driven by tb_main.cpp's
// clock): 3000 random cycles of issues (non-decreasing completion cycles,
// several often equal, with random push_prev/push_next flags) against a
// reference list; every cycle the tokens retiring (the prefix whose end is
// this cycle, in order) and `empty` must match; finally a push into a full
// queue must raise `overrun`.
module tb_npu_retire_queue (
    input logic clk
);
  localparam int DEPTH = 4;
  logic rst = 1'b1, push = 1'b0, push_prev_flag = 1'b0, push_next_flag = 1'b0;
  logic [63:0] cycle = '0, push_end = '0;
  logic [7:0] retire_prev, retire_next;
  logic empty, overrun;
  npu_retire_queue #(.DEPTH(DEPTH)) dut (.*);

  longint ends[$];
  int flags[$];
  int cyc = -1, checks = 0, n_multi = 0, n_retired = 0, n_overrun = 0;
  longint last_end = 0;
  logic ovr_phase = 1'b0;

  function automatic int retiring_now(input longint c);
    int n = 0;
    while (n < ends.size() && ends[n] == c) n++;
    return n;
  endfunction

  always_ff @(negedge clk) begin
    automatic int t = cyc;
    automatic logic ps;
    automatic longint e;
    rst <= t < 0;
    cycle <= 64'(t < 0 ? 0 : t);
    ps = 1'b0;
    if (t >= 0 && t < 2980) ps = ends.size() - retiring_now(t) < DEPTH && $urandom_range(0, 1) == 1;
    e = longint'(t) + longint'($urandom_range(1, 6));
    if (e < last_end || $urandom_range(0, 2) == 0) e = last_end > t ? last_end : longint'(t) + 1;
    // The last cycles fill the queue with far completions, then push once
    // more into the full queue: overrun.
    if (t >= 2980) begin
      ps = ends.size() - retiring_now(t) < DEPTH || t == 2999;
      e = 10000;
    end
    push <= ps;
    push_end <= 64'(e);
    push_prev_flag <= $urandom_range(0, 1) == 1;
    push_next_flag <= $urandom_range(0, 1) == 1;
    if (ps) last_end = e;
  end

  always_ff @(posedge clk) begin
    cyc <= cyc + 1;
    if (cyc >= 0) begin
      automatic int n = retiring_now(longint'(cyc));
      automatic int np = 0, nn = 0;
      for (int i = 0; i < n; i++) begin
        np += flags[i] >> 1;
        nn += flags[i] & 1;
      end
      if (retire_prev !== 8'(np) || retire_next !== 8'(nn))
        $error("cycle %0d: retiring %0d prev / %0d next tokens, expected %0d / %0d (%0d entries)",
               cyc, retire_prev, retire_next, np, nn, n);
      if (empty !== (ends.size() == 0)) $error("cycle %0d: empty %0d", cyc, empty);
      if (overrun !== (push && ends.size() - n >= DEPTH))
        $error("cycle %0d: overrun %0d, %0d entries, %0d retiring", cyc, overrun, ends.size(), n);
      checks <= checks + 1;
      n_multi <= n_multi + int'(n > 1);
      n_overrun <= n_overrun + int'(overrun);
      n_retired <= n_retired + n;
      for (int i = 0; i < n; i++) begin
        void'(ends.pop_front());
        void'(flags.pop_front());
      end
      if (push && !overrun) begin
        ends.push_back(longint'(push_end));
        flags.push_back({30'd0, push_prev_flag, push_next_flag});
      end
    end
    if (cyc == 3000) begin
      if (n_multi < 50 || n_retired < 1000 || n_overrun != 1)
        $error("coverage: %0d multi-retire cycles, %0d retired, %0d overruns", n_multi,
               n_retired, n_overrun);
      $display("tb_npu_retire_queue: %0d cycles checked, %0d retired (%0d cycles retiring several)",
               checks, n_retired, n_multi);
      $finish;
    end
  end
endmodule
