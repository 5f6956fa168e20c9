//===- NpyTest.cpp - .npy reading and writing -----------------------------===//
#include "systole/Support/Npy.h"

#include "gtest/gtest.h"

using namespace systole;

namespace {

// Bytes NumPy 1.24 writes for np.save(f, np.array([[1, -2, 3], [4, 5, -6]],
// dtype=np.int8)): the header layout is NumPy's, not ours.
const char kNumpyInt8[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '|i1', 'fortran_order': False, 'shape': "
    "(2, 3), }"
    "                                                          "
    "\n\x01\xfe\x03\x04\x05\xfa";

TEST(Npy, ParsesWhatNumpyWrites) {
  llvm::StringRef bytes(kNumpyInt8, sizeof(kNumpyInt8) - 1);
  auto t = parseNpy(bytes, "numpy.npy");
  ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
  EXPECT_EQ(t->type(), ElementType::Int8);
  EXPECT_EQ(t->shape(), (std::vector<int64_t>{2, 3}));
  const int8_t *d = t->dataAs<int8_t>();
  EXPECT_EQ(d[1], -2);
  EXPECT_EQ(d[5], -6);
}

TEST(Npy, RoundTripsEveryType) {
  for (ElementType type :
       {ElementType::Int8, ElementType::UInt8, ElementType::Int16,
        ElementType::Int32, ElementType::Int64, ElementType::Float32,
        ElementType::Float64, ElementType::Bool}) {
    HostTensor t(type, {3, 1, 2});
    for (size_t i = 0; i < t.byteSize(); ++i)
      t.data()[i] = static_cast<uint8_t>(i * 37 + 1);
    std::string bytes = serializeNpy(t);
    // NumPy requires the data to start on a 64-byte boundary.
    EXPECT_EQ((bytes.size() - t.byteSize()) % 64, 0u);
    auto back = parseNpy(bytes, "rt.npy");
    ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
    EXPECT_EQ(back->type(), type);
    EXPECT_EQ(back->shape(), t.shape());
    EXPECT_EQ(0, std::memcmp(back->data(), t.data(), t.byteSize()));
  }
}

TEST(Npy, ScalarAndOneDimensionalShapes) {
  HostTensor scalar(ElementType::Float32, {});
  auto s = parseNpy(serializeNpy(scalar), "s.npy");
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->shape().empty());
  EXPECT_EQ(s->numElements(), 1);
  HostTensor vec(ElementType::Int32, {5});
  EXPECT_NE(serializeNpy(vec).find("(5,)"), std::string::npos);
}

std::string errorOf(llvm::StringRef bytes) {
  auto t = parseNpy(bytes, "bad.npy");
  EXPECT_FALSE(bool(t));
  return t ? "" : llvm::toString(t.takeError());
}

TEST(Npy, RejectsMalformedFilesByName) {
  EXPECT_NE(errorOf("hello").find("missing \\x93NUMPY magic"),
            std::string::npos);
  std::string good(kNumpyInt8, sizeof(kNumpyInt8) - 1);
  EXPECT_NE(errorOf(good.substr(0, good.size() - 1)).find("does not match"),
            std::string::npos);
  std::string bigEndian = good;
  bigEndian.replace(bigEndian.find("|i1"), 3, ">i4");
  EXPECT_NE(errorOf(bigEndian).find("unsupported dtype '>i4'"),
            std::string::npos);
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_NE(errorOf(fortran).find("Fortran-order"), std::string::npos);
  std::string huge = good;
  huge.replace(huge.find("(2, 3)"), 6, "(9999999999999, 9999999)");
  EXPECT_NE(errorOf(huge).find("too large"), std::string::npos);
  EXPECT_NE(errorOf(good.substr(0, 9)).find("magic"), std::string::npos);
}

} // namespace
