// A command queue (load, compute or store): DEPTH instructions in order.
// `full` is the occupancy at the start of the cycle, so a slot freed by an
// issue in cycle t is usable by fetch in t + 1; the head bypasses the storage
// so an instruction can issue in the cycle it is fetched (docs/simulator.md).
module npu_cmd_queue
  import systole_isa_pkg::*;
#(
    parameter int DEPTH = 4
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  push,
    input  logic [31:0]           push_idx,
    input  logic [INSTR_BITS-1:0] push_inst,
    input  logic                  pop,
    output logic                  full,
    output logic                  empty,
    output logic                  head_valid,
    output logic [31:0]           head_idx,
    output logic [INSTR_BITS-1:0] head_inst
);
  localparam int AW = DEPTH > 1 ? $clog2(DEPTH) : 1;
  logic [31:0] idx_mem[DEPTH];
  logic [INSTR_BITS-1:0] inst_mem[DEPTH];
  logic [AW-1:0] rd, wr;
  logic [31:0] count;

  assign full = count >= DEPTH;
  assign empty = count == 0;
  assign head_valid = count != 0 || push;
  assign head_idx = count != 0 ? idx_mem[rd] : push_idx;
  assign head_inst = count != 0 ? inst_mem[rd] : push_inst;

  function automatic logic [AW-1:0] next(input logic [AW-1:0] p);
    return (32'(p) == DEPTH - 1) ? '0 : p + 1'b1;
  endfunction

  // A push that is popped in the same cycle (bypass) is never stored.
  logic store, take;
  assign store = push && !(pop && count == 0);
  assign take  = pop && count != 0;
  always_ff @(posedge clk) begin
    if (rst) begin
      rd <= '0;
      wr <= '0;
      count <= '0;
    end else begin
      if (store) begin
        idx_mem[wr] <= push_idx;
        inst_mem[wr] <= push_inst;
        wr <= next(wr);
      end
      if (take) rd <= next(rd);
      count <= count + 32'(store) - 32'(take);
    end
  end
endmodule
