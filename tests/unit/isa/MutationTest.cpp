//===- MutationTest.cpp - Random corruption never crashes the loader ------===//
#include "TestUtil.h"

#include <random>

using namespace systole::isa;
using namespace systole::isa::test;

// 10,000 random byte flips and truncations of a valid binary (fixed seed):
// each is either accepted (and then re-serializes) or rejected with a
// message. Run under SYSTOLE_SANITIZE=ON for the ASan/UBSan guarantee.
TEST(Mutation, TenThousandCorruptionsAreAcceptedOrRejectedWithAMessage) {
  const std::vector<uint8_t> valid = writeProgram(sampleProgram());
  ASSERT_TRUE(bool(readProgram(valid)));
  std::mt19937 rng(20240611);
  int accepted = 0, rejected = 0, flips = 0, truncations = 0;
  std::map<std::string, int> reasons;
  for (int iter = 0; iter < 10000; ++iter) {
    std::vector<uint8_t> bytes = valid;
    int kind = rng() % 4; // 0-1 flips, 2 truncation, 3 both
    if (kind != 2) {
      ++flips;
      int n = 1 + rng() % 4;
      for (int k = 0; k < n; ++k)
        bytes[rng() % bytes.size()] ^= uint8_t(1 + rng() % 255);
    }
    if (kind >= 2) {
      ++truncations;
      bytes.resize(rng() % bytes.size());
    }
    // A fresh, exactly sized allocation so ASan sees any overread.
    std::unique_ptr<uint8_t[]> buf(
        new uint8_t[bytes.size() ? bytes.size() : 1]);
    std::copy(bytes.begin(), bytes.end(), buf.get());
    auto p = readProgram(llvm::ArrayRef<uint8_t>(buf.get(), bytes.size()));
    if (p) {
      ++accepted;
      // An accepted program is fully usable.
      std::vector<uint8_t> again = writeProgram(*p);
      auto reread = readProgram(again);
      ASSERT_TRUE(bool(reread)) << llvm::toString(reread.takeError());
      EXPECT_TRUE(*reread == *p);
    } else {
      ++rejected;
      std::string msg = llvm::toString(p.takeError());
      ASSERT_FALSE(msg.empty());
      reasons[msg.substr(0, msg.find(':'))]++;
    }
  }
  std::printf("[ mutation ] %d mutations (%d with flips, %d with truncation): "
              "%d accepted, %d "
              "rejected\n",
              accepted + rejected, flips, truncations, accepted, rejected);
  int shown = 0;
  for (auto &[reason, count] : reasons)
    if (shown++ < 8)
      std::printf("[ mutation ]   %5d x %s\n", count, reason.c_str());
  EXPECT_EQ(accepted + rejected, 10000);
  EXPECT_GT(rejected, 0);
  EXPECT_GT(accepted, 0); // flips in e.g. constant bytes are legitimately valid
}
