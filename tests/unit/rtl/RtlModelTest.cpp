//===- RtlModelTest.cpp - Whole models: RTL vs SystemC through the runtime ===//
//
// A model compiled by `systole compile` runs through the runtime (host
// segments natively) once with NPU segments on the SystemC model and once on
// the Verilated RTL: outputs bit-identical, every NPU instruction's fetch,
// start, end and channel cycles equal, total cycles equal, and the outputs
// equal to the ONNX Runtime reference.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/Runtime.h"
#include "systole/Support/Npy.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace systole;

namespace {

std::string compileModel(const std::string &onnx, const std::string &hw) {
  std::string dir = ::testing::TempDir();
  std::string out = dir + "/rtl-model-" + hw + ".npu";
  // SYSTOLE_CLI: another systole binary (e.g. while this build's is stale).
  const char *cli = std::getenv("SYSTOLE_CLI");
  std::string cmd =
      (cli ? std::string(cli) : std::string(SYSTOLE_BIN_DIR) + "/systole") +
      " compile " + onnx + " --hw " + hw + " -o " + out + " -q";
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "failed: " << cmd;
    return "";
  }
  return out;
}

bool sameBytes(const HostTensor &a, const HostTensor &b) {
  return a.byteSize() == b.byteSize() &&
         std::equal(a.data(), a.data() + a.byteSize(), b.data());
}

struct Run {
  rt::RunReport report;
  std::vector<HostTensor> outputs;
};

Run runModel(const rt::Model &m, sim::BackendKind backend,
             const HostTensor &input) {
  rt::SessionOptions opts;
  opts.backend = backend;
  rt::Session s(m, opts);
  Run r;
  if (auto e = s.setInput(m.inputs()[0].name, input)) {
    ADD_FAILURE() << llvm::toString(std::move(e));
    return r;
  }
  if (auto e = s.run()) {
    ADD_FAILURE() << llvm::toString(std::move(e));
    return r;
  }
  r.report = s.report();
  for (const auto &o : m.outputs()) {
    auto t = s.output(o.name);
    if (!t) {
      ADD_FAILURE() << llvm::toString(t.takeError());
      return r;
    }
    r.outputs.push_back(std::move(*t));
  }
  return r;
}

// `mustUse`: opcodes the compiled program must contain (counted in its NPU
// segments and printed), so that a test of their RTL engines cannot pass
// without running them.
void expectRtlEqualsCycle(const std::string &onnx, const std::string &hw,
                          const std::string &inputNpy,
                          const std::string &refNpy,
                          const std::vector<isa::Opcode> &mustUse = {}) {
  std::string npu = compileModel(onnx, hw);
  ASSERT_FALSE(npu.empty());
  auto m = rt::Model::loadFile(npu);
  ASSERT_TRUE(bool(m)) << llvm::toString(m.takeError());
  for (isa::Opcode op : mustUse) {
    uint64_t n = 0;
    for (const isa::Segment &s : (*m)->program().segments)
      if (s.isNpu())
        for (const isa::Instruction &I : s.npu().instructions)
          n += I.opcode() == op;
    std::printf("%s on %s: %llu %s\n", onnx.c_str(), hw.c_str(),
                (unsigned long long)n, isa::opcodeInfo(op).mnemonic);
    ASSERT_GT(n, 0u) << "no " << isa::opcodeInfo(op).mnemonic << " in " << onnx;
  }
  auto input = readNpy(inputNpy);
  ASSERT_TRUE(bool(input)) << llvm::toString(input.takeError());
  Run c = runModel(**m, sim::BackendKind::Cycle, *input);
  Run r = runModel(**m, sim::BackendKind::Rtl, *input);
  ASSERT_EQ(c.outputs.size(), r.outputs.size());
  ASSERT_FALSE(c.outputs.empty());
  for (size_t i = 0; i < c.outputs.size(); ++i)
    EXPECT_TRUE(sameBytes(c.outputs[i], r.outputs[i])) << "output " << i;
  auto ref = readNpy(refNpy);
  ASSERT_TRUE(bool(ref)) << llvm::toString(ref.takeError());
  EXPECT_TRUE(sameBytes(r.outputs[0], *ref)) << "RTL output vs ORT";
  EXPECT_EQ(c.report.total.totalCycles, r.report.total.totalCycles);
  ASSERT_EQ(c.report.segments.size(), r.report.segments.size());
  uint64_t compared = 0;
  for (size_t s = 0; s < c.report.segments.size(); ++s) {
    const auto &a = c.report.segments[s].stats.instructions;
    const auto &b = r.report.segments[s].stats.instructions;
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(c.report.segments[s].stats.totalCycles,
              r.report.segments[s].stats.totalCycles);
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].fetch, b[i].fetch) << "segment " << s << " #" << i;
      EXPECT_EQ(a[i].start, b[i].start) << "segment " << s << " #" << i;
      EXPECT_EQ(a[i].end, b[i].end) << "segment " << s << " #" << i;
      EXPECT_EQ(a[i].channelStart, b[i].channelStart) << "#" << i;
      EXPECT_EQ(a[i].channelEnd, b[i].channelEnd) << "#" << i;
      ++compared;
    }
  }
  EXPECT_GT(compared, 50u);
  std::printf("%s on %s: %llu instructions, %llu cycles, equal\n", onnx.c_str(),
              hw.c_str(), (unsigned long long)compared,
              (unsigned long long)r.report.total.totalCycles);
}

const std::string kDigits = SYSTOLE_SOURCE_DIR "/models/digits/";

} // namespace

TEST(RtlModel, DigitsQdqOnRtl8x8) {
  expectRtlEqualsCycle(kDigits + "digits_int8_qdq.onnx", "rtl-8x8",
                       kDigits + "inputs/input_0.npy",
                       kDigits + "ref_qdq/output_0.npy");
}

TEST(RtlModel, DigitsQopOnTiny4x4) {
  expectRtlEqualsCycle(kDigits + "digits_int8_qop.onnx", "tiny-4x4",
                       kDigits + "inputs/input_1.npy",
                       kDigits + "ref_qop/output_1.npy");
}

/// A zoo model of the cache (tools/setup.sh builds it and its ORT
/// reference; not committed): its QDQ form, first input and reference, and
/// the first of them that is missing (empty when none is).
struct CacheModel {
  std::string onnx, input, ref, missing;
};

static CacheModel cacheModel(const std::string &name) {
  const char *cache = std::getenv("SYSTOLE_MODEL_CACHE");
  std::string dir =
      std::string(cache ? cache : SYSTOLE_MODEL_CACHE) + "/" + name + "/";
  CacheModel m{dir + name + "_int8_qdq.onnx", dir + "inputs/input_0.npy",
               dir + "ref_qdq/output_0.npy", ""};
  for (const std::string &f : {m.onnx, m.input, m.ref})
    if (m.missing.empty() && !std::filesystem::exists(f))
      m.missing = f;
  return m;
}

// A missing cache file skips the test visibly (naming the file); anything
// else that goes wrong is a failure.
#define SKIP_IF_MISSING(m)                                                     \
  if (!(m).missing.empty())                                                    \
  GTEST_SKIP() << "model cache file missing: " << (m).missing                  \
               << " (run tools/setup.sh to build the model zoo and ORT "       \
                  "references into build/cache/models, or point "              \
                  "SYSTOLE_MODEL_CACHE at a cache that has them)"

// MobileNetV2 int8 on the 8x8 config: ~50 k instructions, 9.1 M cycles,
// about 1 min for compile + both backends (measured, docs/rtl.md).
TEST(RtlModel, MobileNetV2OnRtl8x8) {
  CacheModel m = cacheModel("mobilenet_v2");
  SKIP_IF_MISSING(m);
  expectRtlEqualsCycle(m.onnx, "rtl-8x8", m.input, m.ref);
}

// A two-layer transformer encoder (opset 17 LayerNormalization and
// Softmax, int8 QDQ) on the 8x8 config: its attention softmaxes and layer
// norms compile to VSOFTMAX and VLAYERNORM, asserted present, so the test
// runs both engines of the RTL against SystemC and ORT. From the model
// cache like MobileNetV2.
TEST(RtlModel, EncoderOpset17OnRtl8x8) {
  CacheModel m = cacheModel("encoder_opset17");
  SKIP_IF_MISSING(m);
  expectRtlEqualsCycle(m.onnx, "rtl-8x8", m.input, m.ref,
                       {isa::Opcode::Vsoftmax, isa::Opcode::Vlayernorm});
}

// The same encoder at opset 13: LayerNormalization is ReduceMean, Sub,
// Pow, ReduceMean, Add, Sqrt, Div between QDQ pairs, which the compiler
// runs as VREDUCE and VBINARY (asserted present) besides VSOFTMAX, so the
// test runs both new engines of the RTL on a real model against SystemC
// and ORT.
TEST(RtlModel, EncoderOpset13OnRtl8x8) {
  CacheModel m = cacheModel("encoder_opset13");
  SKIP_IF_MISSING(m);
  expectRtlEqualsCycle(m.onnx, "rtl-8x8", m.input, m.ref,
                       {isa::Opcode::Vbinary, isa::Opcode::Vreduce});
}
