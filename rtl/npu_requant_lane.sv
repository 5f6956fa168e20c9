// One post-processor lane (REQUANT, docs/isa.md §4): int32 accumulator
// value (+ bias, wraparound) -> fp32 -> * scale -> clamp -> RNE -> + zp, and
// the LUT index the instruction's optional 256-entry table is read at.
// Combinational; npu_datapath computes every REQUANT element with the same
// function (npu_postproc_pkg::requantize).
module npu_requant_lane (
    input  logic        en,     // a beat uses the lane this cycle
    input  logic [31:0] acc,
    input  logic        bias_en,
    input  logic [31:0] bias,
    input  logic [31:0] scale,  // fp32 bit pattern
    input  logic [31:0] zp,
    input  logic [31:0] lo,
    input  logic [31:0] hi,
    output logic [31:0] y,      // the int32 result (its low byte is stored without LUT)
    output logic [7:0]  lut_idx // y + 128 (the LUT entry, with the lut flag)
);
  // Idle lanes output zero: a mux in hardware, and the Verilated model
  // skips the fp32 evaluation in the (many) cycles the engine is idle.
  always_comb begin
    y = en ? npu_postproc_pkg::requantize(bias_en ? acc + bias : acc, scale, zp, lo, hi) : '0;
    lut_idx = y[7:0] ^ 8'h80;
  end
endmodule
