// Self-checking testbench of npu_matmul_unit on the tiny-4x4 config (driven
// by tb_main.cpp's clock): 300 random MATMULs back to back (WS with a
// preload, WS reusing the latched weights with a new b_zp, OS with and
// without the K-cycle bank-conflict delay; random implicit-im2col A
// addressing, zero points, accumulate, random SP bytes), each checked
// against docs/isa.md §4-6 written out here:
//   * every C(m, n) is written to ACC exactly once, at the address
//     c_addr + m * c_stride + n, with the value of the int32 reference
//     (wraparound) plus the old ACC word when accumulate is set;
//   * in exactly the cycle of §6 relative to the issue cycle: WS
//     p + m + R + n, OS d + K + R + C - 2 + (R - 1 - m);
//   * the unit is busy for T = p + M + R + C - 1 (WS) or
//     d + K + 2R + C - 2 (OS) cycles: the next MATMUL issues at T.
module tb_npu_matmul_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
(
    input logic clk
);
  localparam int R = int'(ROWS), C = int'(COLS);
  localparam int SPN = 4096, ACCN = 1024, NINST = 300;
  logic rst = 1'b1, start = 1'b0;
  logic [INSTR_BITS-1:0] start_inst = '0;
  logic [63:0] start_cycles = '0;
  logic [63:0] a_addr[R], b_addr[C], c_wr_addr[C];
  logic [7:0] a_data[R], b_data[C];
  logic [C-1:0] c_wr_en;
  logic [C-1:0] c_wr_accumulate;
  logic overrun;
  logic [31:0] c_wr_data[C];
  npu_matmul_unit dut (.*);
  always_ff @(posedge clk)
    if (overrun) $error("a MATMUL started with every slot of the unit busy");

  logic [7:0] sp[SPN];
  int acc[ACCN];
  for (genvar i = 0; i < R; i++) assign a_data[i] = sp[a_addr[i] % SPN];
  for (genvar j = 0; j < C; j++) assign b_data[j] = sp[b_addr[j] % SPN];

  // The instruction in flight and its expectations.
  int exp_val[int], exp_cyc[int];  // by ACC address
  int issue_cyc = 0, total = 0, n_inst = 0, writes = 0, checks = 0;
  int n_ws = 0, n_reuse = 0, n_os = 0, n_delay = 0, n_accum = 0;
  int wK = 0, wN = 0, wB[R][C];  // the latched WS weights (raw int8)
  logic busy = 1'b0;
  int cyc = -1;

  function automatic int s8(input logic [7:0] b);
    return int'(signed'(b));
  endfunction

  // Builds a random MATMUL, computes its expected writes, returns it.
  task automatic make(output logic [INSTR_BITS-1:0] I, output int T, output int dly);
    int kind, M, K, N, p, mi, mis, mos, ki, kos, koff, aa, ba, bs, ca, cs, azp, bzp, accu;
    int B[12][C];
    I = '0;
    kind = $urandom_range(0, 2);
    if (kind == 1 && wK == 0) kind = 0;  // nothing to reuse yet
    N = kind == 1 ? wN : $urandom_range(1, C);
    K = kind == 1 ? wK : (kind == 0 ? $urandom_range(1, R) : $urandom_range(1, 12));
    M = kind == 2 ? $urandom_range(1, R) : $urandom_range(1, 10);
    p = kind == 0 ? R : 0;
    mi = $urandom_range(1, 3); mis = $urandom_range(1, 40); mos = $urandom_range(1, 200);
    ki = $urandom_range(1, 6); kos = $urandom_range(1, 30); koff = $urandom_range(0, 5);
    aa = $urandom_range(0, 1500); ba = $urandom_range(0, 3000); bs = $urandom_range(N, 20);
    cs = $urandom_range(N, N + 3);  // rows of C never overlap (c_stride >= n)
    ca = $urandom_range(0, ACCN - 1 - M * cs);
    azp = $urandom_range(0, 255) - 128; bzp = $urandom_range(0, 255) - 128;
    accu = $urandom_range(0, 1);
    I[7:0] = 8'(OP_MATMUL);
    I[MATMUL_DATAFLOW_LSB +: MATMUL_DATAFLOW_W] = kind == 2 ? MATMUL_DATAFLOW_W'(DATAFLOW_OS)
                                                           : MATMUL_DATAFLOW_W'(DATAFLOW_WS);
    I[MATMUL_PRELOAD_LSB] = kind == 0;
    I[MATMUL_ACCUMULATE_LSB] = accu[0];
    I[MATMUL_A_ZP_LSB +: MATMUL_A_ZP_W] = MATMUL_A_ZP_W'(azp);
    I[MATMUL_B_ZP_LSB +: MATMUL_B_ZP_W] = MATMUL_B_ZP_W'(bzp);
    I[MATMUL_A_ADDR_LSB +: MATMUL_A_ADDR_W] = MATMUL_A_ADDR_W'(aa);
    I[MATMUL_A_M_INNER_STRIDE_LSB +: MATMUL_A_M_INNER_STRIDE_W] = MATMUL_A_M_INNER_STRIDE_W'(mis);
    I[MATMUL_A_M_OUTER_STRIDE_LSB +: MATMUL_A_M_OUTER_STRIDE_W] = MATMUL_A_M_OUTER_STRIDE_W'(mos);
    I[MATMUL_A_K_OUTER_STRIDE_LSB +: MATMUL_A_K_OUTER_STRIDE_W] = MATMUL_A_K_OUTER_STRIDE_W'(kos);
    I[MATMUL_B_STRIDE_LSB +: MATMUL_B_STRIDE_W] = MATMUL_B_STRIDE_W'(bs);
    I[MATMUL_A_M_INNER_LSB +: MATMUL_A_M_INNER_W] = MATMUL_A_M_INNER_W'(mi);
    I[MATMUL_A_K_INNER_LSB +: MATMUL_A_K_INNER_W] = MATMUL_A_K_INNER_W'(ki);
    I[MATMUL_A_K_OFFSET_LSB +: MATMUL_A_K_OFFSET_W] = MATMUL_A_K_OFFSET_W'(koff);
    I[MATMUL_M_LSB +: MATMUL_M_W] = MATMUL_M_W'(M);
    I[MATMUL_K_LSB +: MATMUL_K_W] = MATMUL_K_W'(K);
    I[MATMUL_N_LSB +: MATMUL_N_W] = MATMUL_N_W'(N);
    I[MATMUL_B_ADDR_LSB +: MATMUL_B_ADDR_W] = MATMUL_B_ADDR_W'(ba);
    I[MATMUL_C_ADDR_LSB +: MATMUL_C_ADDR_W] = MATMUL_C_ADDR_W'(ca);
    I[MATMUL_C_STRIDE_LSB +: MATMUL_C_STRIDE_W] = MATMUL_C_STRIDE_W'(cs);
    // B: raw int8 from SP, or the latched weights for a reuse.
    for (int k = 0; k < K; k++)
      for (int n = 0; n < N; n++) B[k][n] = kind == 1 ? wB[k][n] : s8(sp[ba + k * bs + n]);
    if (kind == 0) begin
      wK = K; wN = N;
      for (int k = 0; k < K; k++) for (int n = 0; n < N; n++) wB[k][n] = B[k][n];
    end
    if (kind == 2) wK = 0;  // OS uses the PE registers: no weights to reuse
    dly = (kind == 2 && $urandom_range(0, 1) == 1) ? K : 0;
    T = kind == 2 ? dly + K + 2 * R + C - 2 : p + M + R + C - 1;
    exp_val.delete();
    exp_cyc.delete();
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) begin
        automatic int s = 0, addr = ca + m * cs + n;
        for (int k = 0; k < K; k++) begin
          automatic int kk = koff + k;
          automatic int a = s8(sp[aa + (m / mi) * mos + (m % mi) * mis + (kk / ki) * kos + kk % ki]);
          s += (a - azp) * (B[k][n] - bzp);
        end
        exp_val[addr] = (accu ? acc[addr] : 0) + s;
        exp_cyc[addr] = kind == 2 ? dly + K + R + C - 2 + (R - 1 - m) : p + m + R + n;
      end
    n_ws += int'(kind == 0); n_reuse += int'(kind == 1); n_os += int'(kind == 2);
    n_delay += int'(dly != 0); n_accum += accu;
  endtask

  initial begin
    for (int i = 0; i < SPN; i++) sp[i] = 8'($urandom());
    for (int i = 0; i < ACCN; i++) acc[i] = $urandom();
  end

  // Issue: the cycle the previous MATMUL's T ends (or a few idle cycles later).
  int next_issue = 2, gap = 0;
  always_ff @(negedge clk) begin
    automatic int t = cyc;
    rst <= t < 0;
    start <= 1'b0;
    if (t >= next_issue && n_inst < NINST) begin
      automatic logic [INSTR_BITS-1:0] I;
      automatic int T, dly, K;
      make(I, T, dly);
      K = int'(I[MATMUL_K_LSB +: MATMUL_K_W]);
      start <= 1'b1;
      start_inst <= I;
      start_cycles <= 64'(I[MATMUL_DATAFLOW_LSB +: MATMUL_DATAFLOW_W] == MATMUL_DATAFLOW_W'(DATAFLOW_OS)
                          ? dly + K + 2 * R + C - 2 : T);
      issue_cyc = t;
      total = T;
      busy = 1'b1;
      gap = $urandom_range(0, 3) == 0 ? $urandom_range(1, 3) : 0;
      next_issue = t + T + gap;
      n_inst++;
    end
  end

  always_ff @(posedge clk) begin
    cyc <= cyc + 1;
    if (cyc >= 0) begin
      for (int j = 0; j < C; j++)
        if (c_wr_en[j]) begin
          automatic int addr = int'(c_wr_addr[j]);
          automatic int rel = cyc - issue_cyc;
          automatic int v = (c_wr_accumulate[j] ? acc[addr] : 0) + int'(c_wr_data[j]);
          if (!busy || !exp_val.exists(addr))
            $error("cycle %0d: unexpected ACC write at %0d (instruction %0d)", cyc, addr, n_inst);
          else begin
            if (rel != exp_cyc[addr])
              $error("instruction %0d: ACC[%0d] written at t = %0d, expected %0d", n_inst, addr,
                     rel, exp_cyc[addr]);
            if (v != exp_val[addr])
              $error("instruction %0d: ACC[%0d] = %0d, expected %0d", n_inst, addr, v,
                     exp_val[addr]);
            exp_val.delete(addr);
            checks++;
          end
          acc[addr] = v;
          writes++;
        end
      if (busy && cyc - issue_cyc == total - 1) begin
        if (exp_val.num() != 0)
          $error("instruction %0d: %0d results not written by its last cycle", n_inst, exp_val.num());
        busy = 1'b0;
        if (n_inst == NINST) begin
          if (n_ws < 50 || n_reuse < 30 || n_os < 50 || n_delay < 20 || n_accum < 100)
            $error("coverage: %0d WS, %0d reuse, %0d OS, %0d delayed, %0d accumulate", n_ws,
                   n_reuse, n_os, n_delay, n_accum);
          $display("tb_npu_matmul_unit: %0d MATMULs (%0d WS preload, %0d WS reuse, %0d OS, %0d with the conflict delay), %0d results checked in value and cycle",
                   n_inst, n_ws, n_reuse, n_os, n_delay, checks);
          $finish;
        end
      end
    end
  end
endmodule
