// The R x C systolic array of PEs (docs/isa.md §6): A enters at the left
// edge (row i already skewed by i cycles by the feeder), B or the weights at
// the top edge, partial sums / drained accumulators leave at the bottom.
// Ports are flat buses (row/column-major; Yosys 0.23 rejects unpacked
// ports); the inter-PE nets are 1-D unpacked arrays, which keeps Verilator
// from rebuilding one multi-kilobit vector per PE every cycle.
module npu_pe_array #(
    parameter int ROWS = 4,
    parameter int COLS = 4
) (
    input  logic                 clk,
    input  logic                 rst,
    input  logic                 os_mode,
    input  logic [ROWS-1:0]      load_w,    // per row: latch weights
    input  logic [8:0]           w_zp,      // WS: weight zero point
    input  logic                 capture,
    input  logic                 shift,
    input  logic [ROWS*9-1:0]    a_left,    // row i: bits [9i +: 9]
    input  logic [COLS*9-1:0]    b_top,     // column j: bits [9j +: 9]
    output logic [COLS*32-1:0]   c_bottom   // column j: bits [32j +: 32]
);
  // a: ROWS x (COLS+1), b and p: (ROWS+1) x COLS
  logic [8:0] a[ROWS*(COLS+1)];
  logic [8:0] b[(ROWS+1)*COLS];
  logic [31:0] p[(ROWS+1)*COLS];
  for (genvar i = 0; i < ROWS; i++) begin : g_row
    assign a[i*(COLS+1)] = a_left[i*9 +: 9];
    for (genvar j = 0; j < COLS; j++) begin : g_col
      npu_pe u_pe (
          .clk, .rst, .os_mode, .load_w(load_w[i]), .w_zp, .capture, .shift,
          .a_in(a[i*(COLS+1)+j]), .b_in(b[i*COLS+j]), .psum_in(p[i*COLS+j]),
          .a_out(a[i*(COLS+1)+j+1]), .b_out(b[(i+1)*COLS+j]),
          .psum_out(p[(i+1)*COLS+j]));
    end
  end
  for (genvar j = 0; j < COLS; j++) begin : g_edge
    assign b[j] = b_top[j*9 +: 9];
    assign p[j] = '0;
    assign c_bottom[j*32 +: 32] = p[ROWS*COLS+j];
  end
endmodule
