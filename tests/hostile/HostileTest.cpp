//===- HostileTest.cpp - Hostile inputs behind the verifier ---------------===//
//
// The rows of docs/security.md's hostile-input table that the CLI cannot
// reach because the verifier stops them first: the simulator's own fault
// detection on unverified streams (defence in depth: a program that bypasses
// readProgram still cannot hang or corrupt the host), and runtime limits on
// sizes a binary declares. The lit tests next to this file cover the CLI.
//
//===----------------------------------------------------------------------===//
#include "systole/ISA/Assembly.h"
#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Program.h"
#include "systole/Runtime/Runtime.h"
#include "systole/Simulator/Simulator.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <string>

using namespace systole;

namespace {

isa::HwConfig tiny() {
  auto cfg = isa::loadHwConfigFile(SYSTOLE_PRESET_DIR "/tiny-4x4.json");
  EXPECT_TRUE(bool(cfg));
  return cfg ? *cfg : isa::HwConfig();
}

/// Parses an assembly file without verifying it, as a hostile producer
/// would write it (`systole asm --no-verify`).
isa::Program unverified(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(bool(buf)) << path;
  if (!buf)
    return {};
  auto prog = isa::parseProgramAsm((*buf)->getBuffer(), tiny(), path);
  if (!prog) {
    ADD_FAILURE() << llvm::toString(prog.takeError());
    return {};
  }
  return *prog;
}

/// Fault message of running segment 0 of `file` on `backend`, or "".
std::string faultOf(const std::string &file, sim::BackendKind backend) {
  isa::Program p = unverified(file);
  if (p.segments.empty() || !p.segments[0].isNpu())
    return "<no NPU segment>";
  sim::MachineState st =
      sim::MachineState::create(p.config, p.memoryPlan.dramSize);
  sim::RunOptions opts;
  opts.maxCycles = 1000000; // a hang would be a bug; stop it either way
  sim::RunResult r = sim::runSegment(backend, p.segments[0].npu().instructions,
                                     p.config, st, opts);
  return r.fault ? r.fault->message() : "";
}

const std::string kInputs = SYSTOLE_HOSTILE_INPUTS;
constexpr auto kCycle = sim::BackendKind::Cycle;
constexpr auto kFunctional = sim::BackendKind::Functional;

} // namespace

// Row "token deadlock": balanced tokens that can never flow. Under a cycle
// limit the deadlock is reported at its last event (cycle 2), not at the
// limit: the cycle backend used to run the clock to maxCycles first and
// report "cycle 1000000".
TEST(HostileSimulator, TokenDeadlock) {
  EXPECT_EQ(faultOf(kInputs + "/deadlock.s", kCycle),
            "fault: token deadlock at instruction #0 (load, load queue), cycle "
            "2: waits for a compute->load token that can never arrive (no "
            "instruction in flight); compute queue blocked at instruction #1 "
            "(fence)");
  EXPECT_EQ(faultOf(kInputs + "/deadlock.s", kFunctional),
            "fault: token deadlock at instruction #0 (load, load queue), cycle "
            "0: waits for a compute->load token that can never arrive (no "
            "instruction in flight); compute queue blocked at instruction #1 "
            "(fence)");
}

// Row "token wait that can never be satisfied": a pop nobody pushes.
TEST(HostileSimulator, UnbalancedTokens) {
  EXPECT_EQ(faultOf(kInputs + "/unbalanced.s", kCycle),
            "fault: token deadlock at instruction #0 (fence, compute queue), "
            "cycle 1: waits for a load->compute token that can never arrive "
            "(no instruction in flight)");
  EXPECT_EQ(faultOf(kInputs + "/unbalanced.s", kFunctional),
            "fault: token deadlock at instruction #0 (fence, compute queue), "
            "cycle 0: waits for a load->compute token that can never arrive "
            "(no instruction in flight)");
}

// Row "token FIFO overflow" (timing dependent: the verifier cannot see it).
TEST(HostileSimulator, TokenFifoOverflow) {
  std::string file = SYSTOLE_LIT_INPUTS "/run/Inputs/overflow.s";
  EXPECT_EQ(faultOf(file, kCycle),
            "fault: token FIFO overflow at instruction #5 (load, load queue), "
            "cycle 31: push into the full load->compute token FIFO "
            "(token_depth 4)");
}

// Row "out-of-range DMA": past the end of the DRAM image, and wrapping
// around 2^64.
TEST(HostileSimulator, DmaOutsideDram) {
  for (auto b : {kCycle, kFunctional}) {
    EXPECT_EQ(faultOf(kInputs + "/dma-out-of-range.s", b),
              "fault: DMA outside the DRAM image at instruction #0 (load, load "
              "queue), cycle 0: operand src reads DRAM [0xffa, 0x100a) "
              "outside its 4096 bytes");
    EXPECT_EQ(faultOf(kInputs + "/dma-address-wraps.s", b),
              "fault: DMA outside the DRAM image at instruction #0 (store, "
              "store queue), cycle 0: operand dst writes DRAM "
              "[0xfffffffffffffff8, 0xffffffffffffffff) outside its 4096 "
              "bytes");
  }
}

// Row "SRAM/accumulator out of range", with 32-bit addresses near the top.
TEST(HostileSimulator, SramOutOfRange) {
  for (auto b : {kCycle, kFunctional}) {
    EXPECT_EQ(faultOf(kInputs + "/sram-out-of-range.s", b),
              "fault: SRAM address out of range at instruction #0 (load, load "
              "queue), cycle 0: operand dst writes SP [0xfffffff0, "
              "0x100000000) outside its 16384 bytes");
    EXPECT_EQ(faultOf(kInputs + "/acc-out-of-range.s", b),
              "fault: SRAM address out of range at instruction #0 (matmul, "
              "compute queue), cycle 0: operand C writes ACC [0x7fffffff, "
              "0x8000000f) outside its 1024 words");
  }
}

// Row "huge SRAM in the embedded config": the verifier accepts any config in
// the schema's ranges (scratchpad up to 4 GiB, accumulator up to 16 GiB); a
// session would allocate both, so the runtime refuses it by default.
TEST(HostileRuntime, HugeSramConfigIsRefused) {
  isa::Program p = unverified(SYSTOLE_LIT_INPUTS "/isa/Inputs/matmul-tile.s");
  p.config.sram.scratchpadBytes = uint64_t(1) << 32;
  p.config.sram.accumulatorBytes = uint64_t(1) << 34;
  std::vector<uint8_t> bytes = isa::writeProgram(p);
  ASSERT_FALSE(bool(isa::readProgram(bytes).takeError())); // verifier: valid
  auto m = rt::Model::loadBytes(bytes);
  ASSERT_FALSE(bool(m));
  EXPECT_EQ(llvm::toString(m.takeError()),
            "hardware config 'tiny-4x4': scratchpad + accumulator 21474836480 "
            "bytes exceed the runtime limit of 1073741824 bytes");
  rt::Limits generous;
  generous.maxSramBytes = uint64_t(32) << 30;
  m = rt::Model::loadBytes(bytes, generous);
  EXPECT_TRUE(bool(m));
  if (!m)
    llvm::consumeError(m.takeError());
}

// Row "wrong input shape / dtype" through the C++ API.
TEST(HostileRuntime, WrongInputShapeAndDtype) {
  isa::Program p = unverified(SYSTOLE_LIT_INPUTS "/isa/Inputs/matmul-tile.s");
  auto m = rt::Model::loadBytes(isa::writeProgram(p));
  ASSERT_TRUE(bool(m)) << llvm::toString(m.takeError());
  rt::Session s(**m);
  auto bind = [&](ElementType t, std::vector<int64_t> shape) {
    return llvm::toString(s.setInput("a", HostTensor(t, std::move(shape))));
  };
  EXPECT_EQ(bind(ElementType::Int8, {4, 6}),
            "input 'a': expected 6x4xint8, got 4x6xint8");
  EXPECT_EQ(bind(ElementType::Float32, {6, 4}),
            "input 'a': expected 6x4xint8, got 6x4xfloat32");
  EXPECT_EQ(bind(ElementType::Int8, {6}),
            "input 'a': expected 6x4xint8, got 6xint8");
  EXPECT_EQ(llvm::toString(s.run()), "input 'a' (6x4xint8) is not bound");
}

// fuzz-npu-load found an int64 vector (a tensor shape) at 4 mod 8: the
// FlatBuffers 2.0 Verifier accepts it and reading it was undefined behaviour
// (UBSan: misaligned load). The regression input and a valid binary at an odd
// address must both decode (under the sanitizer build: without a report).
TEST(HostileBinary, MisalignedVectorsAndBuffers) {
  auto crash = llvm::MemoryBuffer::getFile(
      SYSTOLE_FUZZ_REGRESSIONS "/npu-load/misaligned-int64-vector.npu");
  ASSERT_TRUE(bool(crash));
  auto r = isa::readProgram(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>((*crash)->getBufferStart()),
      (*crash)->getBufferSize()));
  if (!r)
    llvm::consumeError(r.takeError());

  isa::Program p = unverified(SYSTOLE_LIT_INPUTS "/isa/Inputs/matmul-tile.s");
  std::vector<uint8_t> bytes = isa::writeProgram(p);
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::copy(bytes.begin(), bytes.end(), shifted.begin() + 1);
  auto q = isa::readProgram(llvm::ArrayRef<uint8_t>(bytes));
  auto s = isa::readProgram(llvm::ArrayRef<uint8_t>(shifted).drop_front());
  ASSERT_TRUE(bool(q)) << llvm::toString(q.takeError());
  ASSERT_TRUE(bool(s)) << llvm::toString(s.takeError());
  EXPECT_TRUE(*q == *s);
  EXPECT_EQ(s->tensors[0].shape, (std::vector<int64_t>{6, 4}));
}

// Row "native host code from an untrusted binary": a cpu_object segment is
// code the runtime would dlopen; with allowNativeHostCode = false the loader
// refuses it before looking at it.
TEST(HostileRuntime, NativeHostCodeCanBeRefused) {
  isa::Program p = unverified(SYSTOLE_FUZZ_CORPUS "/asm/host-layer.s");
  std::vector<uint8_t> bytes = isa::writeProgram(p);
  rt::Limits strict;
  strict.allowNativeHostCode = false;
  auto m = rt::Model::loadBytes(bytes, strict);
  ASSERT_FALSE(bool(m));
  EXPECT_EQ(llvm::toString(m.takeError()),
            "segments[1] 'post': native host code (cpu_object) is not allowed "
            "by the runtime limits");
}
