// A dependency-token FIFO (docs/isa.md §3). Tokens carry no data, so the
// FIFO is a counter bounded by DEPTH. Retirement pushes come before issue
// pops within a cycle: a token pushed in cycle t can be popped in cycle t.
module npu_token_fifo #(
    parameter int DEPTH = 4,
    parameter int PUSHW = 8
) (
    input  logic             clk,
    input  logic             rst,
    input  logic [PUSHW-1:0] push_count,  // tokens pushed this cycle
    input  logic             pop,         // one token popped this cycle
    output logic             available,   // a token can be popped this cycle
    output logic             overflow     // this cycle's pushes exceed DEPTH
);
  logic [31:0] count;
  logic [31:0] after_push;
  assign after_push = count + 32'(push_count);
  assign available  = after_push != 0;
  assign overflow   = after_push > DEPTH;
  always_ff @(posedge clk)
    if (rst) count <= '0;
    else count <= after_push - 32'(pop);
endmodule
