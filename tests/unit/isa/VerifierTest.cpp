//===- VerifierTest.cpp - Semantic checks name what is wrong --------------===//
#include "TestUtil.h"

#include "systole/ISA/Verifier.h"

using namespace systole::isa;
using namespace systole::isa::test;
using F = Field;

namespace {
std::string verify(const Program &p) { return errorText(verifyProgram(p)); }
Instruction &inst(Program &p, size_t i) {
  return p.segments[0].npu().instructions[i];
}
bool contains(const std::string &s, const std::string &what) {
  return s.find(what) != std::string::npos;
}
} // namespace

TEST(Verifier, ScratchpadAndAccumulatorFootprints) {
  Program p = sampleProgram();
  inst(p, 1).set(F::Load_sram_addr,
                 16384 - 15); // 16 bytes from 16369: 1 byte past SP
  std::string e = verify(p);
  EXPECT_TRUE(contains(
      e, "segments[0] 'main' instruction #1: load: operand dst touches SP "
         "[0x3ff1, 0x4001) beyond its capacity 0x4000 bytes"))
      << e;
  p = sampleProgram();
  inst(p, 2).set(F::Matmul_c_addr,
                 1001); // ACC has 1024 words; C spans 5*4+4 = 24
  e = verify(p);
  EXPECT_TRUE(contains(e, "instruction #2: matmul: operand C touches ACC"))
      << e;
  p = sampleProgram();
  inst(p, 3).set(F::Requant_lut, 1);
  inst(p, 3).set(F::Requant_lut_addr, 16384 - 255);
  EXPECT_TRUE(contains(verify(p), "operand lut touches SP"));
}

TEST(Verifier, DramRangesAgainstThePlan) {
  Program p = sampleProgram();
  inst(p, 5).set(F::Store_dram_addr, 8192 - 20); // 6 rows * 4 bytes
  EXPECT_TRUE(contains(verify(p), "store: operand dst touches DRAM"));
  p = sampleProgram();
  p.memoryPlan.dramSize = p.config.dram.capacityBytes + 1;
  EXPECT_TRUE(
      contains(verify(p),
               "memory_plan.dram_size: 16777217 exceeds dram.capacity_bytes"));
  p = sampleProgram();
  p.memoryPlan.regions[2].size = 1 << 20;
  EXPECT_TRUE(contains(verify(p), "memory_plan.regions[2] 'act'"));
  p = sampleProgram();
  p.constants[0].dramOffset = 8190;
  EXPECT_TRUE(contains(
      verify(p), "constants[0] 'w': [8190, +16) is outside dram_size 8192"));
}

TEST(Verifier, InstructionFieldRules) {
  struct Case {
    size_t index;
    Field field;
    int64_t value;
    const char *message;
  };
  Case cases[] = {
      {0, F::Load_elem_bytes, 2, "load.elem_bytes: must be 1 or 4, got 2"},
      {0, F::Load_n2, 0, "load.n2: must be >= 1"},
      {0, F::Load_u8_to_i8, 1, ""},
      {2, F::Matmul_k, 5, "matmul.k: 5 exceeds array.rows 4 (ws)"},
      {2, F::Matmul_n, 5, "matmul.n: 5 exceeds array.cols 4"},
      {2, F::Matmul_a_k_inner, 0, "matmul.a_k_inner: must be >= 1"},
      {2, F::Matmul_c_stride, 3,
       "matmul.c_stride: 3 is less than n (4): rows of C would overlap in the "
       "accumulator (m = 6)"},
      {2, F::Matmul_c_stride, 0,
       "matmul.c_stride: 0 is less than n (4): rows of C would overlap"},
      {5, F::Store_elem_bytes, 4, "store.i8_to_u8: requires elem_bytes=1"},
  };
  for (const Case &c : cases) {
    Program p = sampleProgram();
    inst(p, c.index).set(c.field, c.value);
    std::string e = verify(p);
    if (!*c.message)
      EXPECT_EQ(e, "") << fieldInfo(c.field).name;
    else
      EXPECT_TRUE(contains(e, c.message)) << c.message << " vs " << e;
  }
  Program p = sampleProgram();
  inst(p, 3).set(F::Requant_lo, 100);
  inst(p, 3).set(F::Requant_hi, 99);
  EXPECT_TRUE(contains(verify(p), "requant: lo (100) must not exceed hi (99)"));
  p = sampleProgram();
  p.config.array.ws = false;
  p.config.array.os = true;
  EXPECT_TRUE(contains(
      verify(p), "matmul.dataflow: ws is not supported by config 'tiny-4x4'"));
  p = sampleProgram();
  inst(p, 2).set(F::Matmul_dataflow, Dataflow_os);
  EXPECT_TRUE(contains(verify(p), "matmul.m: 6 exceeds array.rows 4 (os)"));
  // One row of C: its stride is never used.
  p = sampleProgram();
  inst(p, 2).set(F::Matmul_m, 1);
  inst(p, 2).set(F::Matmul_c_stride, 0);
  EXPECT_EQ(verify(p), "");
  p = sampleProgram();
  inst(p, 0).set(F::Load_sram, Memory_acc);
  EXPECT_TRUE(
      contains(verify(p), "load.elem_bytes: must be 4 for the accumulator"));
}

TEST(Verifier, WeightReuseMustMatchThePreloadedShape) {
  Program p = sampleProgram();
  inst(p, 2).set(F::Matmul_preload, 0);
  EXPECT_TRUE(contains(
      verify(p),
      "matmul.preload: 0 reuses weights, but no WS matmul loaded any"));
  p = sampleProgram();
  auto &ins = p.segments[0].npu().instructions;
  Instruction again = ins[2];
  again.setDeps({});
  again.set(F::Matmul_preload, 0);
  again.set(F::Matmul_k, 3);
  ins.insert(ins.begin() + 3, again);
  EXPECT_TRUE(
      contains(verify(p),
               "reuses weights of shape K=4 N=4, but this matmul has K=3 N=4"));
}

TEST(Verifier, EndPlacement) {
  Program p = sampleProgram();
  p.segments[0].npu().instructions.pop_back();
  EXPECT_TRUE(contains(verify(p), "an NPU segment must end with END"));
  p = sampleProgram();
  auto &ins = p.segments[0].npu().instructions;
  ins.insert(ins.begin(), Instruction(Opcode::End));
  EXPECT_TRUE(
      contains(verify(p), "instruction #0: END before the end of the segment"));
}

TEST(Verifier, TokenBalance) {
  Program p = sampleProgram();
  inst(p, 6).setDeps({}); // nobody pops store->compute
  EXPECT_TRUE(contains(verify(p),
                       "token FIFO store->compute: 1 more pushes than pops"));
}

TEST(Verifier, TokenDeadlockNamesTheBlockedInstructions) {
  HwConfig cfg = preset("tiny-4x4");
  // Compute waits for load's token, load waits for compute's: a cycle.
  Instruction ld(Opcode::Fence), cm(Opcode::Fence);
  ld.set(F::Fence_queue, QueueSel_load);
  ld.setDeps(
      {false, true, false, true}); // pop compute->load, push load->compute
  cm.set(F::Fence_queue, QueueSel_compute);
  cm.setDeps(
      {true, false, true, false}); // pop load->compute, push compute->load
  std::vector<Instruction> s = {ld, cm, Instruction(Opcode::End)};
  std::string e = errorText(verifyTokenDiscipline(s, cfg));
  EXPECT_EQ(e, "token deadlock: load queue waits at instruction #0 (fence) for "
               "a compute->load "
               "token; compute queue waits at instruction #1 (fence) for a "
               "load->compute token");
  // Swapping the order resolves it.
  cm.setDeps({false, false, true, false});
  Instruction cm2(Opcode::Fence);
  cm2.set(F::Fence_queue, QueueSel_compute);
  cm2.setDeps({true, false, false, false});
  std::vector<Instruction> ok = {cm, ld, cm2, Instruction(Opcode::End)};
  EXPECT_EQ(errorText(verifyTokenDiscipline(ok, cfg)), "");
}

TEST(Verifier, DeadlockThroughAFullCommandQueue) {
  HwConfig cfg = preset("tiny-4x4");
  cfg.queues.cmdDepth = 2;
  // Three compute fences wait for a token from a load that fetch can only
  // dispatch after them: the compute queue fills and fetch stalls.
  Instruction cm(Opcode::Fence);
  cm.set(F::Fence_queue, QueueSel_compute);
  cm.setDeps({true, false, false, false});
  Instruction c2(Opcode::Fence), c3(Opcode::Fence);
  c2.set(F::Fence_queue, QueueSel_compute);
  c3.set(F::Fence_queue, QueueSel_compute);
  Instruction ld(Opcode::Fence);
  ld.set(F::Fence_queue, QueueSel_load);
  ld.setDeps({false, false, false, true});
  std::vector<Instruction> s = {cm, c2, c3, ld, Instruction(Opcode::End)};
  std::string e = errorText(verifyTokenDiscipline(s, cfg));
  EXPECT_TRUE(contains(e, "compute queue waits at instruction #0")) << e;
  EXPECT_TRUE(contains(e, "fetch is stalled at instruction #2")) << e;
  cfg.queues.cmdDepth = 3;
  EXPECT_EQ(errorText(verifyTokenDiscipline(s, cfg)), "");
}

TEST(Verifier, Tensors) {
  Program p = sampleProgram();
  p.tensors[0].sizeBytes = 25;
  EXPECT_TRUE(contains(
      verify(p), "tensors[0] 'a'.size_bytes: 25 does not match shape and dtype "
                 "int8 (24 bytes)"));
  p = sampleProgram();
  p.tensors[3].sizeBytes = 6; // float32 [2,3] is 24 bytes
  EXPECT_TRUE(contains(verify(p), "tensors[3] 'f'.size_bytes: 6"));
  p = sampleProgram();
  p.tensors[1].name = "a";
  EXPECT_TRUE(
      contains(verify(p), "tensors[1] 'a'.name: duplicate tensor name"));
  p = sampleProgram();
  p.tensors[1].quant->axis = 3;
  EXPECT_TRUE(
      contains(verify(p), "tensors[1] 'w'.quant.axis: 3 is not a dimension"));
  p = sampleProgram();
  p.tensors[1].quant->scales.pop_back();
  EXPECT_TRUE(contains(
      verify(p), "tensors[1] 'w'.quant.zero_points: 4 entries for 3 scales"));
  p = sampleProgram();
  p.tensors[2].quant->zeroPoints = {-1};
  EXPECT_TRUE(
      contains(verify(p), "zero_points[0]: -1 outside the uint8 range"));
  p = sampleProgram();
  p.tensors[0].quant->scales = {0.0f};
  EXPECT_TRUE(
      contains(verify(p), "quant.scales[0]: must be positive and finite"));
  p = sampleProgram();
  p.tensors[0].shape = {-1, 4};
  EXPECT_TRUE(contains(verify(p), "shape[0]: negative dimension -1"));
  p = sampleProgram();
  p.tensors[0].dramOffset = 8180;
  EXPECT_TRUE(
      contains(verify(p), "tensors[0] 'a': DRAM range [8180, +24) is outside"));
}

TEST(Verifier, BuiltinHostKernels) {
  Program p = sampleProgram();
  HostSegment &h = std::get<HostSegment>(p.segments[1].body);
  h.kind = HostCodeKind::Builtin;
  h.code.clear();
  h.entry = "transpose";
  h.params = {0, 2, 3, 1};
  EXPECT_EQ(verify(p), "");
  // Builtins survive the binary round trip with their parameters.
  auto back = readProgram(writeProgram(p));
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(std::get<HostSegment>(back->segments[1].body).params,
            (std::vector<int64_t>{0, 2, 3, 1}));
  h.entry = "softmax";
  EXPECT_TRUE(contains(verify(p), "unknown builtin host kernel 'softmax'"));
  h.entry = "quantize";
  h.args.push_back(0);
  EXPECT_TRUE(contains(verify(p), "builtin 'quantize' takes 2 tensors, got 3"));
  h.args.pop_back();
  h.code = {1};
  EXPECT_TRUE(contains(verify(p), "must be empty for a builtin"));
}

TEST(Verifier, HostSegmentsAndLayers) {
  Program p = sampleProgram();
  std::get<HostSegment>(p.segments[1].body).args.push_back(9);
  EXPECT_TRUE(contains(
      verify(p), "segments[1] 'post'.args[2]: tensor index 9 out of range"));
  p = sampleProgram();
  std::get<HostSegment>(p.segments[1].body).entry.clear();
  EXPECT_TRUE(contains(verify(p),
                       "segments[1] 'post'.entry: must name the entry symbol"));
  p = sampleProgram();
  std::get<HostSegment>(p.segments[1].body).code.clear();
  EXPECT_TRUE(
      contains(verify(p), "segments[1] 'post'.code: must not be empty"));
  p = sampleProgram();
  p.layers[0].segment = 1;
  EXPECT_TRUE(
      contains(verify(p), "layers[0] 'gemm'.segment: 1 is not an NPU segment"));
  p = sampleProgram();
  p.layers[1].instructionCount = 5;
  EXPECT_TRUE(
      contains(verify(p), "layers[1] 'store': instructions [4, +5) exceed"));
  p = sampleProgram();
  p.segments.clear();
  p.layers.clear();
  EXPECT_TRUE(contains(verify(p), "a program needs at least one segment"));
}
