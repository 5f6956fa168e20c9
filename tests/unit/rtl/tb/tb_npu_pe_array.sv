// Self-checking testbench of npu_pe_array (driven by tb_main.cpp's clock):
// a WS tile (preload R cycles per column, skewed columns and A rows) and an OS tile (skewed A rows
// and B columns, capture at the last MAC, R-cycle drain), with random
// operands; every result must leave the bottom edge in exactly the cycle
// docs/isa.md §6 gives: WS C(m,n) visible at p + m + R + n (written to ACC
// that cycle), OS row i at K + R + C - 2 + (R - 1 - i).
module tb_npu_pe_array (
    input logic clk
);
  localparam int R = 4, C = 3, M = 6, K = 7;
  logic rst = 1'b1, os_mode = 1'b0, capture = 1'b0, shift = 1'b0;
  logic [8:0] w_zp = 9'd0;
  logic [C-1:0] load_w = '0;
  logic [R*9-1:0] a_left = '0;
  // One weight register (DOUBLE_BUF = 0): no switch bits, zero points.
  logic [R-1:0] flip_left = '0;
  logic [R*9-1:0] zp_left = '0;
  logic [C*9-1:0] b_top = '0;
  logic [C*32-1:0] c_bottom;
  npu_pe_array #(.ROWS(R), .COLS(C)) dut (.*);

  int cyc = -2, checks = 0, phase = 0;
  logic signed [8:0] A[M][K], B[K][C];
  int Cws[M][C], Cos[R][C];

  initial begin
    for (int m = 0; m < M; m++)
      for (int k = 0; k < K; k++) A[m][k] = 9'($urandom_range(0, 510)) - 9'sd255;
    for (int k = 0; k < K; k++)
      for (int n = 0; n < C; n++) B[k][n] = 9'($urandom_range(0, 510)) - 9'sd255;
    for (int m = 0; m < M; m++)
      for (int n = 0; n < C; n++) begin
        Cws[m][n] = 0;
        for (int k = 0; k < R; k++) Cws[m][n] += int'(A[m][k]) * int'(B[k][n]);
      end
    for (int i = 0; i < R; i++)
      for (int n = 0; n < C; n++) begin
        Cos[i][n] = 0;
        for (int k = 0; k < K; k++) Cos[i][n] += int'(A[i][k]) * int'(B[k][n]);
      end
  end

  // Drive the inputs of cycle `t` of the current phase (applied before the
  // clock edge that ends cycle t).
  always_ff @(negedge clk) begin
    automatic int t = cyc + 1;
    rst <= t < 0;
    a_left <= '0;
    b_top <= '0;
    load_w <= '0;
    capture <= 1'b0;
    shift <= 1'b0;
    if (phase == 0) begin  // WS, K = R, N = C, preload p = R
      os_mode <= 1'b0;
      // Column n's weights enter n cycles late and latch at R-1+n.
      for (int n = 0; n < C; n++) begin
        if (t - n >= 0 && t - n < R) b_top[n*9 +: 9] <= B[R-1-(t-n)][n];
        if (t == R - 1 + n) load_w[n] <= 1'b1;
      end
      for (int k = 0; k < R; k++)
        if (t - R - k >= 0 && t - R - k < M) a_left[k*9 +: 9] <= A[t-R-k][k];
    end else begin  // OS, M = R, N = C, K
      os_mode <= 1'b1;
      for (int i = 0; i < R; i++)
        if (t - i >= 0 && t - i < K) a_left[i*9 +: 9] <= A[i][t-i];
      for (int j = 0; j < C; j++)
        if (t - j >= 0 && t - j < K) b_top[j*9 +: 9] <= B[t-j][j];
      capture <= t == K + R + C - 3;
      shift <= t >= K + R + C - 2;
    end
  end

  // At a rising edge the outputs still show the cycle that ends: cyc + 1.
  always_ff @(posedge clk) begin
    automatic int now = cyc + 1;
    cyc <= cyc + 1;
    if (phase == 0 && now >= 0) begin
      for (int m = 0; m < M; m++)
        for (int n = 0; n < C; n++)
          if (now == R + m + R + n) begin
            if ($signed(c_bottom[n*32 +: 32]) != Cws[m][n])
              $fatal(1, "WS C(%0d,%0d) at cycle %0d: %0d, expected %0d", m, n, now,
                     $signed(c_bottom[n*32 +: 32]), Cws[m][n]);
            checks = checks + 1;
          end
      if (now == R + M + R + C - 2) begin  // the last cycle of T = p + M + R + C - 1
        phase <= 1;
        cyc <= -1;
      end
    end
    if (phase == 1 && now >= 0) begin
      for (int i = 0; i < R; i++)
        if (now == K + R + C - 2 + (R - 1 - i))
          for (int n = 0; n < C; n++)
            if ($signed(c_bottom[n*32 +: 32]) != Cos[i][n])
              $fatal(1, "OS C(%0d,%0d) at cycle %0d: %0d, expected %0d", i, n, now,
                     $signed(c_bottom[n*32 +: 32]), Cos[i][n]);
      if (now == K + 2 * R + C - 3) begin  // the last cycle of T = K + 2R + C - 2
        $display("tb_npu_pe_array: PASS (%0d WS results at their cycles, %0d OS rows)",
                 checks, R);
        $finish;
      end
    end
  end
endmodule
