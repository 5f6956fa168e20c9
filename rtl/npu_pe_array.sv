// The R x C systolic array of PEs (docs/isa.md §6): A enters at the left
// edge (row i already skewed by i cycles by the feeder), B or the weights at
// the top edge (column j skewed by j cycles, its latch too), partial sums /
// drained accumulators leave at the bottom.
// With DOUBLE_BUF the weight-switch bit and the weight zero point enter at
// the left edge beside A and move right with it (npu_pe).
// Ports are flat buses (row/column-major; Yosys 0.23 rejects unpacked
// ports); the inter-PE nets are 1-D unpacked arrays, which keeps Verilator
// from rebuilding one multi-kilobit vector per PE every cycle.
module npu_pe_array #(
    parameter int ROWS = 4,
    parameter int COLS = 4,
    parameter bit DOUBLE_BUF = 1'b0
) (
    input  logic                 clk,
    input  logic                 rst,
    input  logic                 os_mode,
    input  logic [COLS-1:0]      load_w,    // per column: latch weights
    input  logic [8:0]           w_zp,      // WS, !DOUBLE_BUF: weight zero point
    input  logic                 capture,
    input  logic                 shift,
    input  logic [ROWS*9-1:0]    a_left,    // row i: bits [9i +: 9]
    input  logic [ROWS-1:0]      flip_left, // DOUBLE_BUF: row i's switch bit
    input  logic [ROWS*9-1:0]    zp_left,   // DOUBLE_BUF: row i's zero point
    input  logic [COLS*9-1:0]    b_top,     // column j: bits [9j +: 9]
    output logic [COLS*32-1:0]   c_bottom   // column j: bits [32j +: 32]
);
  // a, f, z: ROWS x (COLS+1), b and p: (ROWS+1) x COLS
  logic [8:0] a[ROWS*(COLS+1)];
  logic f[ROWS*(COLS+1)];
  logic [8:0] z[ROWS*(COLS+1)];
  logic [8:0] b[(ROWS+1)*COLS];
  logic [31:0] p[(ROWS+1)*COLS];
  for (genvar i = 0; i < ROWS; i++) begin : g_row
    assign a[i*(COLS+1)] = a_left[i*9 +: 9];
    assign f[i*(COLS+1)] = flip_left[i];
    assign z[i*(COLS+1)] = zp_left[i*9 +: 9];
    for (genvar j = 0; j < COLS; j++) begin : g_col
      npu_pe #(.DOUBLE_BUF(DOUBLE_BUF)) u_pe (
          .clk, .rst, .os_mode, .load_w(load_w[j]), .w_zp, .capture, .shift,
          .a_in(a[i*(COLS+1)+j]), .flip_in(f[i*(COLS+1)+j]), .zp_in(z[i*(COLS+1)+j]),
          .b_in(b[i*COLS+j]), .psum_in(p[i*COLS+j]),
          .a_out(a[i*(COLS+1)+j+1]), .flip_out(f[i*(COLS+1)+j+1]),
          .zp_out(z[i*(COLS+1)+j+1]), .b_out(b[(i+1)*COLS+j]),
          .psum_out(p[(i+1)*COLS+j]));
    end
  end
  for (genvar j = 0; j < COLS; j++) begin : g_edge
    assign b[j] = b_top[j*9 +: 9];
    assign p[j] = '0;
    assign c_bottom[j*32 +: 32] = p[ROWS*COLS+j];
  end
endmodule
