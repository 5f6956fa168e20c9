//===- SanitizerStackTest.cpp - ASan's view of the stack after SystemC ----===//
//
// Issue 14: LeakSanitizer's exit-time scan crashed at random in processes
// that had run the SystemC model, because SystemC's coroutine switches left
// AddressSanitizer believing the main thread ran on an unmapped coroutine
// stack (simulator/lib/SystemCContext.cpp). These tests run the cycle
// backend the way the hostile tests do (a deadlocking program, whose blocked
// threads never return, and a finishing one, whose threads end through
// SystemC's abort path) and then ask ASan where it thinks the stack is.
// They only mean something in the sanitized build (tools/sanitize.sh); the
// plain build reports them as skipped, with the reason.
//
//===----------------------------------------------------------------------===//
#include "systole/ISA/Assembly.h"
#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Program.h"
#include "systole/Simulator/Simulator.h"
#include "systole/Simulator/SystemCContext.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYSTOLE_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SYSTOLE_ASAN 1
#endif
#ifdef SYSTOLE_ASAN
#include <sanitizer/lsan_interface.h>
#endif

using namespace systole;

namespace {

sim::RunResult runCycle(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(bool(buf)) << path;
  if (!buf)
    return {};
  auto cfg = isa::loadHwConfigFile(SYSTOLE_PRESET_DIR "/tiny-4x4.json");
  EXPECT_TRUE(bool(cfg));
  if (!cfg)
    return {};
  auto prog = isa::parseProgramAsm((*buf)->getBuffer(), *cfg, path);
  if (!prog) {
    ADD_FAILURE() << llvm::toString(prog.takeError());
    return {};
  }
  sim::MachineState st =
      sim::MachineState::create(prog->config, prog->memoryPlan.dramSize);
  sim::RunOptions opts;
  opts.maxCycles = 1000000;
  return sim::runSegment(sim::BackendKind::Cycle,
                         prog->segments[0].npu().instructions, prog->config, st,
                         opts);
}

void expectOwnStackAfter(const std::string &program) {
#ifndef SYSTOLE_ASAN
  GTEST_SKIP() << "needs AddressSanitizer: tools/sanitize.sh runs it";
#else
  sim::RunResult r = runCycle(program);
  EXPECT_GT(r.stats.totalCycles, 0u) << "the simulation did not run";
  // True iff ASan's stack range for this thread held this frame before the
  // call, i.e. the simulator handed the real stack back.
  EXPECT_TRUE(sim::restoreSanitizerThreadStack())
      << "after a cycle run, AddressSanitizer does not see the thread's own "
         "stack (SystemC coroutine switch left unannounced)";
  // The exit-time scan, now, with the stack the simulator left behind.
  EXPECT_EQ(__lsan_do_recoverable_leak_check(), 0);
#endif
}

} // namespace

TEST(SanitizerStack, OwnStackAfterADeadlockedRun) {
  expectOwnStackAfter(SYSTOLE_HOSTILE_INPUTS "/deadlock.s");
}

TEST(SanitizerStack, OwnStackAfterAFinishedRun) {
  expectOwnStackAfter(SYSTOLE_LIT_INPUTS "/isa/Inputs/matmul-tile.s");
}
