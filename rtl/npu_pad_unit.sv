// The padding writer of the DMA (docs/isa.md §4 LOAD, §6 timing). A LOAD's
// box is (pad_top + n2 + pad_bottom) rows x (pad_left + n1 + pad_right)
// columns of n0-element runs per i3 plane; the runs outside the real
// n2 x n1 region are padding, filled with pad_value sign-extended to the
// element. From the grant on, this unit writes one chunk of bytes_per_cycle
// bytes of one padding run per cycle (a run of len bytes takes
// ceil(len / bytes_per_cycle) cycles), beside the data beats: the verifier
// makes padded boxes injective, so the two never write the same address.
// It visits padding runs only: inside the real rows it jumps over the real
// columns, and over the real rows when they have no side padding, so the
// walk takes exactly isa::dmaTiming's padCycles.
//
// Like the data walker, the first write goes out in the grant cycle (the
// registered walk state is bypassed by the grant).
module npu_pad_unit
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
(
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,       // a LOAD or STORE is granted
    input  logic [INSTR_BITS-1:0] start_inst,
    output logic                  busy,        // writing padding in this cycle
    output logic                  last,        // ... its walk's last chunk
    output logic                  active,      // a walk started earlier is not done
    // SRAM write: `len` bytes at byte address `addr` (ACC: 4 * word address)
    output logic                  we,
    output logic                  wr_acc,
    output logic [63:0]           addr,
    output logic [31:0]           len,
    output logic [DRAM_BW*8-1:0]  data
);
  localparam longint BW = DRAM_BW;

  // Only the LOAD fields are used; the rest of the word is other opcodes'.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic padded(input logic [INSTR_BITS-1:0] I);
    return I[7:0] == OP_LOAD &&
           (I[LOAD_PAD_TOP_LSB +: LOAD_PAD_TOP_W] != 0 ||
            I[LOAD_PAD_BOTTOM_LSB +: LOAD_PAD_BOTTOM_W] != 0 ||
            I[LOAD_PAD_LEFT_LSB +: LOAD_PAD_LEFT_W] != 0 ||
            I[LOAD_PAD_RIGHT_LSB +: LOAD_PAD_RIGHT_W] != 0);
  endfunction

  wire go = start && padded(start_inst);
  logic [INSTR_BITS-1:0] I_q;
  logic busy_q;
  logic [63:0] i3_q, y_q, x_q, off_q, left_q;
  wire [INSTR_BITS-1:0] I = go ? start_inst : I_q;
  /* verilator lint_on UNUSEDSIGNAL */

  wire [63:0] n0 = 64'(I[LOAD_N0_LSB +: LOAD_N0_W]);
  wire [63:0] n1 = 64'(I[LOAD_N1_LSB +: LOAD_N1_W]);
  wire [63:0] n2 = 64'(I[LOAD_N2_LSB +: LOAD_N2_W]);
  wire [63:0] n3 = 64'(I[LOAD_N3_LSB +: LOAD_N3_W]);
  wire [63:0] pt = 64'(I[LOAD_PAD_TOP_LSB +: LOAD_PAD_TOP_W]);
  wire [63:0] pl = 64'(I[LOAD_PAD_LEFT_LSB +: LOAD_PAD_LEFT_W]);
  wire [63:0] pr = 64'(I[LOAD_PAD_RIGHT_LSB +: LOAD_PAD_RIGHT_W]);
  wire [63:0] rows = pt + n2 + 64'(I[LOAD_PAD_BOTTOM_LSB +: LOAD_PAD_BOTTOM_W]);
  wire [63:0] cols = pl + n1 + pr;
  wire [63:0] elem = 64'(I[LOAD_ELEM_BYTES_LSB +: LOAD_ELEM_BYTES_W]);
  wire [63:0] run_len = n0 * elem;
  wire acc = I[LOAD_SRAM_LSB +: LOAD_SRAM_W] == 1'(MEMORY_ACC);
  wire [31:0] pat = 32'(signed'(I[LOAD_PAD_VALUE_LSB +: LOAD_PAD_VALUE_W]));

  function automatic logic real_row(input logic [63:0] y);
    return y >= pt && y < pt + n2;
  endfunction
  // The first padding run at or after the start of row y of a plane:
  // {row, column, whether the plane still has one}.
  function automatic logic [128:0] row_first(input logic [63:0] y);
    if (y >= rows) return {1'b0, 64'd0, 64'd0};
    if (!real_row(y) || pl != 0) return {1'b1, y, 64'd0};
    if (pr != 0) return {1'b1, y, n1};
    return {pt + n2 < rows, pt + n2, 64'd0};  // no side padding: skip them
  endfunction

  // Always valid when the box is padded (some row of a plane has padding).
  /* verilator lint_off UNUSEDSIGNAL */
  wire [128:0] plane_first = row_first(64'd0);
  /* verilator lint_on UNUSEDSIGNAL */
  wire [63:0] i3 = go ? 64'd0 : i3_q;
  wire [63:0] y = go ? plane_first[127:64] : y_q;
  wire [63:0] x = go ? plane_first[63:0] : x_q;
  wire [63:0] off = go ? 64'd0 : off_q;
  // Padding runs left, this one included: n3 x (rows x cols - n2 x n1).
  wire [63:0] left = go ? n3 * (rows * cols - n2 * n1) : left_q;

  assign busy = busy_q || go;
  wire chunk_last = off + BW >= run_len;
  assign last = busy && chunk_last && left == 64'd1;
  assign active = busy_q;

  // The next padding run after (y, x) in the plane, or the next plane's first.
  wire [63:0] x_inc = x + 1;
  wire [63:0] x_next = real_row(y) && x_inc == pl ? pl + n1 : x_inc;
  wire [128:0] next_row = row_first(y + 1);

  wire [63:0] unit = 64'(I[LOAD_SRAM_ADDR_LSB +: LOAD_SRAM_ADDR_W]) +
                     i3 * 64'(I[LOAD_T3_LSB +: LOAD_T3_W]) +
                     y * 64'(I[LOAD_T2_LSB +: LOAD_T2_W]) +
                     x * 64'(I[LOAD_T1_LSB +: LOAD_T1_W]);
  assign we = busy;
  assign wr_acc = acc;
  assign addr = (acc ? unit << 2 : unit) + off;
  assign len = 32'(chunk_last ? run_len - off : BW);
  // Byte j of the chunk is byte (off + j) mod elem of the element pattern.
  always_comb
    for (int j = 0; j < int'(DRAM_BW); j++)
      data[j*8 +: 8] = pat[8 * int'((off + 64'(j)) & (elem - 1)) +: 8];

  always_ff @(posedge clk) begin
    if (rst) begin
      busy_q <= 1'b0;
    end else if (busy) begin
      if (go) I_q <= start_inst;
      busy_q <= !last;
      left_q <= left;
      i3_q <= i3;
      y_q <= y;
      x_q <= x;
      off_q <= off + BW;
      if (chunk_last) begin
        off_q <= '0;
        left_q <= left - 1;
        if (x_next < cols) x_q <= x_next;
        else if (next_row[128]) begin
          y_q <= next_row[127:64];
          x_q <= next_row[63:0];
        end else begin
          i3_q <= i3 + 1;
          y_q <= plane_first[127:64];
          x_q <= plane_first[63:0];
        end
      end
    end
  end
endmodule
