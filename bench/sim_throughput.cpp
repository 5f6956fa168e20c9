//===- sim_throughput.cpp - Simulated cycles per wall second, both backends
//===//
//
// Builds the instruction stream of a ResNet-50-sized 3x3 convolution
// (56x56x64 -> 56x56x64, pad 1) on the default 32x32 preset the way a
// double-buffered compiler would emit it (implicit-im2col WS matmuls in K
// chunks of 32, bias preload, requant, store), repeats it to approach
// ResNet-50's 4.1 GMACs, and times the functional and cycle-accurate
// backends. Usage: sim-throughput [PRESET.json] [repeats]
//
//===----------------------------------------------------------------------===//
#include "systole/ISA/HwConfig.h"
#include "systole/Simulator/Simulator.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

using namespace systole;
using isa::Instruction;
using isa::Opcode;
using F = isa::Field;

namespace {
Instruction deps(Instruction I, bool popPrev, bool popNext, bool pushPrev,
                 bool pushNext) {
  isa::Deps d;
  d.popPrev = popPrev;
  d.popNext = popNext;
  d.pushPrev = pushPrev;
  d.pushNext = pushNext;
  I.setDeps(d);
  return I;
}

struct Layout {
  // Layer: H = W = 56, Cin = Cout = 64, 3x3, stride 1, pad 1; tiles of 4
  // output rows (M = 224 rows of the implicit im2col matrix).
  static constexpr uint64_t H = 56, W = 56, Cin = 64, Cout = 64, Kh = 3, Kw = 3;
  static constexpr uint64_t TileRows = 4, Wt = W + 2, Ht = TileRows + 2;
  static constexpr uint64_t M = TileRows * W, K = Kh * Kw * Cin;
  // SP: weights, two input tiles, two output tiles. ACC: two C regions, scales.
  static constexpr uint64_t SpWeights = 0, SpIn = 65536,
                            SpInBytes = Ht * Wt * Cin;
  static constexpr uint64_t SpOut = 131072, SpOutBytes = M * Cout;
  static constexpr uint64_t AccC = 0, AccCWords = M * Cout, AccScales = 60000;
  // DRAM: padded input image, weights, bias, scales, output.
  static constexpr uint64_t DIn = 0, DInBytes = (H + 2) * Wt * Cin;
  static constexpr uint64_t DWeights = DInBytes, DBias = DWeights + K * Cout;
  static constexpr uint64_t DScales = DBias + 4 * Cout,
                            DOut = DScales + 4 * Cout;
  static constexpr uint64_t DSize = DOut + H * W * Cout;
};

std::vector<Instruction> convStream(const isa::HwConfig &cfg,
                                    unsigned repeats) {
  using L = Layout;
  const uint64_t R = cfg.array.rows, C = cfg.array.cols;
  std::vector<Instruction> s;
  Instruction wl(Opcode::Load);
  wl.with(F::Load_elem_bytes, 1)
      .with(F::Load_dram_addr, L::DWeights)
      .with(F::Load_sram_addr, L::SpWeights)
      .with(F::Load_n0, L::K * L::Cout)
      .with(F::Load_n1, 1)
      .with(F::Load_n2, 1)
      .with(F::Load_n3, 1);
  s.push_back(wl);
  Instruction sl(Opcode::Load);
  sl.with(F::Load_sram, isa::Memory_acc)
      .with(F::Load_elem_bytes, 4)
      .with(F::Load_dram_addr, L::DScales)
      .with(F::Load_sram_addr, L::AccScales)
      .with(F::Load_n0, L::Cout)
      .with(F::Load_n1, 1)
      .with(F::Load_n2, 1)
      .with(F::Load_n3, 1);
  s.push_back(sl);
  const uint64_t tilesPerLayer = L::H / L::TileRows;
  const uint64_t T = tilesPerLayer * repeats;
  for (uint64_t t = 0; t < T; ++t) {
    uint64_t b = t % 2, row0 = (t % tilesPerLayer) * L::TileRows;
    // Input tile: Ht rows of the padded image.
    Instruction in(Opcode::Load);
    in.with(F::Load_elem_bytes, 1)
        .with(F::Load_dram_addr, L::DIn + row0 * L::Wt * L::Cin)
        .with(F::Load_sram_addr, L::SpIn + b * L::SpInBytes)
        .with(F::Load_n0, L::Wt * L::Cin)
        .with(F::Load_n1, L::Ht)
        .with(F::Load_n2, 1)
        .with(F::Load_n3, 1)
        .with(F::Load_s1, L::Wt * L::Cin)
        .with(F::Load_t1, L::Wt * L::Cin);
    s.push_back(deps(in, false, t >= 2, false, false));
    // Bias row broadcast into the M rows of this tile's C region.
    Instruction bias(Opcode::Load);
    bias.with(F::Load_sram, isa::Memory_acc)
        .with(F::Load_elem_bytes, 4)
        .with(F::Load_dram_addr, L::DBias)
        .with(F::Load_sram_addr, L::AccC + b * L::AccCWords)
        .with(F::Load_n0, L::Cout)
        .with(F::Load_n1, L::M)
        .with(F::Load_n2, 1)
        .with(F::Load_n3, 1)
        .with(F::Load_s1, 0)
        .with(F::Load_t1, L::Cout);
    s.push_back(deps(bias, false, false, false, true));
    bool first = true;
    for (uint64_t n0 = 0; n0 < L::Cout; n0 += C) {
      for (uint64_t k0 = 0; k0 < L::K; k0 += R) {
        Instruction mm(Opcode::Matmul);
        mm.with(F::Matmul_dataflow, isa::Dataflow_ws)
            .with(F::Matmul_preload, 1)
            .with(F::Matmul_accumulate, 1)
            .with(F::Matmul_a_zp, -3)
            .with(F::Matmul_b_zp, 0)
            .with(F::Matmul_a_addr, L::SpIn + b * L::SpInBytes)
            .with(F::Matmul_a_m_inner, L::W)
            .with(F::Matmul_a_m_inner_stride, L::Cin)
            .with(F::Matmul_a_m_outer_stride, L::Wt * L::Cin)
            .with(F::Matmul_a_k_inner, L::Kw * L::Cin)
            .with(F::Matmul_a_k_outer_stride, L::Wt * L::Cin)
            .with(F::Matmul_a_k_offset, k0)
            .with(F::Matmul_m, L::M)
            .with(F::Matmul_k, std::min(R, L::K - k0))
            .with(F::Matmul_n, std::min(C, L::Cout - n0))
            .with(F::Matmul_b_addr, L::SpWeights + k0 * L::Cout + n0)
            .with(F::Matmul_b_stride, L::Cout)
            .with(F::Matmul_c_addr, L::AccC + b * L::AccCWords + n0)
            .with(F::Matmul_c_stride, L::Cout);
        s.push_back(deps(mm, first, first && t >= 2, false, false));
        first = false;
      }
      Instruction rq(Opcode::Requant);
      rq.with(F::Requant_zp, -128)
          .with(F::Requant_lo, -128)
          .with(F::Requant_hi, 127)
          .with(F::Requant_c_addr, L::AccC + b * L::AccCWords + n0)
          .with(F::Requant_c_stride, L::Cout)
          .with(F::Requant_scale_addr, L::AccScales + n0)
          .with(F::Requant_o_addr, L::SpOut + b * L::SpOutBytes + n0)
          .with(F::Requant_o_stride, L::Cout)
          .with(F::Requant_m, L::M)
          .with(F::Requant_n, std::min(C, L::Cout - n0));
      bool last = n0 + C >= L::Cout;
      s.push_back(deps(rq, false, false, last && t + 2 < T, last));
    }
    Instruction st(Opcode::Store);
    st.with(F::Store_elem_bytes, 1)
        .with(F::Store_sram_addr, L::SpOut + b * L::SpOutBytes)
        .with(F::Store_dram_addr, L::DOut + row0 * L::W * L::Cout)
        .with(F::Store_n0, L::SpOutBytes)
        .with(F::Store_n1, 1)
        .with(F::Store_n2, 1)
        .with(F::Store_n3, 1);
    s.push_back(deps(st, true, false, t + 2 < T, false));
  }
  s.push_back(Instruction(Opcode::End));
  return s;
}
// Instruction-bound stream: 64-byte load -> 8x8x8 OS matmul + requant ->
// 64-byte store, token-chained, `groups` times. Measures the per-instruction
// overhead of each backend rather than the MAC rate.
std::vector<Instruction> smallStream(uint64_t groups) {
  std::vector<Instruction> s;
  for (uint64_t g = 0; g < groups; ++g) {
    uint64_t b = g % 2;
    Instruction l(Opcode::Load);
    l.with(F::Load_elem_bytes, 1)
        .with(F::Load_dram_addr, (g % 64) * 64)
        .with(F::Load_sram_addr, b * 4096)
        .with(F::Load_n0, 64)
        .with(F::Load_n1, 1)
        .with(F::Load_n2, 1)
        .with(F::Load_n3, 1);
    s.push_back(deps(l, false, g >= 2, false, true));
    Instruction mm(Opcode::Matmul);
    mm.with(F::Matmul_dataflow, isa::Dataflow_os)
        .with(F::Matmul_m, 8)
        .with(F::Matmul_k, 8)
        .with(F::Matmul_n, 8)
        .with(F::Matmul_a_m_inner, 8)
        .with(F::Matmul_a_m_inner_stride, 8)
        .with(F::Matmul_a_k_inner, 8)
        .with(F::Matmul_a_addr, b * 4096)
        .with(F::Matmul_b_addr, 65536)
        .with(F::Matmul_b_stride, 8)
        .with(F::Matmul_c_addr, b * 64)
        .with(F::Matmul_c_stride, 8);
    s.push_back(deps(mm, true, g >= 2, false, false));
    Instruction rq(Opcode::Requant);
    rq.with(F::Requant_per_tensor, 1)
        .with(F::Requant_lo, -128)
        .with(F::Requant_hi, 127)
        .with(F::Requant_c_addr, b * 64)
        .with(F::Requant_c_stride, 8)
        .with(F::Requant_scale_addr, 60000)
        .with(F::Requant_o_addr, 131072 + b * 64)
        .with(F::Requant_o_stride, 8)
        .with(F::Requant_m, 8)
        .with(F::Requant_n, 8);
    s.push_back(deps(rq, false, false, g + 2 < groups, true));
    Instruction st(Opcode::Store);
    st.with(F::Store_elem_bytes, 1)
        .with(F::Store_sram_addr, 131072 + b * 64)
        .with(F::Store_dram_addr, 8192 + (g % 64) * 64)
        .with(F::Store_n0, 64)
        .with(F::Store_n1, 1)
        .with(F::Store_n2, 1)
        .with(F::Store_n3, 1);
    s.push_back(deps(st, true, false, g + 2 < groups, false));
  }
  s.push_back(Instruction(Opcode::End));
  return s;
}
} // namespace

int main(int argc, char **argv) {
  std::string presetPath = argc > 1 ? argv[1] : SYSTOLE_BENCH_PRESET;
  unsigned repeats = argc > 2 ? unsigned(std::atoi(argv[2])) : 35;
  auto cfg = isa::loadHwConfigFile(presetPath);
  if (!cfg) {
    std::fprintf(stderr, "sim-throughput: %s\n",
                 llvm::toString(cfg.takeError()).c_str());
    return 1;
  }
  std::vector<Instruction> stream = convStream(*cfg, repeats);
  sim::MachineState init = sim::MachineState::create(*cfg, Layout::DSize);
  std::mt19937 rng(1);
  for (auto &v : init.dram)
    v = uint8_t(rng());
  for (uint64_t c = 0; c < Layout::Cout; ++c) {
    float s = 1.0f / 4096.0f;
    std::memcpy(&init.dram[Layout::DScales + 4 * c], &s, 4);
  }
  std::printf("stream: %zu instructions, 3x3 conv 56x56x64->64 x %u on %s "
              "(%llux%llu)\n",
              stream.size(), repeats, cfg->name.c_str(),
              (unsigned long long)cfg->array.rows,
              (unsigned long long)cfg->array.cols);
  std::vector<uint8_t> results[2];
  for (sim::BackendKind b :
       {sim::BackendKind::Functional, sim::BackendKind::Cycle}) {
    sim::MachineState st = init;
    auto t0 = std::chrono::steady_clock::now();
    sim::RunResult r = sim::runSegment(b, stream, *cfg, st);
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    if (r.fault) {
      std::fprintf(stderr, "%s\n", r.fault->message().c_str());
      return 1;
    }
    double macs = double(r.stats.actions.macs);
    std::printf(
        "%-10s wall %7.3f s  instructions %llu (%.0f/s)  MACs %.3g (%.3g/s)",
        sim::backendName(b), wall,
        (unsigned long long)r.stats.instructionsRetired,
        r.stats.instructionsRetired / wall, macs, macs / wall);
    if (b == sim::BackendKind::Cycle)
      std::printf("  cycles %llu (%.3g cycles/s)  utilization %.1f%%",
                  (unsigned long long)r.stats.totalCycles,
                  r.stats.totalCycles / wall,
                  100.0 * r.stats.macUtilization(*cfg));
    std::printf("\n           -> ResNet-50 (4.1 GMAC) at this rate: %.1f s\n",
                4.1e9 / (macs / wall));
    results[int(b)] = std::move(st.dram);
  }
  std::printf("backends agree on DRAM: %s\n",
              results[0] == results[1] ? "yes" : "NO");
  bool agree = results[0] == results[1];

  std::vector<Instruction> small = smallStream(100000);
  std::printf("\nstream: %zu small instructions (64-byte DMAs, 8x8x8 matmuls, "
              "requants)\n",
              small.size());
  for (sim::BackendKind b :
       {sim::BackendKind::Functional, sim::BackendKind::Cycle}) {
    sim::MachineState st = init;
    auto t0 = std::chrono::steady_clock::now();
    sim::RunResult r = sim::runSegment(b, small, *cfg, st);
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    if (r.fault) {
      std::fprintf(stderr, "%s\n", r.fault->message().c_str());
      return 1;
    }
    std::printf("%-10s wall %7.3f s  %.3g instructions/s", sim::backendName(b),
                wall, r.stats.instructionsRetired / wall);
    if (b == sim::BackendKind::Cycle)
      std::printf("  cycles %llu (%.3g cycles/s)",
                  (unsigned long long)r.stats.totalCycles,
                  r.stats.totalCycles / wall);
    std::printf("\n");
  }
  return agree ? 0 : 1;
}
