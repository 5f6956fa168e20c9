//===- SimTestUtil.h - Shared helpers of the simulator tests ----*- C++ -*-===//
#ifndef SYSTOLE_TESTS_SIMULATOR_SIMTESTUTIL_H
#define SYSTOLE_TESTS_SIMULATOR_SIMTESTUTIL_H

#include "systole/ISA/HwConfig.h"
#include "systole/Simulator/Simulator.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>
#include <vector>

namespace systole::sim::test {

using isa::Field;
using isa::Instruction;
using isa::Opcode;
using F = isa::Field;

inline isa::HwConfig preset(const std::string &name) {
  auto cfg = isa::loadHwConfigFile(std::string(SYSTOLE_PRESET_DIR) + "/" +
                                   name + ".json");
  if (!cfg) {
    ADD_FAILURE() << llvm::toString(cfg.takeError());
    return isa::HwConfig();
  }
  return *cfg;
}

/// tiny-4x4 resized to an R x C array (SP/ACC/vector as in the preset).
inline isa::HwConfig arrayConfig(uint64_t rows, uint64_t cols) {
  isa::HwConfig cfg = preset("tiny-4x4");
  cfg.array.rows = rows;
  cfg.array.cols = cols;
  cfg.name = "test-" + std::to_string(rows) + "x" + std::to_string(cols);
  return cfg;
}

inline Instruction withDeps(Instruction I, bool popPrev, bool popNext,
                            bool pushPrev, bool pushNext) {
  isa::Deps d;
  d.popPrev = popPrev;
  d.popNext = popNext;
  d.pushPrev = pushPrev;
  d.pushNext = pushNext;
  I.setDeps(d);
  return I;
}

/// A plain matrix A (M x K, row pitch K) at `a`, B (K x N, pitch N) at `b`,
/// C (pitch N words) at `c`.
inline Instruction matmul(uint64_t dataflow, uint64_t M, uint64_t K, uint64_t N,
                          bool preload, uint64_t a = 0, uint64_t b = 4096,
                          uint64_t c = 0) {
  Instruction I(Opcode::Matmul);
  I.with(F::Matmul_dataflow, dataflow)
      .with(F::Matmul_preload, preload)
      .with(F::Matmul_m, M)
      .with(F::Matmul_k, K)
      .with(F::Matmul_n, N)
      .with(F::Matmul_a_m_inner, 1 << 20)
      .with(F::Matmul_a_m_inner_stride, K)
      .with(F::Matmul_a_k_inner, 1 << 20)
      .with(F::Matmul_b_stride, N)
      .with(F::Matmul_a_addr, a)
      .with(F::Matmul_b_addr, b)
      .with(F::Matmul_c_addr, c)
      .with(F::Matmul_c_stride, N);
  return I;
}

/// A 1-D LOAD/STORE of `bytes` bytes (elem 1) between DRAM and SP.
inline Instruction dma(Opcode op, uint64_t dramAddr, uint64_t spAddr,
                       uint64_t bytes) {
  Instruction I(op);
  if (op == Opcode::Load)
    I.with(F::Load_elem_bytes, 1)
        .with(F::Load_dram_addr, dramAddr)
        .with(F::Load_sram_addr, spAddr)
        .with(F::Load_n0, bytes)
        .with(F::Load_n1, 1)
        .with(F::Load_n2, 1)
        .with(F::Load_n3, 1);
  else
    I.with(F::Store_elem_bytes, 1)
        .with(F::Store_dram_addr, dramAddr)
        .with(F::Store_sram_addr, spAddr)
        .with(F::Store_n0, bytes)
        .with(F::Store_n1, 1)
        .with(F::Store_n2, 1)
        .with(F::Store_n3, 1);
  return I;
}

inline Instruction fence(isa::Queue q) {
  Instruction I(Opcode::Fence);
  I.set(F::Fence_queue, unsigned(q));
  return I;
}

inline Instruction end() { return Instruction(Opcode::End); }

inline uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// Runs `stream` on the cycle backend from a zeroed machine with `dram`
/// bytes of DRAM.
inline RunResult runCycles(const std::vector<Instruction> &stream,
                           const isa::HwConfig &cfg, uint64_t dram = 1 << 16) {
  MachineState s = MachineState::create(cfg, dram);
  return runCycleAccurate(stream, cfg, s);
}

} // namespace systole::sim::test

#endif
