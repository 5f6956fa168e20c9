//===- VerifierTest.cpp - Semantic checks name what is wrong --------------===//
#include "TestUtil.h"

#include "systole/ISA/Timing.h"
#include "systole/ISA/Verifier.h"

#include <random>
#include <set>

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
  EXPECT_TRUE(contains(verify(p), "segments[1] 'post'.code: empty and the "
                                  "program has no host_library"));
  // ... unless its entry is in the program's host library (format 1.3).
  p.hostLibrary = {0x7f, 'E', 'L', 'F'};
  EXPECT_EQ(verify(p), "");
  // A ptx segment always carries its own code.
  std::get<HostSegment>(p.segments[1].body).kind = HostCodeKind::Ptx;
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

// Outputs stream into SRAM while inputs are read (docs/isa.md §4), so an
// output must be disjoint from every input, exactly: interleaved strided
// boxes pass, a single shared byte fails.
namespace {
// The overlap rules, with the bank-conflict flag set as the compiler would.
std::string check(Instruction I) {
  HwConfig cfg = preset("tiny-4x4");
  setBankConflictFlag(I, cfg);
  return errorText(validateInstruction(I, cfg));
}
// O rows [100,104), [108,112), [116,120); A and B far away.
Instruction vadd() {
  Instruction I(Opcode::Vadd);
  I.with(F::Vadd_o_addr, 100)
      .with(F::Vadd_o_s1, 8)
      .with(F::Vadd_n0, 4)
      .with(F::Vadd_n1, 3)
      .with(F::Vadd_a_addr, 1000)
      .with(F::Vadd_a_s1, 8)
      .with(F::Vadd_b_addr, 2000)
      .with(F::Vadd_b_s1, 8);
  return I;
}
} // namespace

TEST(Verifier, VectorOutputMustNotPartiallyOverlapAnInput) {
  EXPECT_EQ(check(vadd()), "");
  // A in O's gaps ([104,108), [112,116), [120,124)): hulls meet, bytes don't.
  EXPECT_EQ(check(vadd().with(F::Vadd_a_addr, 104)), "");
  EXPECT_EQ(check(vadd().with(F::Vadd_a_addr, 103)),
            "vadd: output O SP [0x64, 0x78) overlaps input A SP [0x67, 0x7b): "
            "an output must be disjoint from each input or be the identical "
            "box (in place)");
  // In place: the identical box, for A, B or both.
  EXPECT_EQ(check(vadd().with(F::Vadd_a_addr, 100)), "");
  EXPECT_EQ(check(vadd().with(F::Vadd_a_addr, 100).with(F::Vadd_b_addr, 100)),
            "");
  // Same start, other row stride: row 0 is shared, rows 1 and 2 are not.
  EXPECT_EQ(check(vadd().with(F::Vadd_b_addr, 100).with(F::Vadd_b_s1, 12)),
            "vadd: output O SP [0x64, 0x78) overlaps input B SP [0x64, 0x80): "
            "an output must be disjoint from each input or be the identical "
            "box (in place)");
  // A broadcast input at O's address reads byte 100 after beat 0 wrote it.
  EXPECT_TRUE(contains(
      check(vadd().with(F::Vadd_a_addr, 100).with(F::Vadd_a_bcast, 1)),
      "vadd: output O SP [0x64, 0x78) overlaps input A SP [0x64, 0x75)"));
  // Broadcast elements 104, 112, 120 sit in the gaps; 119 is in row 2.
  EXPECT_EQ(check(vadd().with(F::Vadd_b_addr, 104).with(F::Vadd_b_bcast, 1)),
            "");
  EXPECT_TRUE(
      contains(check(vadd().with(F::Vadd_b_addr, 119).with(F::Vadd_b_bcast, 1)),
               "overlaps input B SP [0x77, 0x88)"));
  // One row: the strides never apply, so this is still in place.
  EXPECT_EQ(check(vadd()
                      .with(F::Vadd_n1, 1)
                      .with(F::Vadd_a_addr, 100)
                      .with(F::Vadd_a_s1, 0)),
            "");
  // In place over overlapping rows: row 1 would read bytes row 0 wrote.
  EXPECT_EQ(check(vadd()
                      .with(F::Vadd_o_s1, 2)
                      .with(F::Vadd_a_addr, 100)
                      .with(F::Vadd_a_s1, 2)),
            "vadd: output O SP [0x64, 0x6c) is input A in place, but its rows "
            "overlap (o_s1 2 < n0 4): a later row would read bytes an earlier "
            "row already wrote");
  // Exact over long progressions: O = even bytes 0..1998, A = odd bytes is
  // fine; A = 1, 4, 7, ... meets O at 4.
  Instruction I = vadd()
                      .with(F::Vadd_n0, 1)
                      .with(F::Vadd_n1, 1000)
                      .with(F::Vadd_o_addr, 0)
                      .with(F::Vadd_o_s1, 2)
                      .with(F::Vadd_a_addr, 1)
                      .with(F::Vadd_a_s1, 2)
                      .with(F::Vadd_b_addr, 4000)
                      .with(F::Vadd_b_s1, 1);
  EXPECT_EQ(check(I), "");
  EXPECT_TRUE(contains(check(I.with(F::Vadd_a_s1, 3)),
                       "output O SP [0x0, 0x7cf) overlaps input A"));
  // VMUL shares the rule.
  Instruction M(Opcode::Vmul);
  M.with(F::Vmul_o_addr, 10)
      .with(F::Vmul_n0, 8)
      .with(F::Vmul_n1, 1)
      .with(F::Vmul_a_addr, 10)
      .with(F::Vmul_b_addr, 17);
  EXPECT_EQ(check(M),
            "vmul: output O SP [0xa, 0x12) overlaps input B SP [0x11, 0x19): "
            "an output must be disjoint from each input or be the identical "
            "box (in place)");
  EXPECT_EQ(check(M.with(F::Vmul_b_addr, 18)), "");
  // VLUT: A in place or apart; its table(s) apart from O.
  Instruction T(Opcode::Vlut);
  T.with(F::Vlut_o_addr, 10)
      .with(F::Vlut_n0, 8)
      .with(F::Vlut_n1, 1)
      .with(F::Vlut_a_addr, 10)
      .with(F::Vlut_lut_addr, 18);
  EXPECT_EQ(check(T), "");
  EXPECT_EQ(check(T.with(F::Vlut_a_addr, 12)),
            "vlut: output O SP [0xa, 0x12) overlaps input A SP [0xc, 0x14): "
            "an output must be disjoint from its input or be the identical "
            "box (in place)");
  EXPECT_EQ(check(T.with(F::Vlut_a_addr, 10).with(F::Vlut_lut_addr, 0)),
            "vlut: output O SP [0xa, 0x12) overlaps input lut SP [0x0, 0x100)");
  // Per column: 8 tables, [1000, 3048).
  EXPECT_TRUE(contains(check(T.with(F::Vlut_per_column, 1)
                                 .with(F::Vlut_lut_addr, 1000)
                                 .with(F::Vlut_o_addr, 3000)
                                 .with(F::Vlut_a_addr, 3000)),
                       "overlaps input lut SP [0x3e8, 0xbe8)"));
}

TEST(Verifier, VsoftmaxOutputInPlaceOrApart) {
  Instruction S(Opcode::Vsoftmax);
  S.with(F::Vsoftmax_o_addr, 10)
      .with(F::Vsoftmax_n0, 8)
      .with(F::Vsoftmax_n1, 2)
      .with(F::Vsoftmax_a_addr, 10)
      .with(F::Vsoftmax_a_s1, 8)
      .with(F::Vsoftmax_o_s1, 8);
  EXPECT_EQ(check(S), "");
  EXPECT_EQ(check(S.with(F::Vsoftmax_a_addr, 14)),
            "vsoftmax: output O SP [0xa, 0x1a) overlaps input A SP [0xe, "
            "0x1e): an output must be disjoint from its input or be the "
            "identical box (in place)");
  EXPECT_TRUE(contains(check(S.with(F::Vsoftmax_a_addr, 10)
                                 .with(F::Vsoftmax_a_s1, 4)
                                 .with(F::Vsoftmax_o_s1, 4)),
                       "rows overlap (0 < o_s1 4 < n0 8)"));
  // Overlapping output rows are rejected apart from A too.
  EXPECT_TRUE(contains(check(S.with(F::Vsoftmax_a_addr, 100)
                                 .with(F::Vsoftmax_a_s1, 8)
                                 .with(F::Vsoftmax_o_s1, 2)),
                       "rows overlap (0 < o_s1 2 < n0 8)"));
  EXPECT_TRUE(contains(check(S.with(F::Vsoftmax_n1, 0)), "n1"));
  // VLAYERNORM: the same rule.
  Instruction L(Opcode::Vlayernorm);
  L.with(F::Vlayernorm_o_addr, 10)
      .with(F::Vlayernorm_n0, 8)
      .with(F::Vlayernorm_n1, 1)
      .with(F::Vlayernorm_a_addr, 10);
  EXPECT_EQ(check(L), "");
  EXPECT_EQ(check(L.with(F::Vlayernorm_a_addr, 4)),
            "vlayernorm: output O SP [0xa, 0x12) overlaps input A SP [0x4, "
            "0xc): an output must be disjoint from its input or be the "
            "identical box (in place)");
}

TEST(Verifier, VreduceResultsApartFromTheRowsAndEachOther) {
  Instruction R(Opcode::Vreduce);
  R.with(F::Vreduce_n0, 8)
      .with(F::Vreduce_n1, 2)
      .with(F::Vreduce_a_s1, 8)
      .with(F::Vreduce_o_addr, 100)
      .with(F::Vreduce_o_s1, 1);
  EXPECT_EQ(check(R), "");
  // Row 1's result on row 1's bytes: rejected even though row 0 is done.
  EXPECT_TRUE(contains(check(R.with(F::Vreduce_o_addr, 9)),
                       "the results must be disjoint from the rows"));
  EXPECT_TRUE(contains(
      check(R.with(F::Vreduce_o_addr, 100).with(F::Vreduce_o_s1, 0)), "o_s1"));
  EXPECT_TRUE(contains(check(R.with(F::Vreduce_n0, 0)), "n0"));
}

TEST(Verifier, VbinaryFollowsTheElementwiseRules) {
  HwConfig cfg = preset("tiny-4x4");
  Instruction V(Opcode::Vbinary);
  V.with(F::Vbinary_n0, 8)
      .with(F::Vbinary_n1, 2)
      .with(F::Vbinary_a_s1, 8)
      .with(F::Vbinary_b_addr, 4096)
      .with(F::Vbinary_b_bcast, 1)
      .with(F::Vbinary_b_s1, 1)
      .with(F::Vbinary_o_addr, 8192)
      .with(F::Vbinary_o_s1, 8);
  EXPECT_EQ(check(V), "");
  // In place on A is allowed; overlapping B's per-row bytes is not.
  EXPECT_EQ(check(V.with(F::Vbinary_o_addr, 0)), "");
  EXPECT_TRUE(contains(check(V.with(F::Vbinary_o_addr, 4090)), "overlaps"));
  // The bank-conflict flag must match the footprint rule (check() sets
  // it as the compiler does; unset it reads as a wrong flag).
  V.with(F::Vbinary_o_addr, 8192).with(F::Vbinary_b_addr, 64);
  EXPECT_EQ(check(V), "");
  EXPECT_TRUE(contains(errorText(validateInstruction(V, cfg)),
                       "vbinary.bank_conflict: is 0, but A and B share"));
}

TEST(Verifier, VbinaryFp32OperandIsInTheAccumulator) {
  HwConfig cfg = preset("tiny-4x4");
  // b_f32: B is ACC words, so a scratchpad output at B's address is no
  // overlap and A and B never share a bank; B's zero point and scale must
  // be 0 (unused).
  Instruction V(Opcode::Vbinary);
  V.with(F::Vbinary_b_f32, 1)
      .with(F::Vbinary_n0, 8)
      .with(F::Vbinary_n1, 2)
      .with(F::Vbinary_a_s1, 8)
      .with(F::Vbinary_b_addr, 64)
      .with(F::Vbinary_b_s1, 8)
      .with(F::Vbinary_o_addr, 64)
      .with(F::Vbinary_o_s1, 8);
  EXPECT_EQ(check(V), "");
  EXPECT_TRUE(contains(check(V.with(F::Vbinary_b_zp, 3)), "vbinary.b_zp"));
  V.with(F::Vbinary_b_zp, 0);
  V.setF32(F::Vbinary_b_scale, 0.5f);
  EXPECT_TRUE(contains(check(V), "vbinary.b_scale"));
  V.setF32(F::Vbinary_b_scale, 0.0f);
  // B's 16 words end at ACC word 80: beyond tiny-4x4's 1,024 words is an
  // error of the accumulator, not of the scratchpad.
  EXPECT_TRUE(contains(check(V.with(F::Vbinary_b_addr, 1020)), "ACC"));
}

TEST(Verifier, PoolOutputMustNotOverlapItsWindowBox) {
  // 2x2 windows, stride 2, over a 4x4 input whose pixels (4 channels) are 8
  // bytes apart: the output pixels can live in the input's gaps.
  Instruction P(Opcode::Pool);
  P.with(F::Pool_kh, 2)
      .with(F::Pool_kw, 2)
      .with(F::Pool_sh, 2)
      .with(F::Pool_sw, 2)
      .with(F::Pool_oh, 2)
      .with(F::Pool_ow, 2)
      .with(F::Pool_ch, 4)
      .with(F::Pool_in_addr, 0)
      .with(F::Pool_in_pix_stride, 8)
      .with(F::Pool_in_row_stride, 32)
      .with(F::Pool_out_addr, 4)
      .with(F::Pool_out_pix_stride, 8)
      .with(F::Pool_out_row_stride, 32)
      .with(F::Pool_valid_y1, 4)
      .with(F::Pool_valid_x1, 4);
  EXPECT_EQ(check(P), "");
  EXPECT_EQ(check(P.with(F::Pool_out_addr, 2)),
            "pool: output out SP [0x2, 0x2e) overlaps input in SP [0x0, 0x7c) "
            "(its window box)");
  // In place is not allowed either: later windows read earlier outputs.
  EXPECT_TRUE(contains(check(P.with(F::Pool_out_addr, 0)),
                       "pool: output out SP [0x0, 0x2c) overlaps input in"));
  // The exact search is capped: 360,000 output pixels on even bytes, the
  // input on odd bytes, is disjoint but too costly to prove.
  Instruction Q(Opcode::Pool);
  Q.with(F::Pool_kh, 1)
      .with(F::Pool_kw, 1)
      .with(F::Pool_sh, 1)
      .with(F::Pool_sw, 1)
      .with(F::Pool_oh, 600)
      .with(F::Pool_ow, 600)
      .with(F::Pool_ch, 1)
      .with(F::Pool_in_addr, 1)
      .with(F::Pool_in_pix_stride, 2)
      .with(F::Pool_in_row_stride, 2)
      .with(F::Pool_out_addr, 0)
      .with(F::Pool_out_pix_stride, 2)
      .with(F::Pool_out_row_stride, 2);
  EXPECT_EQ(check(Q),
            "pool: output out SP [0x0, 0x95d) is not provably disjoint "
            "(search capped) from input in SP [0x1, 0x95e) (its window box)");
  // Small enough to search: 50x50 pixels.
  EXPECT_EQ(check(Q.with(F::Pool_oh, 50).with(F::Pool_ow, 50)), "");
}

TEST(Verifier, RequantOutputMustNotOverlapItsLut) {
  // Instruction #3 writes O = SP [128, 152) (6 rows of 4, stride 4).
  Program p = sampleProgram();
  inst(p, 3).set(F::Requant_lut, 1);
  inst(p, 3).set(F::Requant_lut_addr, 0);
  EXPECT_EQ(verify(p), "segments[0] 'main' instruction #3: requant: output O "
                       "SP [0x80, 0x98) overlaps input lut SP [0x0, 0x100)");
  inst(p, 3).set(F::Requant_lut_addr, 151);
  EXPECT_TRUE(contains(verify(p), "overlaps input lut SP [0x97, 0x197)"));
  inst(p, 3).set(F::Requant_lut_addr, 152);
  EXPECT_EQ(verify(p), "");
}

TEST(Verifier, DwconvOutputsMustOwnTheirAccumulatorWords) {
  Instruction D(Opcode::Dwconv);
  D.with(F::Dwconv_kh, 1)
      .with(F::Dwconv_kw, 1)
      .with(F::Dwconv_sh, 1)
      .with(F::Dwconv_sw, 1)
      .with(F::Dwconv_dh, 1)
      .with(F::Dwconv_dw, 1)
      .with(F::Dwconv_oh, 3)
      .with(F::Dwconv_ow, 2)
      .with(F::Dwconv_ch, 4)
      .with(F::Dwconv_in_pix_stride, 4)
      .with(F::Dwconv_in_row_stride, 8)
      .with(F::Dwconv_w_addr, 100)
      .with(F::Dwconv_c_pix_stride, 4)
      .with(F::Dwconv_c_row_stride, 8);
  EXPECT_EQ(check(D), "");
  // Row 1 starts at word 6, inside pixel (0, 1) = words [4, 8).
  EXPECT_EQ(check(D.with(F::Dwconv_c_row_stride, 6)),
            "dwconv: output C elements (0, 1) and (1, 0) share ACC words "
            "(c_row_stride 6, c_pix_stride 4, ch 4): every output must own its "
            "ch words");
  EXPECT_TRUE(contains(check(D.with(F::Dwconv_c_pix_stride, 3)),
                       "elements (0, 0) and (0, 1) share ACC words"));
  // Interleaved rows (2 channels, pixels 4 words apart, rows 2 apart): rows 0
  // and 1 are disjoint, row 2 lands on pixel (0, 1).
  D.with(F::Dwconv_ch, 2)
      .with(F::Dwconv_c_pix_stride, 4)
      .with(F::Dwconv_c_row_stride, 2)
      .with(F::Dwconv_oh, 2);
  EXPECT_EQ(check(D), "");
  EXPECT_TRUE(contains(check(D.with(F::Dwconv_oh, 3)),
                       "elements (0, 1) and (2, 0) share ACC words"));
  // A zero row stride puts every row on row 0.
  EXPECT_TRUE(
      contains(check(D.with(F::Dwconv_ow, 1).with(F::Dwconv_c_row_stride, 0)),
               "elements (0, 0) and (1, 0) share ACC words"));
}

// The verifier's arithmetic agrees with enumerating the byte sets, on random
// small instructions (fixed seed) with interleaving and zero strides.
TEST(Verifier, OverlapRulesMatchEnumeratedByteSets) {
  std::mt19937_64 rng(11);
  auto r = [&](uint64_t lo, uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  auto bytes = [](uint64_t base, uint64_t n1, uint64_t s1, uint64_t n2,
                  uint64_t s2, uint64_t w) {
    std::set<uint64_t> s;
    for (uint64_t j = 0; j < n1; ++j)
      for (uint64_t k = 0; k < n2; ++k)
        for (uint64_t e = 0; e < w; ++e)
          s.insert(base + j * s1 + k * s2 + e);
    return s;
  };
  auto meet = [](const std::set<uint64_t> &a, const std::set<uint64_t> &b) {
    for (uint64_t v : a)
      if (b.count(v))
        return true;
    return false;
  };
  unsigned rejected[3] = {}, accepted[3] = {};
  for (int it = 0; it < 3000; ++it) {
    // VADD: each input disjoint, or the identical box over disjoint rows.
    uint64_t n0 = r(1, 6), n1 = r(1, 5), o = r(0, 80), os = r(0, 14);
    Instruction V = vadd()
                        .with(F::Vadd_n0, n0)
                        .with(F::Vadd_n1, n1)
                        .with(F::Vadd_o_addr, o)
                        .with(F::Vadd_o_s1, os)
                        .with(F::Vadd_b_addr, 1000);
    bool bc = r(0, 3) == 0, same = r(0, 3) == 0;
    uint64_t a = same ? o : r(0, 80), as = same ? os : r(0, 14);
    V.with(F::Vadd_a_addr, a).with(F::Vadd_a_s1, as).with(F::Vadd_a_bcast, bc);
    bool inPlace = !bc && a == o && (n1 == 1 || as == os);
    bool ok = inPlace ? (n1 == 1 || os >= n0)
                      : !meet(bytes(o, n1, os, 1, 0, n0),
                              bytes(a, n1, as, 1, 0, bc ? 1 : n0));
    std::string e = check(V);
    EXPECT_EQ(e.empty(), ok) << e;
    ++(ok ? accepted : rejected)[0];
    // POOL: the output box never meets the window box.
    uint64_t oh = r(1, 3), ow = r(1, 3), ch = r(1, 4), kh = r(1, 2),
             kw = r(1, 2), sh = r(1, 2), sw = r(1, 2);
    uint64_t rows = (oh - 1) * sh + kh, cols = (ow - 1) * sw + kw;
    uint64_t in = r(0, 60), ips = r(0, 10), irs = r(0, 40), out = r(0, 60),
             ops = r(0, 10), ors = r(0, 40);
    Instruction P(Opcode::Pool);
    P.with(F::Pool_kh, kh)
        .with(F::Pool_kw, kw)
        .with(F::Pool_sh, sh)
        .with(F::Pool_sw, sw)
        .with(F::Pool_oh, oh)
        .with(F::Pool_ow, ow)
        .with(F::Pool_ch, ch)
        .with(F::Pool_in_addr, in)
        .with(F::Pool_in_pix_stride, ips)
        .with(F::Pool_in_row_stride, irs)
        .with(F::Pool_out_addr, out)
        .with(F::Pool_out_pix_stride, ops)
        .with(F::Pool_out_row_stride, ors);
    ok = !meet(bytes(out, oh, ors, ow, ops, ch),
               bytes(in, rows, irs, cols, ips, ch));
    e = check(P);
    EXPECT_EQ(e.empty(), ok) << e;
    ++(ok ? accepted : rejected)[1];
    // DWCONV: all oh*ow*ch output words distinct.
    uint64_t crs = r(0, 30), cps = r(0, 10);
    Instruction D(Opcode::Dwconv);
    D.with(F::Dwconv_kh, 1)
        .with(F::Dwconv_kw, 1)
        .with(F::Dwconv_sh, 1)
        .with(F::Dwconv_sw, 1)
        .with(F::Dwconv_dh, 1)
        .with(F::Dwconv_dw, 1)
        .with(F::Dwconv_oh, oh + r(0, 2))
        .with(F::Dwconv_ow, ow + r(0, 2))
        .with(F::Dwconv_ch, ch)
        .with(F::Dwconv_w_addr, 1000)
        .with(F::Dwconv_c_row_stride, crs)
        .with(F::Dwconv_c_pix_stride, cps);
    uint64_t doh = D.raw(F::Dwconv_oh), dow = D.raw(F::Dwconv_ow);
    ok = bytes(0, doh, crs, dow, cps, ch).size() == doh * dow * ch;
    e = check(D);
    EXPECT_EQ(e.empty(), ok) << e;
    ++(ok ? accepted : rejected)[2];
  }
  // Both outcomes occur often for every opcode.
  for (int k = 0; k < 3; ++k) {
    EXPECT_GT(accepted[k], 300u) << k;
    EXPECT_GT(rejected[k], 300u) << k;
  }
}

// docs/isa.md §6: the hardware reads bank_conflict, so it must say what the
// footprint rule says, both ways.
TEST(Verifier, BankConflictFlagMustMatchTheFootprints) {
  HwConfig cfg = preset("tiny-4x4"); // 4 banks of 4 KiB
  Instruction V(Opcode::Vadd);
  V.with(F::Vadd_n0, 16)
      .with(F::Vadd_n1, 1)
      .with(F::Vadd_a_addr, 0)
      .with(F::Vadd_b_addr, 64)
      .with(F::Vadd_o_addr, 8192);
  EXPECT_EQ(errorText(validateInstruction(V, cfg)),
            "vadd.bank_conflict: is 0, but A and B share a scratchpad bank "
            "(docs/isa.md §6)");
  V.set(F::Vadd_bank_conflict, 1);
  EXPECT_EQ(errorText(validateInstruction(V, cfg)), "");
  V.set(F::Vadd_b_addr, 4096);
  EXPECT_EQ(errorText(validateInstruction(V, cfg)),
            "vadd.bank_conflict: is 1, but A and B share no scratchpad bank "
            "(docs/isa.md §6)");
  Program p = sampleProgram(); // its MATMUL is WS
  inst(p, 2).set(F::Matmul_bank_conflict, 1);
  EXPECT_TRUE(contains(verify(p),
                       "matmul.bank_conflict: must be 0 for the ws dataflow"));
}

// docs/isa.md §4 LOAD: with padding, box positions must not share an
// address (the padding writer runs beside the data beats).
TEST(Verifier, PaddedLoadBoxMustBeInjective) {
  HwConfig cfg = preset("tiny-4x4");
  Instruction L(Opcode::Load);
  L.with(F::Load_elem_bytes, 1)
      .with(F::Load_n0, 8)
      .with(F::Load_n1, 4)
      .with(F::Load_n2, 2)
      .with(F::Load_n3, 1)
      .with(F::Load_s1, 8)
      .with(F::Load_s2, 32)
      .with(F::Load_t1, 8)
      .with(F::Load_t2, 48) // 6 columns (4 + pad 1 + 1) of 8 bytes
      .with(F::Load_pad_left, 1)
      .with(F::Load_pad_right, 1);
  EXPECT_EQ(errorText(validateInstruction(L, cfg)), "");
  L.set(F::Load_t2, 47);
  EXPECT_EQ(errorText(validateInstruction(L, cfg)),
            "load.t2: 47 is less than the 48 bytes its inner dimensions span: "
            "with padding, box positions must not overlap (the padding "
            "writer runs beside the data beats)");
  L.set(F::Load_t2, 48);
  L.set(F::Load_t1, 7);
  EXPECT_TRUE(contains(errorText(validateInstruction(L, cfg)),
                       "load.t1: 7 is less than the 8 bytes"));
  // Transposed (t2 inside t1) is fine when it clears: rows 8 bytes apart,
  // columns 16 bytes apart.
  L.set(F::Load_t2, 8);
  L.set(F::Load_t1, 16);
  EXPECT_EQ(errorText(validateInstruction(L, cfg)), "");
  // Without padding an overlapping box is legal (later positions win).
  L.set(F::Load_pad_left, 0);
  L.set(F::Load_pad_right, 0);
  L.set(F::Load_t1, 0);
  EXPECT_EQ(errorText(validateInstruction(L, cfg)), "");
}
