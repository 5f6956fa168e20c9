//===- HostCodeTest.cpp - ptx/cpu_object host segment checks --------------===//
//
// The load-time checks of a ptx segment's launch table (docs/host.md) and
// the CUDA driver path without a GPU: every malformed table is refused with
// an error naming the segment and the problem; without a usable GPU the
// runtime says why and refuses to run PTX (the caller runs the CPU code).
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/HostCode.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace systole;

namespace {

isa::TensorDesc f32(std::string name, uint64_t offset, uint64_t elements) {
  isa::TensorDesc t;
  t.name = std::move(name);
  t.kind = isa::TensorKind::Intermediate;
  t.dtype = isa::DType::Float32;
  t.shape = {int64_t(elements)};
  t.dramOffset = offset;
  t.sizeBytes = elements * 4;
  return t;
}

// in (16 floats at 0) -> out (16 floats at 64): one kernel of 1 block x 16
// threads reading in and writing out; a 256-byte device image (64 bytes of
// scratch after the 128 DRAM bytes, unused).
isa::Program gpuProgram(std::vector<int64_t> params) {
  isa::Program p;
  p.memoryPlan.dramSize = 128;
  p.tensors = {f32("in", 0, 16), f32("out", 64, 16)};
  isa::HostSegment ptx;
  ptx.kind = isa::HostCodeKind::Ptx;
  ptx.entry = "systole_host_0";
  ptx.code = {'/', '/'};
  ptx.args = {0, 1};
  ptx.params = std::move(params);
  isa::HostSegment cpu;
  cpu.kind = isa::HostCodeKind::CpuObject;
  cpu.entry = "systole_host_0";
  cpu.code = {0x7f, 'E', 'L', 'F'};
  cpu.args = {0, 1};
  cpu.params = {1};
  p.segments = {{"host_gpu:add", ptx}, {"host:add", cpu}};
  return p;
}

const std::vector<int64_t> kValid = {1, 256, 1, 1, 1, 1, 16, 1, 1, 2, 0, 64};

std::string check(const isa::Program &p) {
  llvm::Error e = rt::checkHostCode(p, 0);
  return e ? llvm::toString(std::move(e)) : "";
}

TEST(HostCode, ValidLaunchTableIsAccepted) {
  EXPECT_EQ(check(gpuProgram(kValid)), "");
  EXPECT_EQ(check(gpuProgram({1, 128, 0})), ""); // no launches
}

TEST(HostCode, MalformedLaunchTablesNameTheProblem) {
  struct Case {
    std::vector<int64_t> params;
    const char *error;
  } cases[] = {
      {{1, 256}, "missing launch table"},
      {{1, 0, 0}, "device image size out of range"},
      {{1, 100, 0}, "argument 'out' lies outside the device image"},
      {{1, 256, -1}, "negative launch count"},
      {{1, 256, 1, 1, 1, 1, 16, 1}, "truncated launch table"},
      {{1, 256, 1, 0, 1, 1, 16, 1, 1, 2, 0, 64},
       "grid/block sizes must be positive"},
      {{1, 256, 1, 1, 1, 1, 16, 1, 1, 3, 0, 64}, "truncated launch table"},
      {{1, 256, 1, 1, 1, 1, 16, 1, 1, 2, 0, 256},
       "kernel argument outside the device image"},
      {{1, 256, 1, 1, 1, 1, 16, 1, 1, 2, -4, 64},
       "kernel argument outside the device image"},
      {{1, 256, 1, 1, 1, 1, 16, 1, 1, 2, 0, 64, 7},
       "trailing values after the launch table"},
      {{3, 256, 0}, "params[0] must be the number of input arguments"},
  };
  for (const Case &c : cases) {
    std::string e = check(gpuProgram(c.params));
    EXPECT_NE(e.find("segments[0] 'host_gpu:add'"), std::string::npos) << e;
    EXPECT_NE(e.find(c.error), std::string::npos)
        << "expected '" << c.error << "', got '" << e << "'";
  }
}

TEST(HostCode, PtxNeedsItsCpuFallbackNext) {
  isa::Program p = gpuProgram(kValid);
  p.segments.pop_back();
  EXPECT_NE(check(p).find("must be followed by the cpu_object segment"),
            std::string::npos);
  p = gpuProgram(kValid);
  std::get<isa::HostSegment>(p.segments[1].body).entry = "other";
  EXPECT_NE(check(p).find("must be followed by the cpu_object segment"),
            std::string::npos);
}

TEST(HostCode, WithoutAGpuTheRuntimeSaysWhyAndRefusesPtx) {
  // SYSTOLE_NO_GPU is read once, on first use; this machine may or may not
  // have a GPU, the variable makes the answer deterministic.
  setenv("SYSTOLE_NO_GPU", "1", 1);
  std::string why;
  EXPECT_FALSE(rt::gpuAvailable(&why));
  EXPECT_EQ(why, "GPU disabled by SYSTOLE_NO_GPU");
  isa::Program p = gpuProgram(kValid);
  std::vector<uint8_t> dram(128);
  llvm::Error e =
      rt::runGpuHostCode(p, p.segments[0].host(), dram.data(), dram.size());
  ASSERT_TRUE(bool(e));
  EXPECT_EQ(llvm::toString(std::move(e)), "GPU disabled by SYSTOLE_NO_GPU");
}

} // namespace
