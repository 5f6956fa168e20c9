//===- IntMath.h - Saturating and 128-bit integer helpers -------*- C++ -*-===//
//
// Private to isa/lib: the helpers Timing.cpp and Footprint.cpp share.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_ISA_LIB_INTMATH_H
#define SYSTOLE_ISA_LIB_INTMATH_H

#include <cstdint>
#include <limits>

namespace systole::isa::detail {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
using u128 = unsigned __int128;
using i128 = __int128;

inline uint64_t sat(u128 v) {
  return v > kMax ? kMax : static_cast<uint64_t>(v);
}
inline uint64_t satAdd(uint64_t a, uint64_t b) { return sat(u128(a) + b); }
inline uint64_t satMul(uint64_t a, uint64_t b) { return sat(u128(a) * b); }
inline uint64_t ceilDiv(uint64_t a, uint64_t b) {
  return b ? a / b + (a % b != 0) : 0;
}
/// Floor division of a signed value by a positive one.
inline i128 floorDiv(i128 x, i128 y) {
  return x / y - ((x % y != 0) && (x < 0));
}

} // namespace systole::isa::detail

#endif // SYSTOLE_ISA_LIB_INTMATH_H
