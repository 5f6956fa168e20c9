// Cycle counts of the compute instructions (docs/isa.md §6): the occupancy
// of the unit, from the instruction's fields. Whether the operands of an OS
// MATMUL or a VADD/VMUL/VBINARY share a scratchpad bank is the instruction's
// bank_conflict flag, which the verifier checks against the footprints
// (isa::setBankConflictFlag), so no bank sets are computed at issue.
package npu_timing_pkg;
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;

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
        return I[MATMUL_BANK_CONFLICT_LSB] ? c + K : c;
      end
      OP_REQUANT:
        return 64'(I[REQUANT_M_LSB +: REQUANT_M_W]) *
               ceil_lanes(64'(I[REQUANT_N_LSB +: REQUANT_N_W])) + PIPE_DEPTH;
      OP_VADD, OP_VMUL, OP_VBINARY: begin
        beats = ceil_lanes(64'(I[VADD_N0_LSB +: VADD_N0_W]) * 64'(I[VADD_N1_LSB +: VADD_N1_W]));
        // VADD, VMUL and VBINARY share the positions of n0, n1 and
        // bank_conflict.
        return (I[VADD_BANK_CONFLICT_LSB] ? 2 * beats : beats) + PIPE_DEPTH;
      end
      // Two dependent SP reads per beat: A, then the table entry.
      OP_VLUT:
        return 2 * ceil_lanes(64'(I[VLUT_N0_LSB +: VLUT_N0_W]) * 64'(I[VLUT_N1_LSB +: VLUT_N1_W])) +
               PIPE_DEPTH;
      // Lanes take rows; per group of LANES rows the maximum (n0), the sum
      // (n0 + 1) and the outputs (n0 + 1).
      OP_VSOFTMAX:
        return ceil_lanes(64'(I[VSOFTMAX_N1_LSB +: VSOFTMAX_N1_W])) *
               (3 * 64'(I[VSOFTMAX_N0_LSB +: VSOFTMAX_N0_W]) + 2) + PIPE_DEPTH;
      // Lanes take rows; per group of LANES rows the sums (n0), the row
      // statistics (isa::kLayerNormStatCycles = 6) and the outputs (n0).
      OP_VLAYERNORM:
        return ceil_lanes(64'(I[VLAYERNORM_N1_LSB +: VLAYERNORM_N1_W])) *
               (2 * 64'(I[VLAYERNORM_N0_LSB +: VLAYERNORM_N0_W]) + 6) + PIPE_DEPTH;
      // Lanes take rows; per group of LANES rows one add per element (n0)
      // and the finish (isa::kReduceFinishCycles = 4).
      OP_VREDUCE:
        return ceil_lanes(64'(I[VREDUCE_N1_LSB +: VREDUCE_N1_W])) *
               (64'(I[VREDUCE_N0_LSB +: VREDUCE_N0_W]) + 4) + PIPE_DEPTH;
      OP_POOL:
        return 64'(I[POOL_OH_LSB +: POOL_OH_W]) * 64'(I[POOL_OW_LSB +: POOL_OW_W]) *
               64'(I[POOL_KH_LSB +: POOL_KH_W]) * 64'(I[POOL_KW_LSB +: POOL_KW_W]) *
               ceil_lanes(64'(I[POOL_CH_LSB +: POOL_CH_W])) + PIPE_DEPTH;
      // DW_TAPS taps of a kernel row per beat.
      OP_DWCONV:
        return 64'(I[DWCONV_OH_LSB +: DWCONV_OH_W]) * 64'(I[DWCONV_OW_LSB +: DWCONV_OW_W]) *
               64'(I[DWCONV_KH_LSB +: DWCONV_KH_W]) *
               ((64'(I[DWCONV_KW_LSB +: DWCONV_KW_W]) + DW_TAPS - 1) / DW_TAPS) *
               ceil_lanes(64'(I[DWCONV_CH_LSB +: DWCONV_CH_W])) + PIPE_DEPTH;
      default: return 1;  // FENCE
    endcase
  endfunction
endpackage
