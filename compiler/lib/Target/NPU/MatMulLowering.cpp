//===- MatMulLowering.cpp - Fully connected layers on the array -----------===//
//
// lhs [..., M, K] x constant rhs [K, N]. Output-stationary when an M tile
// fits the array rows (one MATMUL streams the whole K, no K chunking); weight
// stationary otherwise. Items are (M tile, N tile); the lhs tile is loaded
// once per M tile.
//
//===----------------------------------------------------------------------===//
#include "LayerLowering.h"

using namespace mlir;

namespace systole::npu {

/// Bytes between two batches' weights in the constant pool (each tiled
/// matrix is padded to the pool's 64-byte alignment).
static int64_t weightStride(int64_t k, int64_t n) {
  return (k * n + 63) / 64 * 64;
}

std::vector<TilePlan> matmulCandidates(graph::MatMulOp op,
                                       const isa::HwConfig &hw) {
  auto rhs = cast<ShapedType>(op.getRhs().getType());
  auto lhs = cast<ShapedType>(op.getLhs().getType());
  int64_t n = rhs.getShape().back();
  int64_t batches = rhs.getNumElements() / (n * lhs.getShape().back());
  int64_t m = lhs.getNumElements() / lhs.getShape().back() / batches;
  int64_t nt = std::min<int64_t>(hw.array.cols, n);
  std::vector<TilePlan> plans;
  if (hw.array.os)
    plans.push_back(
        {{"os", 1}, {"rows", std::min<int64_t>(m, hw.array.rows)}, {"n", nt}});
  if (hw.array.ws)
    for (const TilePlan &r : rowCandidates(m))
      plans.push_back({{"os", 0}, {"rows", r.at("rows")}, {"n", nt}});
  return plans;
}

llvm::Expected<std::vector<Item>> lowerMatMul(graph::MatMulOp op,
                                              const TilePlan &plan,
                                              const LayerIO &io,
                                              ProgramBuilder &b) {
  const isa::HwConfig &hw = b.hw;
  auto lhsType = cast<ShapedType>(op.getLhs().getType());
  auto rhsType = cast<ShapedType>(op.getRhs().getType());
  // A batched constant rhs [..., K, N] is one weight matrix per batch entry;
  // the lhs rows of batch b are the b-th block of M / batches rows.
  int64_t K = lhsType.getShape().back();
  int64_t N = rhsType.getShape().back();
  int64_t batches = rhsType.getNumElements() / (K * N);
  int64_t M = lhsType.getNumElements() / K / batches;
  bool os = plan.at("os");
  int64_t rows = plan.at("rows"), ntMax = plan.at("n");
  int64_t R = hw.array.rows;
  if (K > 0xffff || N > 0xffff || rows > 0xffff)
    return loweringError(op, "matrix dimensions exceed the DMA field widths");
  if (os && rows > R)
    return loweringError(op, "output-stationary tile taller than the array");

  SramAllocator sp(hw.sram.scratchpadBytes, hw.scratchpadBankBytes(),
                   io.spMirrored);
  SramAllocator acc(hw.accumulatorWords(),
                    hw.accumulatorWords() /
                        std::max<uint64_t>(1, hw.sram.accumulatorBanks));
  std::optional<uint64_t> aSlot[2], wSlot[2], outSlot[2], accSlot[2],
      scaleSlot[2], biasSlot[2];
  for (int s = 0; s < 2; ++s)
    aSlot[s] = sp.allocate(rows * K);
  for (int s = 0; s < 2; ++s)
    wSlot[s] = sp.allocate(K * ntMax);
  for (int s = 0; s < 2; ++s)
    outSlot[s] = sp.allocate(rows * ntMax);
  for (int s = 0; s < 2; ++s) {
    accSlot[s] = acc.allocate(rows * ntMax);
    scaleSlot[s] = acc.allocate(ntMax);
    biasSlot[s] = acc.allocate(ntMax);
  }
  for (int s = 0; s < 2; ++s)
    if (!aSlot[s] || !wSlot[s] || !outSlot[s] || !accSlot[s] || !scaleSlot[s] ||
        !biasSlot[s])
      return loweringError(
          op, "SRAM cannot hold this tiling (scratchpad needs " +
                  llvm::Twine(2 * (rows * K + K * ntMax + rows * ntMax)) +
                  " bytes, accumulator " + llvm::Twine(8 * (rows + 1) * ntMax) +
                  " bytes)");

  QParams x = perTensorParams(op.getLhs().getType());
  Epilogue epi = epilogueOf(op);
  int64_t wZp = uniformZeroPoint(op.getRhs().getType());
  uint64_t wAddr = 0, biasAddr = 0, scaleAddr = 0;
  if (io.materializeConstants) {
    std::vector<char> all = constantInt8(op.getRhs());
    for (int64_t bi = 0; bi < batches; ++bi) {
      std::vector<char> tiled = tileColumns(
          llvm::ArrayRef<char>(all).slice(bi * K * N, K * N), K, N, ntMax);
      uint64_t at = b.constantBase + b.addConstant(tiled.data(), tiled.size());
      if (bi == 0)
        wAddr = at;
      else if (at != wAddr + bi * weightStride(K, N))
        return loweringError(op, "internal error: batched weights not "
                                 "contiguous in the constant pool");
    }
    std::tie(biasAddr, scaleAddr) = materializeEpilogueConstants(
        b, op.getBias(), op.getRhs().getType(), x.scale, epi.y.scale, N);
  }

  std::vector<Item> items;
  int64_t mTiles = (M + rows - 1) / rows, nTiles = (N + ntMax - 1) / ntMax;
  for (int64_t bi = 0; bi < batches; ++bi)
    for (int64_t i = 0; i < mTiles; ++i) {
      int64_t m0 = i * rows, mt = std::min(rows, M - m0);
      for (int64_t j = 0; j < nTiles; ++j) {
        size_t slot = items.size() % 2;
        int64_t c0 = j * ntMax, nt = std::min(ntMax, N - c0);
        uint64_t aBase = *aSlot[(bi * mTiles + i) % 2];
        Item it;
        if (j == 0) {
          DmaBox a;
          a.dram = io.inputs[0] + (bi * M + m0) * K, a.sram = aBase;
          a.n[0] = K, a.n[1] = mt, a.s[1] = K, a.t[1] = K;
          a.flipSign = x.isUnsigned;
          it.loads.push_back(makeLoad(a));
        }
        for (const DmaBox &wb :
             contiguousBoxes(wAddr + bi * weightStride(K, N) +
                                 columnTileOffset(K, ntMax, j),
                             *wSlot[slot], K * nt))
          it.loads.push_back(makeLoad(wb));
        AccTile tile{*accSlot[slot],
                     *scaleSlot[slot],
                     *biasSlot[slot],
                     *outSlot[slot],
                     mt,
                     nt};
        appendEpilogueLoads(it, tile, epi, biasAddr + 4 * c0,
                            scaleAddr + 4 * c0);

        auto matmul = [&](int64_t k0, int64_t kc) {
          Instruction mm(Opcode::Matmul);
          mm.set(Field::Matmul_dataflow,
                 os ? isa::Dataflow_os : isa::Dataflow_ws);
          mm.set(Field::Matmul_preload, os ? 0 : 1);
          mm.set(Field::Matmul_accumulate, k0 > 0);
          mm.set(Field::Matmul_a_zp, x.zeroPoint);
          mm.set(Field::Matmul_b_zp, wZp);
          mm.set(Field::Matmul_a_addr, aBase);
          mm.set(Field::Matmul_a_m_inner, mt);
          mm.set(Field::Matmul_a_m_inner_stride, K);
          mm.set(Field::Matmul_a_m_outer_stride, 0);
          mm.set(Field::Matmul_a_k_inner, K);
          mm.set(Field::Matmul_a_k_outer_stride, 0);
          mm.set(Field::Matmul_a_k_offset, k0);
          mm.set(Field::Matmul_m, mt);
          mm.set(Field::Matmul_k, kc);
          mm.set(Field::Matmul_n, nt);
          mm.set(Field::Matmul_b_addr, *wSlot[slot] + k0 * nt);
          mm.set(Field::Matmul_b_stride, nt);
          mm.set(Field::Matmul_c_addr, *accSlot[slot]);
          mm.set(Field::Matmul_c_stride, nt);
          it.computes.push_back(mm);
        };
        if (os)
          matmul(0, K);
        else
          for (int64_t k0 = 0; k0 < K; k0 += R)
            matmul(k0, std::min(R, K - k0));

        appendEpilogue(it, tile, epi, io.output, (bi * M + m0) * N + c0, N);
        items.push_back(std::move(it));
      }
    }
  return items;
}

} // namespace systole::npu
