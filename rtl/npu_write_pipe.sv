// The PD register stages between a streaming engine's read+compute cycle and
// its memory write (npu_{requant,vector,pool,dwconv}_unit): in_valid marks a
// beat (a cycle that computes, whether or not it writes), in_data is all the
// write needs (enables, addresses, data), packed. out_valid/out_data are
// in_valid/in_data PD cycles later (PD = 0: the same cycle, no registers);
// pend says a beat is still in the stages, so the engine stays busy until
// its last write. Only the valid bits are reset: an engine gates its write
// enables with out_valid, so the data of an empty stage is never used.
module npu_write_pipe #(
    parameter int PD = 1,
    parameter int W = 1
) (
    // Unused when PD = 0 (no registers).
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic         clk,
    input  logic         rst,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic         in_valid,
    input  logic [W-1:0] in_data,
    output logic         out_valid,
    output logic [W-1:0] out_data,
    output logic         pend
);
  if (PD == 0) begin : g_nopipe
    assign out_valid = in_valid;
    assign out_data = in_data;
    assign pend = 1'b0;
  end else begin : g_pipe
    logic [PD-1:0] v_q;
    logic [W-1:0] d_q[PD];
    always_ff @(posedge clk) begin
      if (rst) v_q <= '0;
      else v_q <= PD'({v_q, in_valid});
      d_q[0] <= in_data;
      for (int k = 1; k < PD; k++) d_q[k] <= d_q[k-1];
    end
    assign out_valid = v_q[PD-1];
    assign out_data = d_q[PD-1];
    assign pend = |v_q;
  end
endmodule
