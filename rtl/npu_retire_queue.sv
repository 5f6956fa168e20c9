// In-order retirement of one command queue: instructions that have issued,
// with their completion cycle. Every entry whose end is the current cycle
// retires (several can: FENCEs retire with a DMA still in flight before
// them), pushing its dependency tokens (isa.md §3: pushes at completion).
module npu_retire_queue #(
    parameter int DEPTH = 8
) (
    input  logic        clk,
    input  logic        rst,
    input  logic [63:0] cycle,
    input  logic        push,
    input  logic [63:0] push_end,
    input  logic        push_prev_flag,  // the instruction's push_prev
    input  logic        push_next_flag,  // the instruction's push_next
    output logic [7:0]  retire_prev,     // push_prev tokens retiring now
    output logic [7:0]  retire_next,     // push_next tokens retiring now
    output logic        empty,
    output logic        overrun          // push into a full queue (a bug)
);
  localparam int AW = DEPTH > 1 ? $clog2(DEPTH) : 1;
  logic [63:0] end_mem[DEPTH];
  logic [1:0] flags_mem[DEPTH];
  logic [AW-1:0] rd, wr;
  logic [31:0] count, retiring;

  function automatic logic [AW-1:0] advance(input logic [AW-1:0] p, input logic [31:0] n);
    return AW'((32'(p) + n) % DEPTH);
  endfunction

  // Ends are non-decreasing in queue order: the retiring entries are a prefix.
  always_comb begin
    logic stop;
    logic [AW-1:0] p;
    stop = 1'b0;
    retiring = '0;
    retire_prev = '0;
    retire_next = '0;
    for (int i = 0; i < DEPTH; i++) begin
      p = advance(rd, 32'(i));
      if (!stop && 32'(i) < count && end_mem[p] == cycle) begin
        retiring = retiring + 1;
        retire_prev = retire_prev + 8'(flags_mem[p][1]);
        retire_next = retire_next + 8'(flags_mem[p][0]);
      end else stop = 1'b1;
    end
  end

  assign empty = count == 0;
  assign overrun = push && count - retiring >= DEPTH;

  always_ff @(posedge clk) begin
    if (rst) begin
      rd <= '0;
      wr <= '0;
      count <= '0;
    end else begin
      rd <= advance(rd, retiring);
      if (push) begin
        end_mem[wr] <= push_end;
        flags_mem[wr] <= {push_prev_flag, push_next_flag};
        wr <= advance(wr, 1);
      end
      count <= count - retiring + 32'(push);
    end
  end
endmodule
