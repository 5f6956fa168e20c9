//===- RuntimeTest.cpp - Runtime API, builtin host kernels, C API ---------===//
#include "systole/Runtime/Runtime.h"
#include "systole/Runtime/HostKernels.h"
#include "systole/Runtime/systole_runtime.h"

#include "systole/ISA/HwConfig.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace systole;
using namespace systole::rt;

// QuantizeLinear as ORT's x86 MLAS evaluates it: fl(x / scale), clamp, RNE,
// + zp. Ties are checked on values whose quotient is exact.
TEST(HostKernels, QuantizeRoundsHalfToEvenBeforeTheZeroPoint) {
  // scale 0.5: x / 0.5 exactly 2x.
  EXPECT_EQ(quantizeLinear(0.25f, 0.5f, 0, -128, 127), 0);   // 0.5 -> 0
  EXPECT_EQ(quantizeLinear(0.75f, 0.5f, 0, -128, 127), 2);   // 1.5 -> 2
  EXPECT_EQ(quantizeLinear(1.25f, 0.5f, 0, -128, 127), 2);   // 2.5 -> 2
  EXPECT_EQ(quantizeLinear(-0.25f, 0.5f, 0, -128, 127), 0);  // -0.5 -> -0
  EXPECT_EQ(quantizeLinear(-0.75f, 0.5f, 0, -128, 127), -2); // -1.5 -> -2
  EXPECT_EQ(quantizeLinear(-1.25f, 0.5f, 0, -128, 127), -2); // -2.5 -> -2
  // The zero point is added after rounding: rne(2.5) + 3 = 5, not rne(5.5) = 6.
  EXPECT_EQ(quantizeLinear(1.25f, 0.5f, 3, -128, 127), 5);
  // Division by 3 (not a multiplication by fl(1/3)): 7.5 / 3 = 2.5 -> 2,
  // 10.5 / 3 = 3.5 -> 4.
  EXPECT_EQ(quantizeLinear(7.5f, 3.0f, 0, -128, 127), 2);
  EXPECT_EQ(quantizeLinear(10.5f, 3.0f, 0, -128, 127), 4);
  // Saturation, uint8 range, infinities and NaN (MLAS max/min order: NaN
  // becomes the lower bound).
  EXPECT_EQ(quantizeLinear(1000.f, 0.5f, 0, -128, 127), 127);
  EXPECT_EQ(quantizeLinear(-1000.f, 0.5f, 0, -128, 127), -128);
  EXPECT_EQ(quantizeLinear(-5.f, 1.0f, 10, 0, 255), 5);
  EXPECT_EQ(quantizeLinear(-50.f, 1.0f, 10, 0, 255), 0);
  EXPECT_EQ(quantizeLinear(127.5f, 0.5f, 0, 0, 255), 255);
  EXPECT_EQ(
      quantizeLinear(std::numeric_limits<float>::infinity(), 1.f, 0, -128, 127),
      127);
  EXPECT_EQ(quantizeLinear(std::nanf(""), 1.f, 7, -128, 127), -128);
  EXPECT_EQ(quantizeLinear(std::nanf(""), 1.f, 7, 0, 255), 0);
}

TEST(HostKernels, Dequantize) {
  EXPECT_EQ(dequantizeLinear(-128, 0.5f, 3), -65.5f);
  EXPECT_EQ(dequantizeLinear(255, 0.25f, 128), 31.75f);
}

namespace {
isa::HwConfig tinyConfig() {
  auto cfg =
      isa::loadHwConfigFile(std::string(SYSTOLE_PRESET_DIR) + "/tiny-4x4.json");
  EXPECT_TRUE(bool(cfg));
  return *cfg;
}

isa::TensorDesc tensor(std::string name, isa::TensorKind kind, isa::DType dt,
                       std::vector<int64_t> shape, uint64_t offset,
                       std::optional<isa::QuantParams> q = std::nullopt) {
  isa::TensorDesc t;
  t.name = std::move(name);
  t.kind = kind;
  t.dtype = dt;
  t.shape = shape;
  t.quant = q;
  t.dramOffset = offset;
  uint64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  t.sizeBytes = n * isa::dtypeBytes(dt);
  return t;
}

isa::Segment builtin(std::string entry, uint32_t in, uint32_t out,
                     std::vector<int64_t> params = {}) {
  isa::HostSegment h;
  h.kind = isa::HostCodeKind::Builtin;
  h.entry = entry;
  h.args = {in, out};
  h.params = std::move(params);
  return {entry, h};
}

// x (float, NHWC 1x2x2x3) -quantize-> q (int8, scale 0.5, zp 1) -NPU-> (END
// only) -transpose to NCHW-> t (1x3x2x2, output) -dequantize-> y (output).
isa::Program boundaryProgram() {
  isa::Program p;
  p.producer = "RuntimeTest";
  p.config = tinyConfig();
  p.memoryPlan.dramSize = 4096;
  isa::QuantParams qp;
  qp.scales = {0.5f};
  qp.zeroPoints = {1};
  p.tensors = {
      tensor("x", isa::TensorKind::Input, isa::DType::Float32, {1, 2, 2, 3}, 0),
      tensor("q", isa::TensorKind::Intermediate, isa::DType::Int8, {1, 2, 2, 3},
             64, qp),
      tensor("t", isa::TensorKind::Output, isa::DType::Int8, {1, 3, 2, 2}, 128,
             qp),
      tensor("y", isa::TensorKind::Output, isa::DType::Float32, {1, 3, 2, 2},
             192)};
  isa::NpuSegment npu;
  npu.instructions = {isa::Instruction(isa::Opcode::End)};
  p.segments = {builtin("quantize", 0, 1),
                {"npu", npu},
                builtin("transpose", 1, 2, {0, 3, 1, 2}),
                builtin("dequantize", 2, 3)};
  return p;
}

HostTensor floatInput() {
  HostTensor x(ElementType::Float32, {1, 2, 2, 3});
  float *v = x.dataAs<float>();
  for (int i = 0; i < 12; ++i)
    v[i] = 0.25f * float(i) - 1.0f; // -1, -0.75, ..., 1.75
  return x;
}
} // namespace

TEST(Runtime, BuiltinHostSegmentsAroundAnNpuSegment) {
  auto model = Model::loadBytes(isa::writeProgram(boundaryProgram()));
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  ASSERT_EQ((*model)->inputs().size(), 1u);
  EXPECT_EQ((*model)->inputs()[0].describe(), "1x2x2x3xfloat32");
  ASSERT_EQ((*model)->outputs().size(), 2u);
  for (sim::BackendKind b :
       {sim::BackendKind::Functional, sim::BackendKind::Cycle}) {
    SessionOptions o;
    o.backend = b;
    Session s(**model, o);
    ASSERT_FALSE(bool(s.setInput("x", floatInput())));
    llvm::Error e = s.run();
    ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));
    auto t = s.output("t");
    ASSERT_TRUE(bool(t));
    EXPECT_EQ(t->describe(), "1x3x2x2xint8");
    // q[i] = rne((0.25 i - 1) / 0.5) + 1 = rne(0.5 i - 2) + 1, i = 0..11:
    // rne(-2)=-2 -> -1; rne(-1.5)=-2 -> -1;
    // rne(-1)=-1 -> 0; rne(-0.5)=-0 -> 1; rne(0)=0 -> 1; rne(0.5)=0 -> 1;
    // rne(1)=1 -> 2; rne(1.5)=2 -> 3; rne(2)=2 -> 3; rne(2.5)=2 -> 3;
    // rne(3)=3 -> 4; rne(3.5)=4 -> 5.
    int8_t q[12] = {-1, -1, 0, 1, 1, 1, 2, 3, 3, 3, 4, 5};
    // NHWC (h, w, c) index = (h*2 + w)*3 + c -> NCHW t[c][h][w].
    const int8_t *tv = t->dataAs<int8_t>();
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 2; ++w)
          EXPECT_EQ(tv[(c * 2 + h) * 2 + w], q[(h * 2 + w) * 3 + c])
              << c << h << w;
    auto y = s.output("y");
    ASSERT_TRUE(bool(y));
    for (int i = 0; i < 12; ++i)
      EXPECT_EQ(y->dataAs<float>()[i], float(tv[i] - 1) * 0.5f);
    EXPECT_EQ(s.report().segments.size(), 4u);
    EXPECT_EQ(s.report().segments[0].hostKernel, "quantize");
  }
}

// The quantize with a permutation (params) the compiler emits for a
// model's float input followed by its layout transpose: the same bytes as
// quantize then transpose, without the intermediate tensor; dequantize
// refuses a permutation, and one that does not match the shapes is
// rejected at load.
TEST(Runtime, QuantizeWithAPermutationIsQuantizeThenTranspose) {
  isa::Program p = boundaryProgram();
  p.segments = {builtin("quantize", 0, 2, {0, 3, 1, 2}),
                {"npu", p.segments[1].npu()},
                builtin("dequantize", 2, 3)};
  auto model = Model::loadBytes(isa::writeProgram(p));
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  auto two = Model::loadBytes(isa::writeProgram(boundaryProgram()));
  ASSERT_TRUE(bool(two));
  Session fused(**model), separate(**two);
  ASSERT_FALSE(bool(fused.setInput("x", floatInput())));
  ASSERT_FALSE(bool(separate.setInput("x", floatInput())));
  ASSERT_FALSE(bool(fused.run()));
  ASSERT_FALSE(bool(separate.run()));
  auto a = fused.output("t"), b = separate.output("t");
  ASSERT_TRUE(bool(a) && bool(b));
  const int8_t *av = a->dataAs<int8_t>(), *bv = b->dataAs<int8_t>();
  // Hand-derived (BuiltinHostSegmentsAroundAnNpuSegment): NCHW of q.
  int8_t want[12] = {-1, 1, 2, 3, -1, 1, 3, 4, 0, 1, 3, 5};
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(av[i], want[i]) << i;
    EXPECT_EQ(av[i], bv[i]) << i;
  }
  isa::Program bad = p;
  bad.segments[0] = builtin("quantize", 0, 2, {0, 1, 2, 3});
  auto m = Model::loadBytes(isa::writeProgram(bad));
  ASSERT_FALSE(bool(m));
  EXPECT_EQ(llvm::toString(m.takeError()),
            "segments[0] 'quantize' (builtin quantize): output shape[1] = 3 "
            "but input shape[1] = 2");
  bad.segments[0] = builtin("quantize", 0, 1);
  bad.segments[2] = builtin("dequantize", 1, 3, {0, 3, 1, 2});
  m = Model::loadBytes(isa::writeProgram(bad));
  ASSERT_FALSE(bool(m));
  EXPECT_EQ(llvm::toString(m.takeError()),
            "segments[2] 'dequantize' (builtin dequantize): only quantize "
            "takes a permutation");
}

TEST(Runtime, InputChecksNameTheProblem) {
  auto model = Model::loadBytes(isa::writeProgram(boundaryProgram()));
  ASSERT_TRUE(bool(model));
  Session s(**model);
  HostTensor wrongShape(ElementType::Float32, {1, 3, 2, 2});
  EXPECT_EQ(llvm::toString(s.setInput("x", wrongShape)),
            "input 'x': expected 1x2x2x3xfloat32, got 1x3x2x2xfloat32");
  HostTensor wrongType(ElementType::Int8, {1, 2, 2, 3});
  EXPECT_EQ(llvm::toString(s.setInput("x", wrongType)),
            "input 'x': expected 1x2x2x3xfloat32, got 1x2x2x3xint8");
  EXPECT_EQ(llvm::toString(s.setInput("z", floatInput())),
            "no input named 'z' (inputs: x)");
  EXPECT_EQ(llvm::toString(s.run()),
            "input 'x' (1x2x2x3xfloat32) is not bound");
  EXPECT_FALSE(bool(s.output("t"))) << "no outputs before a successful run";
  auto missing = s.output("t");
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "no outputs: the session has not run successfully");
}

TEST(Runtime, CorruptOrOversizedBinariesAreRejected) {
  std::vector<uint8_t> bytes = isa::writeProgram(boundaryProgram());
  std::vector<uint8_t> truncated(bytes.begin(),
                                 bytes.begin() + bytes.size() / 2);
  auto m = Model::loadBytes(truncated);
  ASSERT_FALSE(bool(m));
  EXPECT_NE(llvm::toString(m.takeError()).find("invalid .npu: "),
            std::string::npos);
  std::vector<uint8_t> garbage(256, 0xab);
  m = Model::loadBytes(garbage);
  ASSERT_FALSE(bool(m));
  llvm::consumeError(m.takeError());
  Limits small;
  small.maxDramBytes = 1024;
  m = Model::loadBytes(bytes, small);
  ASSERT_FALSE(bool(m));
  EXPECT_EQ(
      llvm::toString(m.takeError()),
      "memory_plan.dram_size 4096 exceeds the runtime limit of 1024 bytes");
  Limits tiny;
  tiny.maxTensorBytes = 16;
  m = Model::loadBytes(bytes, tiny);
  ASSERT_FALSE(bool(m));
  EXPECT_EQ(llvm::toString(m.takeError()),
            "tensor 'x': 48 bytes exceeds the runtime limit of 16 bytes");
  // A builtin whose tensors do not fit its kernel.
  isa::Program p = boundaryProgram();
  p.segments[2] = builtin("transpose", 1, 2, {0, 1, 2, 3});
  m = Model::loadBytes(isa::writeProgram(p));
  ASSERT_FALSE(bool(m));
  EXPECT_EQ(llvm::toString(m.takeError()),
            "segments[2] 'transpose' (builtin transpose): output shape[1] = 3 "
            "but input "
            "shape[1] = 2");
}

TEST(Runtime, InProcessProgramsAreCheckedLikeLoadedOnes) {
  // fromProgram: no bytes, but the verifier and the limits as in loadBytes.
  auto model = Model::fromProgram(boundaryProgram());
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  EXPECT_EQ((*model)->inputs().size(), 1u);
  isa::Program unverified = boundaryProgram();
  unverified.segments.clear();
  auto m = Model::fromProgram(unverified);
  ASSERT_FALSE(bool(m));
  EXPECT_EQ(llvm::toString(m.takeError()),
            "invalid .npu: segments: a program needs at least one segment");
  Limits small;
  small.maxDramBytes = 1024;
  m = Model::fromProgram(boundaryProgram(), small);
  ASSERT_FALSE(bool(m));
  EXPECT_EQ(
      llvm::toString(m.takeError()),
      "memory_plan.dram_size 4096 exceeds the runtime limit of 1024 bytes");
}

TEST(RuntimeCApi, LoadRunAndErrors) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("capi", "npu", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    std::vector<uint8_t> bytes = isa::writeProgram(boundaryProgram());
    os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  }
  systole_model *model = nullptr;
  ASSERT_EQ(systole_model_load(path.c_str(), nullptr, &model), 0)
      << systole_last_error();
  ASSERT_EQ(systole_model_num_inputs(model), 1u);
  systole_tensor_info info;
  ASSERT_EQ(systole_model_input(model, 0, &info), 0);
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.dtype, SYSTOLE_DTYPE_FLOAT32);
  EXPECT_EQ(info.rank, 4u);
  EXPECT_EQ(info.shape[3], 3);
  systole_session *s = nullptr;
  ASSERT_EQ(systole_session_create(model, SYSTOLE_BACKEND_CYCLE, &s), 0);
  HostTensor x = floatInput();
  int64_t wrong[4] = {1, 2, 3, 2};
  EXPECT_NE(systole_session_set_input(s, "x", SYSTOLE_DTYPE_FLOAT32, wrong, 4,
                                      x.data(), 48),
            0);
  EXPECT_STREQ(systole_last_error(),
               "input 'x': expected 1x2x2x3xfloat32, got 1x2x3x2xfloat32");
  int64_t shape[4] = {1, 2, 2, 3};
  ASSERT_EQ(systole_session_set_input(s, "x", SYSTOLE_DTYPE_FLOAT32, shape, 4,
                                      x.data(), 48),
            0);
  ASSERT_EQ(systole_session_run(s), 0) << systole_last_error();
  int8_t t[12];
  EXPECT_NE(systole_session_get_output(s, "t", t, 4), 0);
  ASSERT_EQ(systole_session_get_output(s, "t", t, sizeof t), 0);
  EXPECT_EQ(t[0], -1); // c0 h0 w0 = q[0]
  EXPECT_EQ(t[11], 5); // c2 h1 w1 = q[11]
  systole_stats st;
  ASSERT_EQ(systole_session_stats(s, &st), 0);
  // END alone: fetched in cycle 0 (1 cycle); the host segments' transfers
  // on tiny-4x4 (4 B/cycle, latency 10; ceil(bytes / 4) + 2 x 10 each, no
  // operation counts in this hand-built program): quantize 48 + 12 bytes
  // 35, transpose 12 + 12 bytes 26, dequantize 12 + 48 bytes 35.
  EXPECT_EQ(st.total_cycles, 1u + 35 + 26 + 35);
  EXPECT_NE(
      std::string(systole_session_report_json(s)).find("\"total_cycles\":97"),
      std::string::npos);
  systole_session_free(s);
  systole_model_free(model);
  EXPECT_NE(systole_model_load("/nonexistent.npu", nullptr, &model), 0);
  EXPECT_NE(std::string(systole_last_error()).find("/nonexistent.npu"),
            std::string::npos);
  llvm::sys::fs::remove(path);
}
