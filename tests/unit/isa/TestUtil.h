//===- TestUtil.h - Shared fixtures of the ISA unit tests -------*- C++ -*-===//
#ifndef SYSTOLE_TESTS_ISA_TESTUTIL_H
#define SYSTOLE_TESTS_ISA_TESTUTIL_H

#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Program.h"

#include "gtest/gtest.h"

#include <string>

namespace systole::isa::test {

inline std::string presetPath(const std::string &name) {
  return std::string(SYSTOLE_PRESET_DIR) + "/" + name + ".json";
}

inline HwConfig preset(const std::string &name) {
  auto cfg = loadHwConfigFile(presetPath(name));
  if (!cfg) {
    ADD_FAILURE() << llvm::toString(cfg.takeError());
    return HwConfig();
  }
  return *cfg;
}

inline std::string errorText(llvm::Error e) {
  return llvm::toString(std::move(e));
}

template <typename T> std::string errorText(llvm::Expected<T> &v) {
  if (v)
    return "";
  return llvm::toString(v.takeError());
}

/// A small valid program that exercises every part of the format: regions,
/// quantized tensors (per-tensor and per-axis), constants, an NPU segment
/// with tokens in every FIFO, a host segment and layer info.
inline Program sampleProgram() {
  using F = Field;
  Program p;
  p.producer = "unit-test";
  p.config = preset("tiny-4x4");
  p.memoryPlan.dramSize = 8192;
  p.memoryPlan.regions = {{"consts", RegionKind::Constants, 0, 1024},
                          {"io", RegionKind::IO, 1024, 1024},
                          {"act", RegionKind::Activations, 2048, 2048}};
  TensorDesc a{"a",
               TensorKind::Input,
               DType::Int8,
               {6, 4},
               QuantParams{{0.5f}, {0}, -1},
               1024,
               24};
  TensorDesc w{"w",
               TensorKind::Constant,
               DType::Int8,
               {4, 4},
               QuantParams{{0.1f, 0.2f, 0.3f, 0.4f}, {0, 0, 0, 0}, 1},
               0,
               16};
  TensorDesc c{"c",
               TensorKind::Output,
               DType::UInt8,
               {6, 4},
               QuantParams{{0.25f}, {128}, -1},
               1536,
               24};
  TensorDesc f{
      "f", TensorKind::Intermediate, DType::Float32, {2, 3}, std::nullopt, 2048,
      24};
  p.tensors = {a, w, c, f};
  p.constants = {{"w", 0, std::vector<uint8_t>(16, 1)},
                 {"scale", 64, {0, 0, 0, 0x3f}}};

  std::vector<Instruction> ins;
  Instruction ldA(Opcode::Load);
  ldA.with(F::Load_elem_bytes, 1)
      .with(F::Load_dram_addr, 1024)
      .with(F::Load_n0, 4)
      .with(F::Load_n1, 6)
      .with(F::Load_n2, 1)
      .with(F::Load_n3, 1)
      .with(F::Load_s1, 4)
      .with(F::Load_t1, 4);
  ins.push_back(ldA);
  Instruction ldB(Opcode::Load);
  ldB.with(F::Load_elem_bytes, 1)
      .with(F::Load_sram_addr, 64)
      .with(F::Load_n0, 4)
      .with(F::Load_n1, 4)
      .with(F::Load_n2, 1)
      .with(F::Load_n3, 1)
      .with(F::Load_s1, 4)
      .with(F::Load_t1, 4)
      .with(F::Load_pad_top, 0);
  ldB.setDeps({false, false, false, true});
  ins.push_back(ldB);
  Instruction mm(Opcode::Matmul);
  mm.with(F::Matmul_dataflow, Dataflow_ws)
      .with(F::Matmul_preload, 1)
      .with(F::Matmul_a_m_inner_stride, 4)
      .with(F::Matmul_a_m_inner, 1 << 20)
      .with(F::Matmul_a_k_inner, 4)
      .with(F::Matmul_m, 6)
      .with(F::Matmul_k, 4)
      .with(F::Matmul_n, 4)
      .with(F::Matmul_b_addr, 64)
      .with(F::Matmul_b_stride, 4)
      .with(F::Matmul_c_stride, 4)
      .with(F::Matmul_a_zp, -3);
  mm.setDeps(
      {true, false, true, false}); // pop load->compute, push compute->load
  ins.push_back(mm);
  Instruction rq(Opcode::Requant);
  rq.with(F::Requant_per_tensor, 1)
      .with(F::Requant_zp, -3)
      .with(F::Requant_lo, -128)
      .with(F::Requant_hi, 127)
      .with(F::Requant_c_stride, 4)
      .with(F::Requant_scale_addr, 512)
      .with(F::Requant_o_addr, 128)
      .with(F::Requant_o_stride, 4)
      .with(F::Requant_m, 6)
      .with(F::Requant_n, 4);
  rq.setDeps({false, false, false, true}); // push compute->store
  ins.push_back(rq);
  Instruction fenceL(Opcode::Fence);
  fenceL.with(F::Fence_queue, QueueSel_load);
  fenceL.setDeps({false, true, false, false}); // pop compute->load
  ins.push_back(fenceL);
  Instruction st(Opcode::Store);
  st.with(F::Store_elem_bytes, 1)
      .with(F::Store_i8_to_u8, 1)
      .with(F::Store_sram_addr, 128)
      .with(F::Store_dram_addr, 1536)
      .with(F::Store_n0, 4)
      .with(F::Store_n1, 6)
      .with(F::Store_n2, 1)
      .with(F::Store_n3, 1)
      .with(F::Store_s1, 4)
      .with(F::Store_t1, 4);
  st.setDeps(
      {true, false, true, false}); // pop compute->store, push store->compute
  ins.push_back(st);
  Instruction fenceC(Opcode::Fence);
  fenceC.with(F::Fence_queue, QueueSel_compute);
  fenceC.setDeps({false, true, false, false}); // pop store->compute
  ins.push_back(fenceC);
  ins.push_back(Instruction(Opcode::End));
  p.segments.push_back({"main", NpuSegment{ins}});
  p.segments.push_back({"post", HostSegment{HostCodeKind::CpuObject,
                                            "systole_host_post",
                                            {0x7f, 'E', 'L', 'F', 1, 2, 3},
                                            {2, 3}}});
  p.layers = {{"gemm", 0, 0, 4}, {"store", 0, 4, 4}};
  return p;
}

} // namespace systole::isa::test

#endif // SYSTOLE_TESTS_ISA_TESTUTIL_H
