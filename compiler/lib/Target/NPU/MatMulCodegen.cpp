//===- MatMulCodegen.cpp - Fully connected layers on the array ------------===//
//
// lhs [..., M, K] x rhs [..., K, N]. Output-stationary when an M tile fits
// the array rows (one MATMUL streams the whole K, no K chunking); weight
// stationary otherwise. Items are (M tile, N tile); the lhs tile is loaded
// once per M tile. A constant rhs (weights) is tiled by columns into the
// constant pool at compile time; an activation rhs (attention's K^T and V,
// issue 16) is read in place, each item's [k, n] block by a strided DMA.
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"

using namespace mlir;

namespace systole::npu {

/// Bytes between two batches' weights in the constant pool (each tiled
/// matrix is padded to the pool's 64-byte alignment).
static int64_t weightStride(int64_t k, int64_t n) {
  return (k * n + 63) / 64 * 64;
}

std::vector<TilePlan> matmulCandidates(graph::MatMulOp op,
                                       const isa::HwConfig &hw, bool kSplit) {
  auto rhs = cast<ShapedType>(op.getRhs().getType());
  auto lhs = cast<ShapedType>(op.getLhs().getType());
  int64_t n = rhs.getShape().back();
  int64_t batches = rhs.getNumElements() / (n * lhs.getShape().back());
  int64_t m = lhs.getNumElements() / lhs.getShape().back() / batches;
  int64_t nt = std::min<int64_t>(hw.array.cols, n);
  // Items of one to four array widths of columns: a wider item's output
  // rows are longer DRAM runs (a 32-byte run of a 384-byte row costs a
  // whole 64-byte burst), at the price of fewer rows per accumulator tile.
  std::vector<int64_t> widths;
  for (int64_t w = nt;; w *= 2) {
    widths.push_back(std::min(w, n));
    if (w >= n || w >= 4 * nt)
      break;
  }
  // WS tiles of fewer rows than the array's stream fewer rows per weight
  // preload; they are tried only when nothing taller fits (the K-split
  // fallback), which keeps the search short for big layers (each plan is
  // priced item by item).
  int64_t minRows = kSplit ? 1 : std::min<int64_t>(m, hw.array.rows);
  std::vector<TilePlan> rowPlans;
  for (const TilePlan &p : rowCandidates(m))
    if (*p.rows >= minRows)
      rowPlans.push_back(p);
  std::vector<TilePlan> plans;
  for (int64_t width : widths) {
    if (hw.array.os) {
      TilePlan p;
      p.os = 1, p.rows = std::min<int64_t>(m, hw.array.rows), p.n = width;
      plans.push_back(p);
    }
    if (hw.array.ws)
      for (TilePlan p : rowPlans) {
        p.os = 0, p.n = width;
        plans.push_back(p);
      }
  }
  if (!kSplit) {
    // When all M rows of the lhs cannot stay in the scratchpad beside two
    // weight tiles (ViT's MLP down-projection, K = 3072), unsplit tiles hold
    // few rows and every M tile reads all the weights again. Weights in K
    // chunks leave room for taller lhs bands that stay for all column tiles
    // (resident = 1): fewer weight passes.
    int64_t k = lhs.getShape().back();
    // (With room for the output slots and the allocator's bank rounding.)
    bool tallBandsFit =
        2 * (m * k + k * nt + m * nt) + 8 * int64_t(hw.scratchpadBankBytes()) <=
        int64_t(hw.sram.scratchpadBytes);
    if (hw.array.ws && !tallBandsFit) {
      std::vector<int64_t> chunks = kChunkCandidates(k, hw.array.rows);
      for (size_t c = 0; c < std::min<size_t>(2, chunks.size()); ++c)
        for (TilePlan p : rowPlans) {
          p.os = 0, p.n = nt, p.k = chunks[c], p.resident = 1;
          plans.push_back(p);
        }
    }
    return plans;
  }
  // K split: the same plans with K chunks of a multiple of the array rows
  // (a WS MATMUL's K chunk), halving down to one chunk of R rows.
  std::vector<TilePlan> split;
  for (int64_t kc : kChunkCandidates(lhs.getShape().back(), hw.array.rows))
    for (TilePlan p : plans) {
      p.k = kc;
      split.push_back(p);
    }
  return split;
}

std::vector<int64_t> kChunkCandidates(int64_t k, int64_t r) {
  std::vector<int64_t> chunks;
  // A chunk is a multiple of R smaller than K: none when K <= R (the loop
  // below would double `parts` until it overflowed and divided by zero;
  // fuzz-models pending/matmul-small-accumulator-os-sigfpe, K = 1).
  if (k <= r)
    return chunks;
  for (int64_t parts = 2; parts <= k; parts *= 2) {
    int64_t kc = std::max(r, ((k + parts - 1) / parts + r - 1) / r * r);
    if (kc >= k)
      continue;
    if (chunks.empty() || kc < chunks.back())
      chunks.push_back(kc);
    if (kc == r)
      break;
  }
  return chunks;
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
  bool os = plan.os.value();
  int64_t rows = plan.rows.value(), ntMax = plan.n.value();
  // K chunk of an item (plan "k"): without a split an item holds its whole
  // lhs rows and weight columns; with one, an output tile is a group of
  // items that accumulate their chunks into one accumulator tile.
  int64_t kc = plan.k.has_value() ? std::min(plan.k.value(), K) : K;
  int64_t kChunks = (K + kc - 1) / kc;
  // Resident lhs band: an M tile's lhs rows (all of K) stay in the
  // scratchpad for all its column tiles; the first column tile's items
  // bring them chunk by chunk, so the band's loads overlap its first
  // MATMULs. Unsplit tiles always keep their band.
  bool bandStays = kChunks == 1 || plan.resident.value_or(0) == 1;
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
      scaleSlot[2], biasSlot[2], lutSlot[2];
  int64_t lutBytes = fusedTable(op) ? 256 : 0;
  int64_t aBytes = rows * (bandStays ? K : kc);
  for (int s = 0; s < 2; ++s)
    aSlot[s] = sp.allocate(aBytes);
  for (int s = 0; s < 2; ++s)
    wSlot[s] = sp.allocate(kc * ntMax);
  for (int s = 0; s < 2; ++s)
    outSlot[s] = sp.allocate(rows * ntMax);
  for (int s = 0; s < 2; ++s)
    lutSlot[s] = lutBytes ? sp.allocate(lutBytes) : std::optional<uint64_t>(0);
  for (int s = 0; s < 2; ++s) {
    accSlot[s] = acc.allocate(rows * ntMax);
    scaleSlot[s] = acc.allocate(ntMax);
    biasSlot[s] = acc.allocate(ntMax);
  }
  for (int s = 0; s < 2; ++s)
    if (!aSlot[s] || !wSlot[s] || !outSlot[s] || !lutSlot[s] || !accSlot[s] ||
        !scaleSlot[s] || !biasSlot[s])
      return loweringError(
          op,
          "SRAM cannot hold this tiling (scratchpad needs " +
              llvm::Twine(2 * (aBytes + kc * ntMax + rows * ntMax + lutBytes)) +
              " bytes, accumulator " + llvm::Twine(8 * (rows + 2) * ntMax) +
              " bytes)");

  QParams x = perTensorParams(op.getLhs().getType());
  Epilogue epi = epilogueOf(op);
  int64_t wZp = uniformZeroPoint(op.getRhs().getType());
  bool rhsActivation = io.inputs.size() > 1;
  bool rhsUnsigned =
      rhsActivation && perTensorParams(op.getRhs().getType()).isUnsigned;
  uint64_t wAddr = 0, biasAddr = 0, scaleAddr = 0;
  if (io.materializeConstants)
    materializeTable(b, epi);
  if (io.materializeConstants && rhsActivation)
    std::tie(biasAddr, scaleAddr) = materializeEpilogueConstants(
        b, op.getBias(), op.getRhs().getType(), x.scale, epi.y.scale, N);
  else if (io.materializeConstants) {
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
  int64_t groups = 0; // output tiles so far: they alternate ACC/out slots
  for (int64_t bi = 0; bi < batches; ++bi)
    for (int64_t i = 0; i < mTiles; ++i) {
      int64_t m0 = i * rows, mt = std::min(rows, M - m0);
      for (int64_t j = 0; j < nTiles; ++j, ++groups) {
        size_t oslot = groups % 2;
        int64_t c0 = j * ntMax, nt = std::min(ntMax, N - c0);
        AccTile tile{*accSlot[oslot],
                     *scaleSlot[oslot],
                     *biasSlot[oslot],
                     *outSlot[oslot],
                     mt,
                     nt,
                     *lutSlot[oslot]};
        for (int64_t q = 0; q < kChunks; ++q) {
          size_t slot = items.size() % 2;
          int64_t k0 = q * kc, kw = std::min(kc, K - k0);
          // A band that stays serves all column tiles of an M tile, the
          // first bringing it; otherwise every item brings its own chunk.
          // A band's chunks are packed one after the other (chunk-major), so
          // a chunk being loaded and one being multiplied are disjoint
          // ranges of the scratchpad.
          uint64_t aBase = bandStays
                               ? *aSlot[(bi * mTiles + i) % 2] + q * rows * kc
                               : *aSlot[slot];
          int64_t aPitch = kChunks == 1 ? K : kw;
          Item it;
          if (!bandStays || j == 0) {
            DmaBox a;
            a.dram = io.inputs[0] + (bi * M + m0) * K + k0, a.sram = aBase;
            a.n[0] = kw, a.n[1] = mt, a.s[1] = K, a.t[1] = kw;
            a.flipSign = x.isUnsigned;
            it.loads.push_back(makeLoad(a));
          }
          if (rhsActivation) {
            // Rows [k0, k0 + kw) of columns [c0, c0 + nt), packed to the
            // MATMUL's b_stride of nt.
            DmaBox w;
            w.dram = io.inputs[1] + (bi * K + k0) * N + c0,
            w.sram = *wSlot[slot];
            w.n[0] = nt, w.n[1] = kw, w.s[1] = N, w.t[1] = nt;
            w.flipSign = rhsUnsigned;
            it.loads.push_back(makeLoad(w));
          } else {
            for (const DmaBox &wb :
                 contiguousBoxes(wAddr + bi * weightStride(K, N) +
                                     columnTileOffset(K, ntMax, j) + k0 * nt,
                                 *wSlot[slot], kw * nt))
              it.loads.push_back(makeLoad(wb));
          }
          if (q == 0)
            appendEpilogueLoads(it, tile, epi, biasAddr + 4 * c0,
                                scaleAddr + 4 * c0);

          // MATMULs over columns [kk, kk + kn) of this item's chunk, one
          // per array width of the item's columns; the first of the output
          // tile overwrites the accumulator.
          auto matmulColumns = [&](int64_t kk, int64_t kn, int64_t c,
                                   int64_t cn) {
            Instruction mm(Opcode::Matmul);
            mm.set(Field::Matmul_dataflow,
                   os ? isa::Dataflow_os : isa::Dataflow_ws);
            mm.set(Field::Matmul_preload, os ? 0 : 1);
            mm.set(Field::Matmul_accumulate, k0 + kk > 0);
            mm.set(Field::Matmul_a_zp, x.zeroPoint);
            mm.set(Field::Matmul_b_zp, wZp);
            mm.set(Field::Matmul_a_addr, aBase);
            mm.set(Field::Matmul_a_m_inner, mt);
            mm.set(Field::Matmul_a_m_inner_stride, aPitch);
            mm.set(Field::Matmul_a_m_outer_stride, 0);
            mm.set(Field::Matmul_a_k_inner, aPitch);
            mm.set(Field::Matmul_a_k_outer_stride, 0);
            mm.set(Field::Matmul_a_k_offset, kk);
            mm.set(Field::Matmul_m, mt);
            mm.set(Field::Matmul_k, kn);
            mm.set(Field::Matmul_n, cn);
            mm.set(Field::Matmul_b_addr, *wSlot[slot] + kk * nt + c);
            mm.set(Field::Matmul_b_stride, nt);
            mm.set(Field::Matmul_c_addr, tile.acc + c);
            mm.set(Field::Matmul_c_stride, nt);
            it.computes.push_back(mm);
          };
          auto matmul = [&](int64_t kk, int64_t kn) {
            for (int64_t c = 0; c < nt; c += hw.array.cols)
              matmulColumns(kk, kn, c,
                            std::min<int64_t>(hw.array.cols, nt - c));
          };
          if (os)
            matmul(0, kw);
          else
            for (int64_t kk = 0; kk < kw; kk += R)
              matmul(kk, std::min(R, kw - kk));

          if (q + 1 == kChunks)
            appendEpilogue(it, tile, epi, io.output, (bi * M + m0) * N + c0, N);
          items.push_back(std::move(it));
        }
      }
    }
  return items;
}

} // namespace systole::npu
