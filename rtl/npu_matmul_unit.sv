// The MATMUL unit: operand feeders around npu_pe_array (docs/isa.md §6).
// From the issue cycle (t = 0) it streams the instruction through the skewed
// array cycle by cycle and writes each result to ACC in the cycle it leaves
// the bottom edge:
//   WS: preload t < p (p = R if preload): B row R-1-t enters the top, the
//       rows latch at t = R-1; A(m, k) enters row k at t = p + m + k;
//       C(m, n) leaves column n at t = p + m + R + n.
//   OS: A(i, k) enters row i at t = d + k + i, B(k, j) column j at
//       t = d + k + j; capture at d + K + R + C - 3; row i leaves at
//       d + K + R + C - 2 + (R - 1 - i). With a bank conflict between A and
//       B the two reads of every step serialize: d = K idle cycles first
//       (as if one operand were fetched ahead), else d = 0.
// Operands are 9-bit (value minus zero point; WS weights are latched raw and
// the PEs subtract the current b_zp); rows outside K see A = 0 and columns
// outside N are not written, so the zero fill contributes nothing.
module npu_matmul_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
#(
    parameter int NR = int'(ROWS),
    parameter int NC = int'(COLS)
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,      // MATMUL issues this cycle
    input  logic [INSTR_BITS-1:0] start_inst,
    input  logic [63:0]           start_cycles,  // its occupancy (computeCycles)
    // scratchpad read ports (combinational)
    output logic [63:0]           a_addr[NR],
    input  logic [7:0]            a_data[NR],
    output logic [63:0]           b_addr[NC],
    input  logic [7:0]            b_data[NC],
    // accumulator writes: ACC[c_wr_addr[j]] (+)= c_wr_data[j]
    output logic [NC-1:0]         c_wr_en,
    output logic                  c_wr_accumulate,
    output logic [63:0]           c_wr_addr[NC],
    output logic [31:0]           c_wr_data[NC]
);
  localparam longint R = ROWS, C = COLS;
  logic [INSTR_BITS-1:0] I_q;
  logic busy_q;
  logic [63:0] t_q, delay_q;
  wire busy = busy_q || start;
  wire [INSTR_BITS-1:0] I = start ? start_inst : I_q;
  wire [63:0] t = start ? 64'd0 : t_q;
  wire ws = I[MATMUL_DATAFLOW_LSB +: MATMUL_DATAFLOW_W] == 1'(DATAFLOW_WS);
  wire [63:0] M = 64'(I[MATMUL_M_LSB +: MATMUL_M_W]);
  wire [63:0] K = 64'(I[MATMUL_K_LSB +: MATMUL_K_W]);
  wire [63:0] N = 64'(I[MATMUL_N_LSB +: MATMUL_N_W]);
  wire [63:0] p = ws && I[MATMUL_PRELOAD_LSB] ? R : 64'd0;
  wire [63:0] os_base = K + 2 * R + C - 2;
  wire [63:0] d = start ? (start_cycles > os_base ? start_cycles - os_base : 64'd0) : delay_q;
  wire [63:0] mi = 64'(I[MATMUL_A_M_INNER_LSB +: MATMUL_A_M_INNER_W]);
  wire [63:0] ki = 64'(I[MATMUL_A_K_INNER_LSB +: MATMUL_A_K_INNER_W]);
  wire signed [8:0] azp = 9'(signed'(I[MATMUL_A_ZP_LSB +: MATMUL_A_ZP_W]));
  wire signed [8:0] bzp = 9'(signed'(I[MATMUL_B_ZP_LSB +: MATMUL_B_ZP_W]));

  function automatic logic [63:0] a_address(input logic [63:0] m, input logic [63:0] k);
    logic [63:0] kk;
    kk = 64'(I[MATMUL_A_K_OFFSET_LSB +: MATMUL_A_K_OFFSET_W]) + k;
    return 64'(I[MATMUL_A_ADDR_LSB +: MATMUL_A_ADDR_W]) +
           (m / mi) * 64'(I[MATMUL_A_M_OUTER_STRIDE_LSB +: MATMUL_A_M_OUTER_STRIDE_W]) +
           (m % mi) * 64'(I[MATMUL_A_M_INNER_STRIDE_LSB +: MATMUL_A_M_INNER_STRIDE_W]) +
           (kk / ki) * 64'(I[MATMUL_A_K_OUTER_STRIDE_LSB +: MATMUL_A_K_OUTER_STRIDE_W]) + kk % ki;
  endfunction
  function automatic logic [63:0] b_address(input logic [63:0] k, input logic [63:0] n);
    return 64'(I[MATMUL_B_ADDR_LSB +: MATMUL_B_ADDR_W]) +
           k * 64'(I[MATMUL_B_STRIDE_LSB +: MATMUL_B_STRIDE_W]) + n;
  endfunction

  // ---- feeders ----
  logic [NR-1:0] a_valid, load_w;
  logic [NC-1:0] b_valid;
  logic [NR*9-1:0] a_left;
  logic [NC*9-1:0] b_top;
  logic capture, shift;
  always_comb begin
    load_w = '0;
    capture = 1'b0;
    shift = 1'b0;
    for (int i = 0; i < NR; i++) begin
      automatic logic [63:0] k = 64'(i), m = 64'(i), kk = '0;
      a_valid[i] = 1'b0;
      a_addr[i] = '0;
      if (busy && ws && t >= p + k && t - p - k < M && k < K) begin
        a_valid[i] = 1'b1;
        a_addr[i] = a_address(t - p - k, k);
      end
      if (busy && !ws && t >= d + m && t - d - m < K && m < M) begin
        kk = t - d - m;
        a_valid[i] = 1'b1;
        a_addr[i] = a_address(m, kk);
      end
    end
    for (int j = 0; j < NC; j++) begin
      automatic logic [63:0] n = 64'(j);
      b_valid[j] = 1'b0;
      b_addr[j] = '0;
      if (busy && ws && t < p && R - 1 - t < K && n < N) begin
        b_valid[j] = 1'b1;
        b_addr[j] = b_address(R - 1 - t, n);
      end
      if (busy && !ws && t >= d + n && t - d - n < K && n < N) begin
        b_valid[j] = 1'b1;
        b_addr[j] = b_address(t - d - n, n);
      end
    end
    if (busy && ws && p != 0 && t == R - 1) load_w = '1;
    if (busy && !ws && t == d + K + R + C - 3) capture = 1'b1;
    if (busy && !ws && t >= d + K + R + C - 2) shift = 1'b1;
  end

  // Operands minus zero points (a separate process from the addresses: the
  // read data depends on them).
  always_comb begin
    for (int i = 0; i < NR; i++)
      a_left[i*9 +: 9] = a_valid[i] ? 9'(signed'(a_data[i])) - azp : 9'sd0;
    for (int j = 0; j < NC; j++)
      // WS weights enter raw (the PE subtracts the zero point at use).
      b_top[j*9 +: 9] = !b_valid[j] ? 9'sd0 :
                        ws ? 9'(signed'(b_data[j])) : 9'(signed'(b_data[j])) - bzp;
  end

  logic [NC*32-1:0] c_bottom;
  npu_pe_array #(.ROWS(NR), .COLS(NC)) u_array (
      .clk, .rst, .os_mode(busy ? !ws : 1'b0), .load_w, .w_zp(bzp), .capture, .shift,
      .a_left, .b_top, .c_bottom);

  // ---- results: written in the cycle they are visible at the bottom ----
  assign c_wr_accumulate = I[MATMUL_ACCUMULATE_LSB];
  always_comb
    for (int j = 0; j < NC; j++) begin
      automatic logic [63:0] n = 64'(j), m = '0;
      c_wr_en[j] = 1'b0;
      c_wr_addr[j] = '0;
      c_wr_data[j] = c_bottom[j*32 +: 32];
      if (busy_q && ws && t >= p + R + n && t - p - R - n < M && n < N) begin
        m = t - p - R - n;
        c_wr_en[j] = 1'b1;
        c_wr_addr[j] = 64'(I[MATMUL_C_ADDR_LSB +: MATMUL_C_ADDR_W]) +
                       m * 64'(I[MATMUL_C_STRIDE_LSB +: MATMUL_C_STRIDE_W]) + n;
      end
      if (busy_q && !ws && t >= d + K + R + C - 2 && n < N) begin
        // row R-1 first: row i leaves at d + K + R + C - 2 + (R - 1 - i)
        m = R - 1 - (t - (d + K + R + C - 2));
        if (m < M) begin
          c_wr_en[j] = 1'b1;
          c_wr_addr[j] = 64'(I[MATMUL_C_ADDR_LSB +: MATMUL_C_ADDR_W]) +
                         m * 64'(I[MATMUL_C_STRIDE_LSB +: MATMUL_C_STRIDE_W]) + n;
        end
      end
    end

  wire [63:0] total = ws ? p + M + R + C - 1 : d + os_base;
  always_ff @(posedge clk) begin
    if (rst) busy_q <= 1'b0;
    else if (busy) begin
      if (start) begin
        I_q <= start_inst;
        delay_q <= d;
      end
      t_q <= t + 1;
      busy_q <= t + 1 < total;
    end
  end
endmodule
