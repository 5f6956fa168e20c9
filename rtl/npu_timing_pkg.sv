// Cycle counts of the compute instructions (docs/isa.md §6), including the
// scratchpad bank-conflict rule of OS MATMUL and VADD/VMUL, which is defined
// on the exact bank sets of the two operands' footprints (isa/lib/Timing.cpp
// BankSet). Behavioral: the set computation loops over rows/runs; it sets
// the occupancy of the unit, the datapath computes the values.
package npu_timing_pkg;
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;

  localparam longint BANK_BYTES = SP_BYTES / SP_BANKS;
  typedef logic [SP_BANKS-1:0] bankset_t;

  function automatic bankset_t mark_range(input bankset_t s, input longint unsigned a,
                                          input longint unsigned len);
    longint unsigned b0, b1;
    if (len == 0) return s;
    b0 = a / BANK_BYTES;
    b1 = (a + len - 1) / BANK_BYTES;
    for (int k = 0; k < int'(SP_BANKS); k++)
      if (64'(k) >= b0 && 64'(k) <= b1) s[k] = 1'b1;
    return s;
  endfunction

  // {base + i*stride + j : i < n, j < run}
  function automatic bankset_t mark_progression(input bankset_t s,
      input longint unsigned base, input longint unsigned run,
      input longint unsigned n, input longint unsigned stride);
    longint unsigned a;
    if (n == 0 || run == 0 || &s) return s;
    if (stride <= run || stride - run < BANK_BYTES)
      return mark_range(s, base, (n - 1) * stride + run);
    for (longint unsigned i = 0; i < n && !(&s); i++) begin
      a = base + i * stride;
      if (a >= SP_BYTES) return mark_range(s, a, run);
      s = mark_range(s, a, run);
    end
    return s;
  endfunction

  function automatic logic matmul_bank_conflict(input logic [INSTR_BITS-1:0] I);
    longint unsigned M, K, N, mi, ki, kos, off, q0, r0, first_len, rest, rows, row;
    bankset_t a, b;
    M = 64'(I[MATMUL_M_LSB +: MATMUL_M_W]);
    K = 64'(I[MATMUL_K_LSB +: MATMUL_K_W]);
    N = 64'(I[MATMUL_N_LSB +: MATMUL_N_W]);
    mi = 64'(I[MATMUL_A_M_INNER_LSB +: MATMUL_A_M_INNER_W]);
    ki = 64'(I[MATMUL_A_K_INNER_LSB +: MATMUL_A_K_INNER_W]);
    if (M == 0 || K == 0 || N == 0 || mi == 0 || ki == 0) return 1'b0;
    a = '0;
    b = '0;
    kos = 64'(I[MATMUL_A_K_OUTER_STRIDE_LSB +: MATMUL_A_K_OUTER_STRIDE_W]);
    off = 64'(I[MATMUL_A_K_OFFSET_LSB +: MATMUL_A_K_OFFSET_W]);
    q0 = off / ki;
    r0 = off % ki;
    first_len = (ki - r0 < K) ? ki - r0 : K;
    rest = K - first_len;
    rows = M < 65536 ? M : 65536;
    for (longint unsigned m = 0; m < rows && !(&a); m++) begin
      row = 64'(I[MATMUL_A_ADDR_LSB +: MATMUL_A_ADDR_W]) +
            (m / mi) * 64'(I[MATMUL_A_M_OUTER_STRIDE_LSB +: MATMUL_A_M_OUTER_STRIDE_W]) +
            (m % mi) * 64'(I[MATMUL_A_M_INNER_STRIDE_LSB +: MATMUL_A_M_INNER_STRIDE_W]);
      a = mark_range(a, row + q0 * kos + r0, first_len);
      a = mark_progression(a, row + (q0 + 1) * kos, ki, rest / ki, kos);
      a = mark_range(a, row + (q0 + 1 + rest / ki) * kos, rest % ki);
    end
    b = mark_progression(b, 64'(I[MATMUL_B_ADDR_LSB +: MATMUL_B_ADDR_W]), N, K,
                         64'(I[MATMUL_B_STRIDE_LSB +: MATMUL_B_STRIDE_W]));
    return (a & b) != 0;
  endfunction

  // VADD and VMUL share field positions for the operand addressing.
  function automatic logic vector_bank_conflict(input logic [INSTR_BITS-1:0] I);
    bankset_t a, b;
    longint unsigned n0, n1;
    n0 = 64'(I[VADD_N0_LSB +: VADD_N0_W]);
    n1 = 64'(I[VADD_N1_LSB +: VADD_N1_W]);
    a = mark_progression('0, 64'(I[VADD_A_ADDR_LSB +: VADD_A_ADDR_W]),
                         I[VADD_A_BCAST_LSB] ? 1 : n0, n1, 64'(I[VADD_A_S1_LSB +: VADD_A_S1_W]));
    b = mark_progression('0, 64'(I[VADD_B_ADDR_LSB +: VADD_B_ADDR_W]),
                         I[VADD_B_BCAST_LSB] ? 1 : n0, n1, 64'(I[VADD_B_S1_LSB +: VADD_B_S1_W]));
    return (a & b) != 0;
  endfunction

  function automatic longint unsigned ceil_lanes(input longint unsigned x);
    return (x + LANES - 1) / LANES;
  endfunction

  // isa::computeCycles for the compute-queue opcodes and FENCE.
  function automatic longint unsigned compute_cycles(input logic [INSTR_BITS-1:0] I);
    longint unsigned c, K, beats;
    case (I[7:0])
      OP_MATMUL: begin
        if (I[MATMUL_DATAFLOW_LSB +: MATMUL_DATAFLOW_W] == 1'(DATAFLOW_WS)) begin
          c = 64'(I[MATMUL_M_LSB +: MATMUL_M_W]) + ROWS + COLS - 1;
          return I[MATMUL_PRELOAD_LSB] ? c + ROWS : c;
        end
        K = 64'(I[MATMUL_K_LSB +: MATMUL_K_W]);
        c = K + 2 * ROWS + COLS - 2;
        return matmul_bank_conflict(I) ? c + K : c;
      end
      OP_REQUANT:
        return 64'(I[REQUANT_M_LSB +: REQUANT_M_W]) *
               ceil_lanes(64'(I[REQUANT_N_LSB +: REQUANT_N_W])) + PIPE_DEPTH;
      OP_VADD, OP_VMUL: begin
        beats = ceil_lanes(64'(I[VADD_N0_LSB +: VADD_N0_W]) * 64'(I[VADD_N1_LSB +: VADD_N1_W]));
        return (vector_bank_conflict(I) ? 2 * beats : beats) + PIPE_DEPTH;
      end
      OP_POOL:
        return 64'(I[POOL_OH_LSB +: POOL_OH_W]) * 64'(I[POOL_OW_LSB +: POOL_OW_W]) *
               64'(I[POOL_KH_LSB +: POOL_KH_W]) * 64'(I[POOL_KW_LSB +: POOL_KW_W]) *
               ceil_lanes(64'(I[POOL_CH_LSB +: POOL_CH_W])) + PIPE_DEPTH;
      OP_DWCONV:
        return 64'(I[DWCONV_OH_LSB +: DWCONV_OH_W]) * 64'(I[DWCONV_OW_LSB +: DWCONV_OW_W]) *
               64'(I[DWCONV_KH_LSB +: DWCONV_KH_W]) * 64'(I[DWCONV_KW_LSB +: DWCONV_KW_W]) *
               ceil_lanes(64'(I[DWCONV_CH_LSB +: DWCONV_CH_W])) + PIPE_DEPTH;
      default: return 1;  // FENCE
    endcase
  endfunction
endpackage
