// The MATMUL unit: operand feeders around npu_pe_array (docs/isa.md §6).
// From the issue cycle (t = 0) it streams the instruction through the skewed
// array cycle by cycle and writes each result to ACC in the cycle it leaves
// the bottom edge:
//   WS: preload (p = R if preload): B row R-1-u enters the top of column
//       n at t = n + u (u < R), column n latches at t = R-1+n (skewed like
//       A, so the next preload may start R cycles after this one);
//       A(m, k) enters row k at t = p + m + k;
//       C(m, n) leaves column n at t = p + m + R + n.
//   OS: A(i, k) enters row i at t = d + k + i, B(k, j) column j at
//       t = d + k + j; capture at d + K + R + C - 3; row i leaves at
//       d + K + R + C - 2 + (R - 1 - i). With a bank conflict between A and
//       B the two reads of every step serialize: d = K idle cycles first
//       (as if one operand were fetched ahead), else d = 0.
// Operands are 9-bit (value minus zero point; WS weights are latched raw and
// the PEs subtract the b_zp of the MATMUL they serve); rows outside K see
// A = 0 and columns outside N are not written, so the zero fill contributes
// nothing.
// With MATMUL_INFLIGHT = NS > 1 up to NS WS MATMULs are in the array, one
// per slot (the controller issues by isa::MatmulPipeline's rule, which keeps
// their rows, weight latches and result columns apart in time): the latch
// fills the PEs' shadow weights, and row k's switch bit enters with A(0, k)
// of a preloading MATMUL (t = p + k) whatever its M and K, as the latch of
// every column does with one slot. Column n latches at R-1+n and PE(k, n)
// switches at p+k+n, so a preload may begin once the previous preloading
// MATMUL's switch bit has passed row R-1 of every column: R cycles later
// (with an unskewed latch of every column at R-1 it had to wait R+C-1).
module npu_matmul_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
#(
    parameter int NR = int'(ROWS),
    parameter int NC = int'(COLS),
    parameter int NS = int'(MATMUL_INFLIGHT)
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
    output logic [NC-1:0]         c_wr_accumulate,
    output logic [63:0]           c_wr_addr[NC],
    output logic [31:0]           c_wr_data[NC],
    output logic                  overrun     // start with every slot busy (a bug)
);
  localparam longint R = ROWS, C = COLS;
  localparam bit DOUBLE = NS > 1;

  function automatic logic f_ws(input logic [INSTR_BITS-1:0] I);
    return I[MATMUL_DATAFLOW_LSB +: MATMUL_DATAFLOW_W] == 1'(DATAFLOW_WS);
  endfunction
  function automatic logic [63:0] f_m(input logic [INSTR_BITS-1:0] I);
    return 64'(I[MATMUL_M_LSB +: MATMUL_M_W]);
  endfunction
  function automatic logic [63:0] f_k(input logic [INSTR_BITS-1:0] I);
    return 64'(I[MATMUL_K_LSB +: MATMUL_K_W]);
  endfunction
  function automatic logic [63:0] f_n(input logic [INSTR_BITS-1:0] I);
    return 64'(I[MATMUL_N_LSB +: MATMUL_N_W]);
  endfunction
  function automatic logic [63:0] f_p(input logic [INSTR_BITS-1:0] I);
    return f_ws(I) && I[MATMUL_PRELOAD_LSB] ? R : 64'd0;
  endfunction
  function automatic logic [63:0] f_os_base(input logic [INSTR_BITS-1:0] I);
    return f_k(I) + 2 * R + C - 2;
  endfunction
  function automatic logic signed [8:0] f_azp(input logic [INSTR_BITS-1:0] I);
    return 9'(signed'(I[MATMUL_A_ZP_LSB +: MATMUL_A_ZP_W]));
  endfunction
  function automatic logic signed [8:0] f_bzp(input logic [INSTR_BITS-1:0] I);
    return 9'(signed'(I[MATMUL_B_ZP_LSB +: MATMUL_B_ZP_W]));
  endfunction
  function automatic logic [63:0] a_address(input logic [INSTR_BITS-1:0] I, input logic [63:0] m,
                                            input logic [63:0] k);
    logic [63:0] kk, mi, ki;
    mi = 64'(I[MATMUL_A_M_INNER_LSB +: MATMUL_A_M_INNER_W]);
    ki = 64'(I[MATMUL_A_K_INNER_LSB +: MATMUL_A_K_INNER_W]);
    kk = 64'(I[MATMUL_A_K_OFFSET_LSB +: MATMUL_A_K_OFFSET_W]) + k;
    return 64'(I[MATMUL_A_ADDR_LSB +: MATMUL_A_ADDR_W]) +
           (m / mi) * 64'(I[MATMUL_A_M_OUTER_STRIDE_LSB +: MATMUL_A_M_OUTER_STRIDE_W]) +
           (m % mi) * 64'(I[MATMUL_A_M_INNER_STRIDE_LSB +: MATMUL_A_M_INNER_STRIDE_W]) +
           (kk / ki) * 64'(I[MATMUL_A_K_OUTER_STRIDE_LSB +: MATMUL_A_K_OUTER_STRIDE_W]) + kk % ki;
  endfunction
  function automatic logic [63:0] b_address(input logic [INSTR_BITS-1:0] I, input logic [63:0] k,
                                            input logic [63:0] n);
    return 64'(I[MATMUL_B_ADDR_LSB +: MATMUL_B_ADDR_W]) +
           k * 64'(I[MATMUL_B_STRIDE_LSB +: MATMUL_B_STRIDE_W]) + n;
  endfunction
  function automatic logic [63:0] c_address(input logic [INSTR_BITS-1:0] I, input logic [63:0] m,
                                            input logic [63:0] n);
    return 64'(I[MATMUL_C_ADDR_LSB +: MATMUL_C_ADDR_W]) +
           m * 64'(I[MATMUL_C_STRIDE_LSB +: MATMUL_C_STRIDE_W]) + n;
  endfunction

  // ---- slots: the registered state, and this cycle's view of it (a MATMUL
  // starting now is at t = 0 in the lowest idle slot) ----
  logic [INSTR_BITS-1:0] I_q[NS];
  logic [NS-1:0] busy_q;
  logic [63:0] t_q[NS], delay_q[NS];
  logic [INSTR_BITS-1:0] I[NS];
  logic [NS-1:0] busy;
  logic [63:0] t[NS], d[NS];
  int sel;
  always_comb begin
    sel = 0;
    for (int k = NS - 1; k >= 0; k--)
      if (!busy_q[k]) sel = k;
    for (int k = 0; k < NS; k++) begin
      automatic logic st = start && sel == k;
      busy[k] = busy_q[k] || st;
      I[k] = st ? start_inst : I_q[k];
      t[k] = st ? 64'd0 : t_q[k];
      d[k] = !st ? delay_q[k] :
             start_cycles > f_os_base(start_inst) ? start_cycles - f_os_base(start_inst) : 64'd0;
    end
  end
  assign overrun = start && busy_q == '1;

  // ---- feeders ----
  logic [NR-1:0] a_valid, flip_left;
  logic [NC-1:0] b_valid, b_raw, load_w;
  logic signed [8:0] a_zp[NR], b_zp[NC];
  logic [NR*9-1:0] a_left, zp_left;
  logic [NC*9-1:0] b_top;
  logic capture, shift, os_mode;
  logic signed [8:0] w_zp;
  always_comb begin
    load_w = '0;
    flip_left = '0;
    zp_left = '0;
    capture = 1'b0;
    shift = 1'b0;
    os_mode = 1'b0;
    w_zp = '0;
    a_valid = '0;
    b_valid = '0;
    b_raw = '0;
    for (int i = 0; i < NR; i++) begin
      a_addr[i] = '0;
      a_zp[i] = '0;
    end
    for (int j = 0; j < NC; j++) begin
      b_addr[j] = '0;
      b_zp[j] = '0;
    end
    for (int s = 0; s < NS; s++) begin
      automatic logic ws = busy[s] && f_ws(I[s]), os = busy[s] && !f_ws(I[s]);
      automatic logic [63:0] M = f_m(I[s]), K = f_k(I[s]), N = f_n(I[s]), p = f_p(I[s]);
      automatic logic [63:0] ts = t[s], ds = d[s];
      if (os) os_mode = 1'b1;
      if (!DOUBLE && busy[s]) w_zp = f_bzp(I[s]);
      for (int i = 0; i < NR; i++) begin
        automatic logic [63:0] k = 64'(i), m = 64'(i);
        if (ws && ts >= p + k && ts - p - k < M) begin
          if (DOUBLE) zp_left[i*9 +: 9] = f_bzp(I[s]);
          if (k < K) begin
            a_valid[i] = 1'b1;
            a_addr[i] = a_address(I[s], ts - p - k, k);
            a_zp[i] = f_azp(I[s]);
          end
        end
        if (DOUBLE && ws && p != 0 && ts == p + k) flip_left[i] = 1'b1;
        if (os && ts >= ds + m && ts - ds - m < K && m < M) begin
          a_valid[i] = 1'b1;
          a_addr[i] = a_address(I[s], m, ts - ds - m);
          a_zp[i] = f_azp(I[s]);
        end
      end
      for (int j = 0; j < NC; j++) begin
        automatic logic [63:0] n = 64'(j);
        // Column j's preload is skewed by j cycles, as A's rows are.
        if (ws && ts >= n && ts - n < p && R - 1 - (ts - n) < K && n < N) begin
          b_valid[j] = 1'b1;
          b_raw[j] = 1'b1;
          b_addr[j] = b_address(I[s], R - 1 - (ts - n), n);
        end
        if (ws && p != 0 && ts == R - 1 + n) load_w[j] = 1'b1;
        if (os && ts >= ds + n && ts - ds - n < K && n < N) begin
          b_valid[j] = 1'b1;
          b_addr[j] = b_address(I[s], ts - ds - n, n);
          b_zp[j] = f_bzp(I[s]);
        end
      end
      if (os && ts == ds + K + R + C - 3) capture = 1'b1;
      if (os && ts >= ds + K + R + C - 2) shift = 1'b1;
    end
  end

  // Operands minus zero points (a separate process from the addresses: the
  // read data depends on them).
  always_comb begin
    for (int i = 0; i < NR; i++)
      a_left[i*9 +: 9] = a_valid[i] ? 9'(signed'(a_data[i])) - a_zp[i] : 9'sd0;
    for (int j = 0; j < NC; j++)
      // WS weights enter raw (the PE subtracts the zero point at use).
      b_top[j*9 +: 9] = !b_valid[j] ? 9'sd0 :
                        b_raw[j] ? 9'(signed'(b_data[j])) : 9'(signed'(b_data[j])) - b_zp[j];
  end

  logic [NC*32-1:0] c_bottom;
  npu_pe_array #(.ROWS(NR), .COLS(NC), .DOUBLE_BUF(DOUBLE)) u_array (
      .clk, .rst, .os_mode, .load_w, .w_zp, .capture, .shift,
      .a_left, .flip_left, .zp_left, .b_top, .c_bottom);

  // ---- results: written in the cycle they are visible at the bottom ----
  always_comb
    for (int j = 0; j < NC; j++) begin
      automatic logic [63:0] n = 64'(j);
      c_wr_en[j] = 1'b0;
      c_wr_accumulate[j] = 1'b0;
      c_wr_addr[j] = '0;
      c_wr_data[j] = c_bottom[j*32 +: 32];
      for (int s = 0; s < NS; s++) begin
        automatic logic ws = f_ws(I_q[s]);
        automatic logic [63:0] M = f_m(I_q[s]), K = f_k(I_q[s]), N = f_n(I_q[s]);
        automatic logic [63:0] p = f_p(I_q[s]), ts = t_q[s], ds = delay_q[s];
        automatic logic [63:0] m = '0;
        if (busy_q[s]) begin
          if (ws && ts >= p + R + n && ts - p - R - n < M && n < N) begin
            c_wr_en[j] = 1'b1;
            c_wr_accumulate[j] = I_q[s][MATMUL_ACCUMULATE_LSB];
            c_wr_addr[j] = c_address(I_q[s], ts - p - R - n, n);
          end
          if (!ws && ts >= ds + K + R + C - 2 && n < N) begin
            // row R-1 first: row i leaves at d + K + R + C - 2 + (R - 1 - i)
            m = R - 1 - (ts - (ds + K + R + C - 2));
            if (m < M) begin
              c_wr_en[j] = 1'b1;
              c_wr_accumulate[j] = I_q[s][MATMUL_ACCUMULATE_LSB];
              c_wr_addr[j] = c_address(I_q[s], m, n);
            end
          end
        end
      end
    end

  always_ff @(posedge clk) begin
    if (rst) busy_q <= '0;
    else
      for (int s = 0; s < NS; s++)
        if (busy[s]) begin
          automatic logic [63:0] total =
              f_ws(I[s]) ? f_p(I[s]) + f_m(I[s]) + R + C - 1 : d[s] + f_os_base(I[s]);
          if (start && sel == s) begin
            I_q[s] <= start_inst;
            delay_q[s] <= d[s];
          end
          t_q[s] <= t[s] + 1;
          busy_q[s] <= t[s] + 1 < total;
        end
  end
endmodule
