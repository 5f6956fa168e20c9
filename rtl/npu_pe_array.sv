// The R x C systolic array of PEs (docs/isa.md §6): A enters at the left
// edge (row i already skewed by i cycles by the feeder), B or the weights at
// the top edge, partial sums / drained accumulators leave at the bottom.
// Ports and inter-PE wires are flat buses (row/column-major) so the module
// synthesizes with Yosys (tools/rtl/synth_pe_array.sh).
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
  logic [ROWS*(COLS+1)*9-1:0] a;
  logic [(ROWS+1)*COLS*9-1:0] b;
  logic [(ROWS+1)*COLS*32-1:0] p;
  for (genvar i = 0; i < ROWS; i++) begin : g_row
    assign a[(i*(COLS+1))*9 +: 9] = a_left[i*9 +: 9];
    for (genvar j = 0; j < COLS; j++) begin : g_col
      npu_pe u_pe (
          .clk, .rst, .os_mode, .load_w(load_w[i]), .w_zp, .capture, .shift,
          .a_in(a[(i*(COLS+1)+j)*9 +: 9]), .b_in(b[(i*COLS+j)*9 +: 9]),
          .psum_in(p[(i*COLS+j)*32 +: 32]),
          .a_out(a[(i*(COLS+1)+j+1)*9 +: 9]), .b_out(b[((i+1)*COLS+j)*9 +: 9]),
          .psum_out(p[((i+1)*COLS+j)*32 +: 32]));
    end
  end
  for (genvar j = 0; j < COLS; j++) begin : g_edge
    assign b[j*9 +: 9] = b_top[j*9 +: 9];
    assign p[j*32 +: 32] = '0;
    assign c_bottom[j*32 +: 32] = p[(ROWS*COLS+j)*32 +: 32];
  end
endmodule
