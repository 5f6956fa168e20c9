// Self-checking testbench of npu_cmd_queue (driven by tb_main.cpp's clock):
// 3000 random cycles of fetch pushes (only when not full, the controller's
// rule) and issue pops against a reference FIFO, checking every cycle the
// head (index and the whole instruction), head_valid, full and empty: full
// is the occupancy at the start of the cycle, and an instruction pushed
// into an empty queue is the head in the same cycle (bypass).
module tb_npu_cmd_queue
  import systole_isa_pkg::*;
(
    input logic clk
);
  localparam int DEPTH = 3;
  logic rst = 1'b1, push = 1'b0, pop = 1'b0;
  logic [31:0] push_idx = '0;
  logic [INSTR_BITS-1:0] push_inst = '0;
  logic full, empty, head_valid;
  logic [31:0] head_idx;
  logic [INSTR_BITS-1:0] head_inst;
  npu_cmd_queue #(.DEPTH(DEPTH)) dut (.*);

  // An instruction's bits are a function of its index (checked whole).
  function automatic logic [INSTR_BITS-1:0] inst_of(input int idx);
    logic [INSTR_BITS-1:0] v;
    for (int w = 0; w < INSTR_BITS / 32; w++) v[w*32 +: 32] = 32'(idx) * 32'h9e3779b1 + 32'(w);
    return v;
  endfunction

  int q[$];
  int cyc = -1, next_idx = 0, checks = 0, n_full = 0, n_bypass = 0, n_popped = 0;

  always_ff @(negedge clk) begin
    automatic int t = cyc;
    automatic logic ps, pp;
    rst <= t < 0;
    ps = t >= 0 && q.size() < DEPTH && $urandom_range(0, 2) != 0;
    pp = t >= 0 && (q.size() != 0 || ps) && $urandom_range(0, 1) == 1;
    push <= ps;
    pop <= pp;
    push_idx <= 32'(next_idx);
    push_inst <= inst_of(next_idx);
  end

  always_ff @(posedge clk) begin
    cyc <= cyc + 1;
    if (cyc >= 0) begin
      automatic int head = q.size() != 0 ? q[0] : int'(push_idx);
      if (full !== (q.size() >= DEPTH)) $error("cycle %0d: full %0d, %0d queued", cyc, full, q.size());
      if (empty !== (q.size() == 0)) $error("cycle %0d: empty %0d, %0d queued", cyc, empty, q.size());
      if (head_valid !== (q.size() != 0 || push))
        $error("cycle %0d: head_valid %0d, %0d queued, push %0d", cyc, head_valid, q.size(), push);
      if (head_valid && (head_idx !== 32'(head) || head_inst !== inst_of(head)))
        $error("cycle %0d: head %0d, expected %0d (or its bits differ)", cyc, head_idx, head);
      checks <= checks + 1;
      n_full <= n_full + int'(full);
      n_bypass <= n_bypass + int'(q.size() == 0 && push && pop);
      n_popped <= n_popped + int'(pop);
      if (push) begin
        q.push_back(int'(push_idx));
        next_idx <= next_idx + 1;
      end
      if (pop) void'(q.pop_front());
    end
    if (cyc == 3000) begin
      if (n_full < 50 || n_bypass < 50 || n_popped < 1000)
        $error("coverage: %0d full, %0d bypass, %0d popped", n_full, n_bypass, n_popped);
      $display("tb_npu_cmd_queue: %0d cycles checked, %0d instructions through (%0d full, %0d bypass)",
               checks, n_popped, n_full, n_bypass);
      $finish;
    end
  end
endmodule
