// Scratchpad and accumulator SRAMs (behavioral memories) with the DMA ports,
// and the values of the compute instructions (docs/isa.md §4).
//
// Timing is owned by the controller (npu_controller), which holds each
// compute instruction in its unit for exactly isa::computeCycles and raises
// `exec` in the last cycle of that occupancy; the executors below then
// apply the whole instruction's values at that clock edge, so they are
// visible from the completion cycle on, as in the SystemC model. These
// executors are behavioral-with-exact-timing (see docs/rtl.md); the MATMUL
// values come from the systolic array when USE_ARRAY is set.
module npu_datapath
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
(
    input  logic                  clk,
    input  logic                  rst,
    // compute instruction completing at the end of this cycle
    input  logic                  exec,
    input  logic [INSTR_BITS-1:0] exec_inst,
    // REQUANT on the post-processor completing at the end of this cycle
    input  logic                  pp_exec,
    input  logic [INSTR_BITS-1:0] pp_exec_inst,
    // MATMUL issuing this cycle (streamed through the systolic array)
    input  logic                  mm_start,
    input  logic [INSTR_BITS-1:0] mm_inst,
    input  logic [63:0]           mm_cycles,
    // DMA load data
    input  logic                  dma_wr_valid,
    input  logic                  dma_wr_acc,
    input  logic [63:0]           dma_wr_addr,
    input  logic [31:0]           dma_wr_len,
    input  logic [DRAM_BW*8-1:0]  dma_wr_data,
    // DMA padding of a LOAD
    input  logic                  pad_valid,
    input  logic [INSTR_BITS-1:0] pad_inst,
    // DMA store data (combinational read)
    input  logic                  dma_rd_acc,
    input  logic [63:0]           dma_rd_addr,
    input  logic [31:0]           dma_rd_len,
    output logic [DRAM_BW*8-1:0]  dma_rd_data
);
  // The memories (public: the co-simulation loads and reads them back).
  logic [7:0] sp[SP_BYTES]  /*verilator public_flat_rw*/;
  logic [31:0] acc[ACC_WORDS]  /*verilator public_flat_rw*/;

  function automatic logic [7:0] acc_byte(input logic [63:0] a);
    return acc[a[63:2]][a[1:0]*8 +: 8];
  endfunction

  always_comb begin
    dma_rd_data = '0;
    for (int j = 0; j < DRAM_BW; j++)
      if (32'(j) < dma_rd_len)
        dma_rd_data[j*8 +: 8] = dma_rd_acc ? acc_byte(dma_rd_addr + 64'(j))
                                           : sp[dma_rd_addr + 64'(j)];
  end

  // ---- LOAD padding: every element of the box outside the real region ----
  task automatic do_padding(input logic [INSTR_BITS-1:0] I);
    longint unsigned n0, n1, n2, n3, pt, pl, rows, cols, elem, dst;
    logic isacc;
    logic [31:0] pat;
    n0 = 64'(I[LOAD_N0_LSB +: LOAD_N0_W]);
    n1 = 64'(I[LOAD_N1_LSB +: LOAD_N1_W]);
    n2 = 64'(I[LOAD_N2_LSB +: LOAD_N2_W]);
    n3 = 64'(I[LOAD_N3_LSB +: LOAD_N3_W]);
    pt = 64'(I[LOAD_PAD_TOP_LSB +: LOAD_PAD_TOP_W]);
    pl = 64'(I[LOAD_PAD_LEFT_LSB +: LOAD_PAD_LEFT_W]);
    rows = pt + n2 + 64'(I[LOAD_PAD_BOTTOM_LSB +: LOAD_PAD_BOTTOM_W]);
    cols = pl + n1 + 64'(I[LOAD_PAD_RIGHT_LSB +: LOAD_PAD_RIGHT_W]);
    elem = 64'(I[LOAD_ELEM_BYTES_LSB +: LOAD_ELEM_BYTES_W]);
    isacc = I[LOAD_SRAM_LSB +: LOAD_SRAM_W] == 1'(MEMORY_ACC);
    pat = 32'(signed'(I[LOAD_PAD_VALUE_LSB +: LOAD_PAD_VALUE_W]));
    for (longint unsigned i3 = 0; i3 < n3; i3++)
      for (longint unsigned y = 0; y < rows; y++)
        for (longint unsigned x = 0; x < cols; x++) begin
          if (y >= pt && y < pt + n2 && x >= pl && x < pl + n1) continue;
          dst = 64'(I[LOAD_SRAM_ADDR_LSB +: LOAD_SRAM_ADDR_W]) + i3 * 64'(I[LOAD_T3_LSB +: 32]) +
                y * 64'(I[LOAD_T2_LSB +: 32]) + x * 64'(I[LOAD_T1_LSB +: 32]);
          for (longint unsigned e = 0; e < n0; e++)
            if (isacc) acc[dst + e] = pat;
            else
              for (longint unsigned k = 0; k < elem; k++)
                sp[dst + e * elem + k] = pat[k*8 +: 8];
        end
  endtask

  // ---- MATMUL: the systolic array with its feeders ----
  logic [63:0] mm_a_addr[ROWS], mm_b_addr[COLS], mm_c_addr[COLS];
  logic [7:0] mm_a_data[ROWS], mm_b_data[COLS];
  logic [COLS-1:0] mm_c_en;
  logic mm_c_acc;
  logic [31:0] mm_c_data[COLS];
  for (genvar i = 0; i < ROWS; i++) begin : g_a_port
    assign mm_a_data[i] = sp[mm_a_addr[i]];
  end
  for (genvar j = 0; j < COLS; j++) begin : g_b_port
    assign mm_b_data[j] = sp[mm_b_addr[j]];
  end
  npu_matmul_unit u_matmul (
      .clk, .rst, .start(mm_start), .start_inst(mm_inst), .start_cycles(mm_cycles),
      .a_addr(mm_a_addr), .a_data(mm_a_data), .b_addr(mm_b_addr), .b_data(mm_b_data),
      .c_wr_en(mm_c_en), .c_wr_accumulate(mm_c_acc), .c_wr_addr(mm_c_addr),
      .c_wr_data(mm_c_data));

  // ---- REQUANT (post-processor) ----
  task automatic do_requant(input logic [INSTR_BITS-1:0] I);
    longint unsigned M, N, caddr, oaddr;
    int zp, lo, hi, y;
    logic signed [31:0] v;
    logic [31:0] sc;
    M = 64'(I[REQUANT_M_LSB +: REQUANT_M_W]);
    N = 64'(I[REQUANT_N_LSB +: REQUANT_N_W]);
    zp = int'(signed'(I[REQUANT_ZP_LSB +: REQUANT_ZP_W]));
    lo = int'(signed'(I[REQUANT_LO_LSB +: REQUANT_LO_W]));
    hi = int'(signed'(I[REQUANT_HI_LSB +: REQUANT_HI_W]));
    for (longint unsigned m = 0; m < M; m++) begin
      caddr = 64'(I[REQUANT_C_ADDR_LSB +: REQUANT_C_ADDR_W]) +
              m * 64'(I[REQUANT_C_STRIDE_LSB +: REQUANT_C_STRIDE_W]);
      oaddr = 64'(I[REQUANT_O_ADDR_LSB +: REQUANT_O_ADDR_W]) +
              m * 64'(I[REQUANT_O_STRIDE_LSB +: REQUANT_O_STRIDE_W]);
      for (longint unsigned n = 0; n < N; n++) begin
        v = acc[caddr + n];
        if (I[REQUANT_BIAS_LSB]) v = v + acc[64'(I[REQUANT_BIAS_ADDR_LSB +: REQUANT_BIAS_ADDR_W]) + n];
        sc = acc[64'(I[REQUANT_SCALE_ADDR_LSB +: REQUANT_SCALE_ADDR_W]) +
                 (I[REQUANT_PER_TENSOR_LSB] ? 64'd0 : n)];
        y = npu_postproc_pkg::requantize(v, sc, zp, lo, hi);
        if (I[REQUANT_LUT_LSB])
          sp[oaddr + n] = sp[64'(I[REQUANT_LUT_ADDR_LSB +: REQUANT_LUT_ADDR_W]) + {56'd0, 8'(y + 128)}];
        else sp[oaddr + n] = 8'(y);
      end
    end
  endtask

  // ---- vector unit ----
  function automatic int dom_value(input logic u8, input logic [7:0] b);
    return u8 ? int'({24'd0, b ^ 8'h80}) : int'(signed'(b));
  endfunction
  function automatic int dom_param(input logic u8, input logic [7:0] b);
    return u8 ? int'({24'd0, b}) : int'(signed'(b));
  endfunction

  // Outputs may alias inputs: read everything, then write (isa.md §4).
  logic [7:0] vbuf[];

  task automatic do_vector(input logic [INSTR_BITS-1:0] I);
    logic add, u8, ab, bb;
    longint unsigned n0, n1;
    int av, bv, lo, hi;
    logic [31:0] ra, rb, fx, y;
    add = I[7:0] == OP_VADD;
    u8 = add ? I[VADD_U8_LSB] : I[VMUL_U8_LSB];
    ab = I[VADD_A_BCAST_LSB];
    bb = I[VADD_B_BCAST_LSB];
    n0 = 64'(I[VADD_N0_LSB +: VADD_N0_W]);
    n1 = 64'(I[VADD_N1_LSB +: VADD_N1_W]);
    lo = dom_param(u8, add ? I[VADD_LO_LSB +: 8] : I[VMUL_LO_LSB +: 8]);
    hi = dom_param(u8, add ? I[VADD_HI_LSB +: 8] : I[VMUL_HI_LSB +: 8]);
    ra = I[VADD_RATIO_A_LSB +: 32];
    rb = I[VADD_RATIO_B_LSB +: 32];
    fx = I[VADD_FIXED_LSB +: 32];
    vbuf = new[n0 * n1];
    for (longint unsigned j = 0; j < n1; j++)
      for (longint unsigned i = 0; i < n0; i++) begin
        av = dom_value(u8, sp[64'(I[VADD_A_ADDR_LSB +: 32]) + j * 64'(I[VADD_A_S1_LSB +: 32]) + (ab ? 0 : i)]);
        bv = dom_value(u8, sp[64'(I[VADD_B_ADDR_LSB +: 32]) + j * 64'(I[VADD_B_S1_LSB +: 32]) + (bb ? 0 : i)]);
        y = npu_postproc_pkg::vector_value(
            add, I[VADD_MODE_LSB +: VADD_MODE_W], av, bv, add ? ra : I[VMUL_RATIO_LSB +: 32], rb, fx,
            dom_param(u8, I[VMUL_A_ZP_LSB +: 8]), dom_param(u8, I[VMUL_B_ZP_LSB +: 8]),
            dom_param(u8, I[VMUL_O_ZP_LSB +: 8]));
        vbuf[j*n0+i] = 8'(npu_postproc_pkg::clampi(y, lo, hi)) ^ {u8, 7'd0};
      end
    for (longint unsigned j = 0; j < n1; j++)
      for (longint unsigned i = 0; i < n0; i++)
        sp[64'(I[VADD_O_ADDR_LSB +: 32]) + j * 64'(I[VADD_O_S1_LSB +: 32]) + i] = vbuf[j*n0+i];
  endtask

  task automatic do_pool(input logic [INSTR_BITS-1:0] I);
    longint unsigned oh, ow, ch, kh, kw, y, x, count;
    int lo, hi, ozp, izp, mx, v, yv, mode;
    logic u8;
    logic [31:0] sum, facc, sc, osc, div;
    oh = 64'(I[POOL_OH_LSB +: POOL_OH_W]);
    ow = 64'(I[POOL_OW_LSB +: POOL_OW_W]);
    ch = 64'(I[POOL_CH_LSB +: POOL_CH_W]);
    kh = 64'(I[POOL_KH_LSB +: POOL_KH_W]);
    kw = 64'(I[POOL_KW_LSB +: POOL_KW_W]);
    u8 = I[POOL_U8_LSB];
    mode = int'(I[POOL_MODE_LSB +: POOL_MODE_W]);
    lo = dom_param(u8, I[POOL_LO_LSB +: 8]);
    hi = dom_param(u8, I[POOL_HI_LSB +: 8]);
    ozp = dom_param(u8, I[POOL_OUT_ZP_LSB +: 8]);
    izp = dom_param(u8, I[POOL_IN_ZP_LSB +: 8]);
    sc = I[POOL_SCALE_LSB +: 32];
    osc = I[POOL_OUT_SCALE_LSB +: 32];
    vbuf = new[oh * ow * ch];
    for (longint unsigned oy = 0; oy < oh; oy++)
      for (longint unsigned ox = 0; ox < ow; ox++)
        for (longint unsigned c = 0; c < ch; c++) begin
          mx = -2147483647 - 1;
          sum = I[POOL_BIAS_LSB +: 32];
          facc = 32'd0;
          count = 0;
          for (longint unsigned ky = 0; ky < kh; ky++) begin
            y = oy * 64'(I[POOL_SH_LSB +: POOL_SH_W]) + ky;
            if (y < 64'(I[POOL_VALID_Y0_LSB +: 16]) || y >= 64'(I[POOL_VALID_Y1_LSB +: 16])) continue;
            for (longint unsigned kx = 0; kx < kw; kx++) begin
              x = ox * 64'(I[POOL_SW_LSB +: POOL_SW_W]) + kx;
              if (x < 64'(I[POOL_VALID_X0_LSB +: 16]) || x >= 64'(I[POOL_VALID_X1_LSB +: 16])) continue;
              v = dom_value(u8, sp[64'(I[POOL_IN_ADDR_LSB +: 32]) + y * 64'(I[POOL_IN_ROW_STRIDE_LSB +: 32]) +
                                   x * 64'(I[POOL_IN_PIX_STRIDE_LSB +: POOL_IN_PIX_STRIDE_W]) + c]);
              if (v > mx) mx = v;
              sum = sum + v;
              facc = npu_postproc_pkg::pool_step(facc, sc, v, izp);
              count = count + 1;
            end
          end
          if (mode == POOLMODE_MAX) yv = count != 0 ? mx : (u8 ? 0 : -128);
          else if (mode == POOLMODE_AVG_INT) yv = npu_postproc_pkg::requantize(sum, sc, ozp, lo, hi);
          else begin
            div = npu_fp32_itof_pkg::itof(I[POOL_COUNT_INCLUDE_PAD_LSB] ? 32'(kh * kw) : 32'(count));
            yv = npu_postproc_pkg::clampi(npu_postproc_pkg::pool_avg(facc, div, osc, ozp), lo, hi);
          end
          vbuf[(oy*ow+ox)*ch+c] = 8'(yv) ^ {u8, 7'd0};
        end
    for (longint unsigned oy = 0; oy < oh; oy++)
      for (longint unsigned ox = 0; ox < ow; ox++)
        for (longint unsigned c = 0; c < ch; c++)
          sp[64'(I[POOL_OUT_ADDR_LSB +: 32]) + oy * 64'(I[POOL_OUT_ROW_STRIDE_LSB +: 32]) +
             ox * 64'(I[POOL_OUT_PIX_STRIDE_LSB +: POOL_OUT_PIX_STRIDE_W]) + c] = vbuf[(oy*ow+ox)*ch+c];
  endtask

  task automatic do_dwconv(input logic [INSTR_BITS-1:0] I);
    longint unsigned oh, ow, ch, kh, kw, y, x, o;
    int izp, wzp;
    logic [31:0] s;
    oh = 64'(I[DWCONV_OH_LSB +: DWCONV_OH_W]);
    ow = 64'(I[DWCONV_OW_LSB +: DWCONV_OW_W]);
    ch = 64'(I[DWCONV_CH_LSB +: DWCONV_CH_W]);
    kh = 64'(I[DWCONV_KH_LSB +: DWCONV_KH_W]);
    kw = 64'(I[DWCONV_KW_LSB +: DWCONV_KW_W]);
    izp = int'(signed'(I[DWCONV_IN_ZP_LSB +: 8]));
    wzp = int'(signed'(I[DWCONV_W_ZP_LSB +: 8]));
    for (longint unsigned oy = 0; oy < oh; oy++)
      for (longint unsigned ox = 0; ox < ow; ox++)
        for (longint unsigned c = 0; c < ch; c++) begin
          o = 64'(I[DWCONV_C_ADDR_LSB +: 32]) + oy * 64'(I[DWCONV_C_ROW_STRIDE_LSB +: 32]) +
              ox * 64'(I[DWCONV_C_PIX_STRIDE_LSB +: 32]) + c;
          s = I[DWCONV_ACCUMULATE_LSB] ? acc[o] : 32'd0;
          for (longint unsigned ky = 0; ky < kh; ky++)
            for (longint unsigned kx = 0; kx < kw; kx++) begin
              y = oy * 64'(I[DWCONV_SH_LSB +: 8]) + ky * 64'(I[DWCONV_DH_LSB +: 8]);
              x = ox * 64'(I[DWCONV_SW_LSB +: 8]) + kx * 64'(I[DWCONV_DW_LSB +: 8]);
              s = s + (int'(signed'(sp[64'(I[DWCONV_IN_ADDR_LSB +: 32]) + y * 64'(I[DWCONV_IN_ROW_STRIDE_LSB +: 32]) +
                                      x * 64'(I[DWCONV_IN_PIX_STRIDE_LSB +: 32]) + c])) - izp) *
                      (int'(signed'(sp[64'(I[DWCONV_W_ADDR_LSB +: 32]) + (ky * kw + kx) * ch + c])) - wzp);
            end
          acc[o] = s;
        end
  endtask

  // Blocking writes: DMA data, then the instruction's values, in one block
  // (the memories have a single writer process).
  /* verilator lint_off BLKSEQ */
  always_ff @(posedge clk) begin
    if (!rst) begin
      if (dma_wr_valid)
        for (int j = 0; j < DRAM_BW; j++)
          if (32'(j) < dma_wr_len) begin
            if (dma_wr_acc)
              acc[(dma_wr_addr + 64'(j)) >> 2][((dma_wr_addr[1:0] + 2'(j)) * 8) +: 8] = dma_wr_data[j*8 +: 8];
            else sp[dma_wr_addr + 64'(j)] = dma_wr_data[j*8 +: 8];
          end
      if (pad_valid) do_padding(pad_inst);
      for (int j = 0; j < COLS; j++)
        if (mm_c_en[j]) acc[mm_c_addr[j]] = (mm_c_acc ? acc[mm_c_addr[j]] : 32'd0) + mm_c_data[j];
      if (pp_exec) do_requant(pp_exec_inst);
      if (exec)
        case (exec_inst[7:0])
          OP_REQUANT: do_requant(exec_inst);
          OP_VADD, OP_VMUL: do_vector(exec_inst);
          OP_POOL: do_pool(exec_inst);
          OP_DWCONV: do_dwconv(exec_inst);
          default: ;
        endcase
    end
  end
  /* verilator lint_on BLKSEQ */
endmodule
