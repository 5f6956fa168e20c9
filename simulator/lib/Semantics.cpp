//===- Semantics.cpp - Integer semantics of every NPU instruction ---------===//
//
// docs/isa.md is the law; each function below cites the rule it implements.
// int32 arithmetic wraps (two's complement), done in uint32 to stay defined.
//
//===----------------------------------------------------------------------===//
#include "systole/Simulator/Semantics.h"

#include "systole/ISA/Footprint.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace systole;
using namespace systole::sim;
using isa::Field;
using isa::Instruction;
using isa::Opcode;
using F = Field;

ActionCounts &ActionCounts::operator+=(const ActionCounts &o) {
  macs += o.macs;
  vectorMacs += o.vectorMacs;
  vectorOps += o.vectorOps;
  spReadBytes += o.spReadBytes;
  spWriteBytes += o.spWriteBytes;
  accReadWords += o.accReadWords;
  accWriteWords += o.accWriteWords;
  dramReadBytes += o.dramReadBytes;
  dramWriteBytes += o.dramWriteBytes;
  hostOps += o.hostOps;
  hostBytes += o.hostBytes;
  return *this;
}

//===----------------------------------------------------------------------===//
// Numeric helpers (docs/isa.md §4-5)
//===----------------------------------------------------------------------===//

static float f32(int32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

//===----------------------------------------------------------------------===//
// Action counts
//===----------------------------------------------------------------------===//

ActionCounts sim::countActions(const Instruction &I, const isa::HwConfig &cfg) {
  (void)cfg;
  ActionCounts c;
  auto U = [&](Field f) { return I.raw(f); };
  switch (I.opcode()) {
  case Opcode::Load: {
    uint64_t elem = U(F::Load_elem_bytes);
    uint64_t rows = U(F::Load_pad_top) + U(F::Load_n2) + U(F::Load_pad_bottom);
    uint64_t cols = U(F::Load_pad_left) + U(F::Load_n1) + U(F::Load_pad_right);
    uint64_t elems = U(F::Load_n3) * rows * cols * U(F::Load_n0);
    c.dramReadBytes =
        U(F::Load_n3) * U(F::Load_n2) * U(F::Load_n1) * U(F::Load_n0) * elem;
    if (U(F::Load_sram) == isa::Memory_acc)
      c.accWriteWords = elems;
    else
      c.spWriteBytes = elems * elem;
    break;
  }
  case Opcode::Store: {
    uint64_t elem = U(F::Store_elem_bytes);
    uint64_t elems =
        U(F::Store_n3) * U(F::Store_n2) * U(F::Store_n1) * U(F::Store_n0);
    c.dramWriteBytes = elems * elem;
    if (U(F::Store_sram) == isa::Memory_acc)
      c.accReadWords = elems;
    else
      c.spReadBytes = elems * elem;
    break;
  }
  case Opcode::Matmul: {
    uint64_t M = U(F::Matmul_m), K = U(F::Matmul_k), N = U(F::Matmul_n);
    bool ws = U(F::Matmul_dataflow) == isa::Dataflow_ws;
    c.macs = M * K * N;
    c.spReadBytes = M * K + ((!ws || I.getFlag(F::Matmul_preload)) ? K * N : 0);
    c.accWriteWords = M * N;
    c.accReadWords = I.getFlag(F::Matmul_accumulate) ? M * N : 0;
    break;
  }
  case Opcode::Requant: {
    uint64_t M = U(F::Requant_m), N = U(F::Requant_n);
    c.vectorOps = M * N;
    c.accReadWords = M * N + (I.getFlag(F::Requant_per_tensor) ? 1 : N) +
                     (I.getFlag(F::Requant_bias) ? N : 0);
    c.spWriteBytes = M * N;
    c.spReadBytes = I.getFlag(F::Requant_lut) ? M * N : 0;
    break;
  }
  case Opcode::Vadd:
  case Opcode::Vmul:
  case Opcode::Vbinary: {
    isa::ElementwiseFields e = *isa::elementwiseFields(I.opcode());
    uint64_t n0 = U(e.n0), n1 = U(e.n1);
    bool ab = I.getFlag(e.aBcast), bb = I.getFlag(e.bBcast);
    // VBINARY: two dequantizations, the operation and the quantization.
    c.vectorOps = (I.opcode() == Opcode::Vbinary ? 4 : 1) * n0 * n1;
    c.spReadBytes = (ab ? 1 : n0) * n1;
    if (isa::elementwiseBInAcc(I))
      c.accReadWords = (bb ? 1 : n0) * n1;
    else
      c.spReadBytes += (bb ? 1 : n0) * n1;
    c.spWriteBytes = n0 * n1;
    break;
  }
  case Opcode::Vreduce: {
    // One pass over A: a dequantization and an add per element.
    uint64_t L = U(F::Vreduce_n0) * U(F::Vreduce_n1);
    c.vectorOps = 2 * L;
    c.spReadBytes = L;
    c.spWriteBytes = U(F::Vreduce_n1);
    break;
  }
  case Opcode::Vlut: {
    uint64_t L = U(F::Vlut_n0) * U(F::Vlut_n1);
    c.vectorOps = L;
    c.spReadBytes = 2 * L;
    c.spWriteBytes = L;
    break;
  }
  case Opcode::Vsoftmax: {
    // Three passes over A (maximum, sum, outputs), two table reads.
    uint64_t L = U(F::Vsoftmax_n0) * U(F::Vsoftmax_n1);
    c.vectorOps = 3 * L;
    c.spReadBytes = 3 * L;
    c.accReadWords = 2 * L;
    c.spWriteBytes = L;
    break;
  }
  case Opcode::Vlayernorm: {
    // Two passes over A; gamma (and beta) read once per element.
    uint64_t L = U(F::Vlayernorm_n0) * U(F::Vlayernorm_n1);
    c.vectorOps = 8 * L;
    c.spReadBytes = 2 * L;
    c.accReadWords = (I.getFlag(F::Vlayernorm_bias) ? 2 : 1) * L;
    c.spWriteBytes = L;
    break;
  }
  case Opcode::Pool: {
    uint64_t window = U(F::Pool_kh) * U(F::Pool_kw);
    uint64_t outs = U(F::Pool_oh) * U(F::Pool_ow) * U(F::Pool_ch);
    c.vectorOps = outs * window;
    c.spReadBytes = outs * window;
    c.spWriteBytes = outs;
    break;
  }
  case Opcode::Dwconv: {
    uint64_t window = U(F::Dwconv_kh) * U(F::Dwconv_kw);
    uint64_t outs = U(F::Dwconv_oh) * U(F::Dwconv_ow) * U(F::Dwconv_ch);
    c.vectorMacs = outs * window;
    c.spReadBytes = 2 * outs * window;
    c.accWriteWords = outs;
    c.accReadWords = I.getFlag(F::Dwconv_accumulate) ? outs : 0;
    break;
  }
  case Opcode::Fence:
  case Opcode::End:
    break;
  }
  return c;
}

//===----------------------------------------------------------------------===//
// Fault checks
//===----------------------------------------------------------------------===//

std::optional<Fault> sim::checkInstruction(const Instruction &I,
                                           const MachineState &S) {
  for (const isa::Access &a : isa::accessRanges(I)) {
    uint64_t cap = a.space == isa::MemSpace::Dram ? S.dram.size()
                   : a.space == isa::MemSpace::Scratchpad
                       ? S.scratchpad.size()
                       : S.accumulator.size();
    if (a.end <= cap)
      continue;
    Fault f;
    f.kind = a.space == isa::MemSpace::Dram ? FaultKind::DramOutOfRange
                                            : FaultKind::SramOutOfRange;
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "operand %s %s %s [0x%llx, 0x%llx) outside its %llu %s",
                  a.operand, a.write ? "writes" : "reads",
                  isa::memSpaceName(a.space).data(),
                  (unsigned long long)a.begin, (unsigned long long)a.end,
                  (unsigned long long)cap,
                  a.space == isa::MemSpace::Accumulator ? "words" : "bytes");
    f.detail = buf;
    return f;
  }
  if (I.opcode() == Opcode::Matmul &&
      I.raw(F::Matmul_dataflow) == isa::Dataflow_ws &&
      !I.getFlag(F::Matmul_preload) &&
      (!S.weightsLoaded || S.weightRows != I.raw(F::Matmul_k) ||
       S.weightCols != I.raw(F::Matmul_n))) {
    Fault f;
    f.kind = FaultKind::WeightReuseMismatch;
    f.detail =
        S.weightsLoaded
            ? "ws matmul with preload=0 has K=" +
                  std::to_string(I.raw(F::Matmul_k)) +
                  " N=" + std::to_string(I.raw(F::Matmul_n)) +
                  " but the array holds K=" + std::to_string(S.weightRows) +
                  " N=" + std::to_string(S.weightCols)
            : "ws matmul with preload=0 but no weights are in the array";
    return f;
  }
  return std::nullopt;
}

void sim::noteIssue(const Instruction &I, MachineState &S) {
  if (I.opcode() != Opcode::Matmul)
    return;
  if (I.raw(F::Matmul_dataflow) != isa::Dataflow_ws) {
    S.weightsLoaded = false; // OS uses the PE registers for partial sums
  } else if (I.getFlag(F::Matmul_preload)) {
    S.weightsLoaded = true;
    S.weightRows = static_cast<uint32_t>(I.raw(F::Matmul_k));
    S.weightCols = static_cast<uint32_t>(I.raw(F::Matmul_n));
  }
}

//===----------------------------------------------------------------------===//
// DMA
//===----------------------------------------------------------------------===//

static void executeLoad(const Instruction &I, MachineState &S) {
  auto U = [&](Field f) { return I.raw(f); };
  const bool acc = U(F::Load_sram) == isa::Memory_acc;
  const uint64_t elem = U(F::Load_elem_bytes);
  const uint64_t n0 = U(F::Load_n0), n1 = U(F::Load_n1), n2 = U(F::Load_n2),
                 n3 = U(F::Load_n3);
  const uint64_t padT = U(F::Load_pad_top), padB = U(F::Load_pad_bottom),
                 padL = U(F::Load_pad_left), padR = U(F::Load_pad_right);
  const uint64_t rows = padT + n2 + padB, cols = padL + n1 + padR;
  const uint8_t flip = I.getFlag(F::Load_u8_to_i8) ? 0x80 : 0;
  const int32_t pad = static_cast<int32_t>(I.get(F::Load_pad_value));
  const uint64_t runBytes = n0 * elem;
  // Padding element pattern: pad_value sign-extended to elem bytes.
  uint8_t padElem[4];
  std::memcpy(padElem, &pad, 4);
  for (uint64_t i3 = 0; i3 < n3; ++i3)
    for (uint64_t y = 0; y < rows; ++y)
      for (uint64_t x = 0; x < cols; ++x) {
        uint64_t dst = U(F::Load_sram_addr) + i3 * U(F::Load_t3) +
                       y * U(F::Load_t2) + x * U(F::Load_t1);
        bool real = y >= padT && y < padT + n2 && x >= padL && x < padL + n1;
        if (real) {
          uint64_t src = U(F::Load_dram_addr) + i3 * U(F::Load_s3) +
                         (y - padT) * U(F::Load_s2) +
                         (x - padL) * U(F::Load_s1);
          const uint8_t *from = S.dram.data() + src;
          if (acc) {
            std::memcpy(S.accumulator.data() + dst, from, runBytes);
          } else if (flip) {
            uint8_t *to = S.scratchpad.data() + dst;
            for (uint64_t b = 0; b < runBytes; ++b)
              to[b] = from[b] ^ flip;
          } else {
            std::memmove(S.scratchpad.data() + dst, from, runBytes);
          }
        } else if (acc) {
          std::fill_n(S.accumulator.data() + dst, n0, pad);
        } else {
          uint8_t *to = S.scratchpad.data() + dst;
          for (uint64_t e = 0; e < n0; ++e)
            std::memcpy(to + e * elem, padElem, elem);
        }
      }
}

static void executeStore(const Instruction &I, MachineState &S) {
  auto U = [&](Field f) { return I.raw(f); };
  const bool acc = U(F::Store_sram) == isa::Memory_acc;
  const uint64_t runBytes = U(F::Store_n0) * U(F::Store_elem_bytes);
  const uint8_t flip = I.getFlag(F::Store_i8_to_u8) ? 0x80 : 0;
  for (uint64_t i3 = 0; i3 < U(F::Store_n3); ++i3)
    for (uint64_t i2 = 0; i2 < U(F::Store_n2); ++i2)
      for (uint64_t i1 = 0; i1 < U(F::Store_n1); ++i1) {
        uint64_t src = U(F::Store_sram_addr) + i3 * U(F::Store_t3) +
                       i2 * U(F::Store_t2) + i1 * U(F::Store_t1);
        uint64_t dst = U(F::Store_dram_addr) + i3 * U(F::Store_s3) +
                       i2 * U(F::Store_s2) + i1 * U(F::Store_s1);
        uint8_t *to = S.dram.data() + dst;
        const uint8_t *from =
            acc ? reinterpret_cast<const uint8_t *>(S.accumulator.data() + src)
                : S.scratchpad.data() + src;
        std::memmove(to, from, runBytes);
        if (flip)
          for (uint64_t b = 0; b < runBytes; ++b)
            to[b] ^= flip;
      }
}

//===----------------------------------------------------------------------===//
// Systolic array
//===----------------------------------------------------------------------===//

// A(m, k) sits at a_addr + (m / a_m_inner) * a_m_outer_stride
//   + (m % a_m_inner) * a_m_inner_stride + (kk / a_k_inner) * a_k_outer_stride
//   + kk % a_k_inner, with kk = a_k_offset + k (implicit im2col).
static void executeMatmul(const Instruction &I, MachineState &S) {
  auto U = [&](Field f) { return I.raw(f); };
  const uint64_t M = U(F::Matmul_m), K = U(F::Matmul_k), N = U(F::Matmul_n);
  const int32_t aZp = static_cast<int32_t>(I.get(F::Matmul_a_zp));
  const int32_t bZp = static_cast<int32_t>(I.get(F::Matmul_b_zp));
  const bool ws = U(F::Matmul_dataflow) == isa::Dataflow_ws;
  const uint8_t *sp = S.scratchpad.data();

  // B (K x N) as raw int8: from the array's weight registers for a WS reuse,
  // otherwise streamed from SP (and latched into the array for WS preload).
  std::vector<int8_t> bRaw(K * N);
  if (ws && !I.getFlag(F::Matmul_preload)) {
    bRaw = S.weights;
  } else {
    for (uint64_t k = 0; k < K; ++k)
      std::memcpy(&bRaw[k * N],
                  sp + U(F::Matmul_b_addr) + k * U(F::Matmul_b_stride), N);
    // The block's shape (the weight-reuse check) changed at issue
    // (noteIssue); its values change here, in program order.
    if (ws)
      S.weights = bRaw;
  }
  std::vector<int32_t> b(K * N);
  for (uint64_t i = 0; i < K * N; ++i)
    b[i] = int32_t(bRaw[i]) - bZp;

  // Column offsets of A within a row, once per instruction.
  const uint64_t ki = U(F::Matmul_a_k_inner),
                 kos = U(F::Matmul_a_k_outer_stride),
                 koff = U(F::Matmul_a_k_offset);
  std::vector<uint64_t> colOff(K);
  for (uint64_t k = 0; k < K; ++k)
    colOff[k] = ((koff + k) / ki) * kos + (koff + k) % ki;
  const uint64_t mi = U(F::Matmul_a_m_inner),
                 mis = U(F::Matmul_a_m_inner_stride),
                 mos = U(F::Matmul_a_m_outer_stride);
  const bool accumulate = I.getFlag(F::Matmul_accumulate);

  std::vector<uint32_t> row(N);
  for (uint64_t m = 0; m < M; ++m) {
    const uint8_t *aRow =
        sp + U(F::Matmul_a_addr) + (m / mi) * mos + (m % mi) * mis;
    std::fill(row.begin(), row.end(), 0u);
    for (uint64_t k = 0; k < K; ++k) {
      uint32_t a =
          static_cast<uint32_t>(int32_t(int8_t(aRow[colOff[k]])) - aZp);
      const int32_t *bk = &b[k * N];
      for (uint64_t n = 0; n < N; ++n)
        row[n] += a * static_cast<uint32_t>(bk[n]);
    }
    int32_t *c =
        S.accumulator.data() + U(F::Matmul_c_addr) + m * U(F::Matmul_c_stride);
    for (uint64_t n = 0; n < N; ++n)
      c[n] = static_cast<int32_t>(
          row[n] + (accumulate ? static_cast<uint32_t>(c[n]) : 0u));
  }
}

//===----------------------------------------------------------------------===//
// Post-processor
//===----------------------------------------------------------------------===//

static void executeRequant(const Instruction &I, MachineState &S) {
  auto U = [&](Field f) { return I.raw(f); };
  const uint64_t M = U(F::Requant_m), N = U(F::Requant_n);
  const int32_t zp = static_cast<int32_t>(I.get(F::Requant_zp));
  const int32_t lo = static_cast<int32_t>(I.get(F::Requant_lo));
  const int32_t hi = static_cast<int32_t>(I.get(F::Requant_hi));
  const bool perTensor = I.getFlag(F::Requant_per_tensor);
  const bool lut = I.getFlag(F::Requant_lut);
  const int32_t *scales = S.accumulator.data() + U(F::Requant_scale_addr);
  const int32_t *bias = I.getFlag(F::Requant_bias)
                            ? S.accumulator.data() + U(F::Requant_bias_addr)
                            : nullptr;
  // The LUT is read once at the start, as the hardware latches it.
  uint8_t table[256];
  if (lut)
    std::memcpy(table, S.scratchpad.data() + U(F::Requant_lut_addr), 256);
  for (uint64_t m = 0; m < M; ++m) {
    const int32_t *c = S.accumulator.data() + U(F::Requant_c_addr) +
                       m * U(F::Requant_c_stride);
    uint8_t *o =
        S.scratchpad.data() + U(F::Requant_o_addr) + m * U(F::Requant_o_stride);
    for (uint64_t n = 0; n < N; ++n) {
      float scale = f32(scales[perTensor ? 0 : n]);
      // The bias adds in the int32 domain with wrap-around, like the MATMUL
      // accumulation it continues.
      int32_t v = bias ? static_cast<int32_t>(static_cast<uint32_t>(c[n]) +
                                              static_cast<uint32_t>(bias[n]))
                       : c[n];
      int32_t y = requantizeValue(v, scale, zp, lo, hi);
      o[n] = lut ? table[uint8_t(y + 128)] : static_cast<uint8_t>(y);
    }
  }
}

//===----------------------------------------------------------------------===//
// Vector unit
//===----------------------------------------------------------------------===//

// The u8 flag (docs/isa.md, "The uint8 domain"): bytes are read as x ^ 0x80
// in [0, 255], zero points and clamps as unsigned bytes, results stored ^ 0x80.
namespace {
struct Domain {
  bool u8;
  int32_t value(uint8_t byte) const {
    return u8 ? int32_t(byte ^ 0x80) : int32_t(int8_t(byte));
  }
  int32_t param(const Instruction &I, Field f) const {
    return u8 ? int32_t(I.raw(f)) : int32_t(I.get(f));
  }
  uint8_t store(int32_t y) const {
    return u8 ? uint8_t(y ^ 0x80) : uint8_t(int8_t(y));
  }
};
} // namespace

static void executeVector(const Instruction &I, MachineState &S) {
  const bool add = I.opcode() == Opcode::Vadd;
  auto U = [&](Field a, Field m) { return I.raw(add ? a : m); };
  const uint64_t n0 = U(F::Vadd_n0, F::Vmul_n0), n1 = U(F::Vadd_n1, F::Vmul_n1);
  const bool ab = U(F::Vadd_a_bcast, F::Vmul_a_bcast),
             bb = U(F::Vadd_b_bcast, F::Vmul_b_bcast);
  const Domain d{U(F::Vadd_u8, F::Vmul_u8) != 0};
  const int32_t lo = d.param(I, add ? F::Vadd_lo : F::Vmul_lo);
  const int32_t hi = d.param(I, add ? F::Vadd_hi : F::Vmul_hi);
  uint8_t *sp = S.scratchpad.data();
  // All inputs are read before any output is written (outputs may alias).
  std::vector<uint8_t> out(n0 * n1);
  for (uint64_t j = 0; j < n1; ++j) {
    const uint8_t *a = sp + U(F::Vadd_a_addr, F::Vmul_a_addr) +
                       j * U(F::Vadd_a_s1, F::Vmul_a_s1);
    const uint8_t *b = sp + U(F::Vadd_b_addr, F::Vmul_b_addr) +
                       j * U(F::Vadd_b_s1, F::Vmul_b_s1);
    for (uint64_t i = 0; i < n0; ++i) {
      int32_t av = d.value(a[ab ? 0 : i]), bv = d.value(b[bb ? 0 : i]);
      int32_t y;
      if (add) {
        float t = addValue(I.raw(F::Vadd_mode), float(av), float(bv),
                           I.getF32(F::Vadd_ratio_a), I.getF32(F::Vadd_ratio_b),
                           I.getF32(F::Vadd_fixed));
        y = std::min(std::max(roundHalfEven(t), lo), hi);
      } else {
        y = isa::mulValue(av, bv, d.param(I, F::Vmul_a_zp),
                          d.param(I, F::Vmul_b_zp), d.param(I, F::Vmul_o_zp),
                          I.getF32(F::Vmul_ratio), lo, hi);
      }
      out[j * n0 + i] = d.store(y);
    }
  }
  for (uint64_t j = 0; j < n1; ++j)
    std::memcpy(sp + U(F::Vadd_o_addr, F::Vmul_o_addr) +
                    j * U(F::Vadd_o_s1, F::Vmul_o_s1),
                &out[j * n0], n0);
}

static void executeFloatBinary(const Instruction &I, MachineState &S) {
  const uint64_t n0 = I.raw(F::Vbinary_n0), n1 = I.raw(F::Vbinary_n1);
  const bool ab = I.getFlag(F::Vbinary_a_bcast),
             bb = I.getFlag(F::Vbinary_b_bcast);
  uint8_t *sp = S.scratchpad.data();
  // All inputs are read before any output is written (outputs may alias).
  std::vector<int8_t> out(n0 * n1);
  for (uint64_t j = 0; j < n1; ++j) {
    auto a = reinterpret_cast<const int8_t *>(sp + I.raw(F::Vbinary_a_addr) +
                                              j * I.raw(F::Vbinary_a_s1));
    if (I.getFlag(F::Vbinary_b_f32)) {
      // ACC words: b_addr and b_s1 count words.
      const int32_t *w = S.accumulator.data() + I.raw(F::Vbinary_b_addr) +
                         j * I.raw(F::Vbinary_b_s1);
      for (uint64_t i = 0; i < n0; ++i) {
        float y;
        std::memcpy(&y, &w[bb ? 0 : i], 4);
        out[j * n0 + i] = isa::binaryValueF32(
            I.raw(F::Vbinary_op), a[ab ? 0 : i], I.getF32(F::Vbinary_a_scale),
            int32_t(I.get(F::Vbinary_a_zp)), y, I.getF32(F::Vbinary_o_scale),
            int32_t(I.get(F::Vbinary_o_zp)));
      }
      continue;
    }
    auto b = reinterpret_cast<const int8_t *>(sp + I.raw(F::Vbinary_b_addr) +
                                              j * I.raw(F::Vbinary_b_s1));
    for (uint64_t i = 0; i < n0; ++i)
      out[j * n0 + i] = isa::binaryValue(
          I.raw(F::Vbinary_op), a[ab ? 0 : i], b[bb ? 0 : i],
          I.getF32(F::Vbinary_a_scale), int32_t(I.get(F::Vbinary_a_zp)),
          I.getF32(F::Vbinary_b_scale), int32_t(I.get(F::Vbinary_b_zp)),
          I.getF32(F::Vbinary_o_scale), int32_t(I.get(F::Vbinary_o_zp)));
  }
  for (uint64_t j = 0; j < n1; ++j)
    std::memcpy(sp + I.raw(F::Vbinary_o_addr) + j * I.raw(F::Vbinary_o_s1),
                &out[j * n0], n0);
}

static void executeReduce(const Instruction &I, MachineState &S) {
  const uint64_t n0 = I.raw(F::Vreduce_n0), n1 = I.raw(F::Vreduce_n1);
  uint8_t *sp = S.scratchpad.data();
  // All rows are read before any result is written (the verifier keeps
  // them apart anyway).
  std::vector<int8_t> out(n1);
  for (uint64_t j = 0; j < n1; ++j)
    out[j] = isa::reduceRow(
        reinterpret_cast<const int8_t *>(sp + I.raw(F::Vreduce_a_addr) +
                                         j * I.raw(F::Vreduce_a_s1)),
        n0, (I.raw(F::Vreduce_phase) + j * n0) % 4, I.getFlag(F::Vreduce_mean),
        I.getF32(F::Vreduce_x_scale), int32_t(I.get(F::Vreduce_x_zp)),
        I.getF32(F::Vreduce_y_scale), int32_t(I.get(F::Vreduce_y_zp)));
  for (uint64_t j = 0; j < n1; ++j)
    sp[I.raw(F::Vreduce_o_addr) + j * I.raw(F::Vreduce_o_s1)] = uint8_t(out[j]);
}

static void executeLut(const Instruction &I, MachineState &S) {
  const uint64_t n0 = I.raw(F::Vlut_n0), n1 = I.raw(F::Vlut_n1);
  const uint8_t flip = I.getFlag(F::Vlut_u8) ? 0 : 0x80;
  const bool perColumn = I.getFlag(F::Vlut_per_column);
  uint8_t *sp = S.scratchpad.data();
  const uint8_t *lut = sp + I.raw(F::Vlut_lut_addr);
  // All of A is read before O is written (O may be A, in place).
  std::vector<uint8_t> out(n0 * n1);
  for (uint64_t j = 0; j < n1; ++j) {
    const uint8_t *a = sp + I.raw(F::Vlut_a_addr) + j * I.raw(F::Vlut_a_s1);
    for (uint64_t i = 0; i < n0; ++i)
      out[j * n0 + i] = lut[(perColumn ? 256 * i : 0) + uint8_t(a[i] ^ flip)];
  }
  for (uint64_t j = 0; j < n1; ++j)
    std::memcpy(sp + I.raw(F::Vlut_o_addr) + j * I.raw(F::Vlut_o_s1),
                &out[j * n0], n0);
}

static void executeSoftmax(const Instruction &I, MachineState &S) {
  const uint64_t n0 = I.raw(F::Vsoftmax_n0), n1 = I.raw(F::Vsoftmax_n1);
  const bool u8 = I.getFlag(F::Vsoftmax_u8);
  const int32_t zp = u8 ? int32_t(I.raw(F::Vsoftmax_zp) & 0xff)
                        : int32_t(I.get(F::Vsoftmax_zp));
  float table[256];
  std::memcpy(table, &S.accumulator[I.raw(F::Vsoftmax_table_addr)],
              sizeof(table));
  uint8_t *sp = S.scratchpad.data();
  // All of A is read before O is written (O may be A, in place).
  std::vector<uint8_t> out(n0 * n1);
  for (uint64_t j = 0; j < n1; ++j)
    isa::softmaxRow(
        reinterpret_cast<const int8_t *>(sp + I.raw(F::Vsoftmax_a_addr) +
                                         j * I.raw(F::Vsoftmax_a_s1)),
        n0, table, I.getF32(F::Vsoftmax_c), zp, u8, &out[j * n0]);
  for (uint64_t j = 0; j < n1; ++j)
    std::memcpy(sp + I.raw(F::Vsoftmax_o_addr) + j * I.raw(F::Vsoftmax_o_s1),
                &out[j * n0], n0);
}

static void executeLayerNorm(const Instruction &I, MachineState &S) {
  const uint64_t n0 = I.raw(F::Vlayernorm_n0), n1 = I.raw(F::Vlayernorm_n1);
  std::vector<float> gamma(n0), beta(n0);
  std::memcpy(gamma.data(), &S.accumulator[I.raw(F::Vlayernorm_gamma_addr)],
              4 * n0);
  const bool bias = I.getFlag(F::Vlayernorm_bias);
  if (bias)
    std::memcpy(beta.data(), &S.accumulator[I.raw(F::Vlayernorm_beta_addr)],
                4 * n0);
  uint8_t *sp = S.scratchpad.data();
  // All of A is read before O is written (O may be A, in place).
  std::vector<int8_t> out(n0 * n1);
  for (uint64_t j = 0; j < n1; ++j)
    isa::layerNormRow(
        reinterpret_cast<const int8_t *>(sp + I.raw(F::Vlayernorm_a_addr) +
                                         j * I.raw(F::Vlayernorm_a_s1)),
        n0, I.getF32(F::Vlayernorm_x_scale), int32_t(I.get(F::Vlayernorm_x_zp)),
        gamma.data(), bias ? beta.data() : nullptr, I.getF32(F::Vlayernorm_eps),
        I.getF32(F::Vlayernorm_y_scale), int32_t(I.get(F::Vlayernorm_y_zp)),
        &out[j * n0]);
  for (uint64_t j = 0; j < n1; ++j)
    std::memcpy(sp + I.raw(F::Vlayernorm_o_addr) +
                    j * I.raw(F::Vlayernorm_o_s1),
                &out[j * n0], n0);
}

static void executePool(const Instruction &I, MachineState &S) {
  auto U = [&](Field f) { return I.raw(f); };
  const uint64_t oh = U(F::Pool_oh), ow = U(F::Pool_ow), ch = U(F::Pool_ch);
  const uint64_t kh = U(F::Pool_kh), kw = U(F::Pool_kw), sh = U(F::Pool_sh),
                 sw = U(F::Pool_sw);
  const uint64_t y0 = U(F::Pool_valid_y0), y1 = U(F::Pool_valid_y1);
  const uint64_t x0 = U(F::Pool_valid_x0), x1 = U(F::Pool_valid_x1);
  const uint64_t mode = U(F::Pool_mode);
  const Domain d{I.getFlag(F::Pool_u8)};
  const int32_t lo = d.param(I, F::Pool_lo), hi = d.param(I, F::Pool_hi);
  const int32_t outZp = d.param(I, F::Pool_out_zp),
                inZp = d.param(I, F::Pool_in_zp);
  const float scale = I.getF32(F::Pool_scale),
              outScale = I.getF32(F::Pool_out_scale);
  const int32_t bias = int32_t(I.get(F::Pool_bias));
  const uint8_t *in = S.scratchpad.data() + U(F::Pool_in_addr);
  std::vector<uint8_t> out(oh * ow * ch);
  for (uint64_t oy = 0; oy < oh; ++oy)
    for (uint64_t ox = 0; ox < ow; ++ox)
      for (uint64_t c = 0; c < ch; ++c) {
        int32_t mx = std::numeric_limits<int32_t>::min();
        uint32_t sum = static_cast<uint32_t>(bias);
        float facc = 0.0f;
        uint64_t count = 0;
        for (uint64_t ky = 0; ky < kh; ++ky) {
          uint64_t y = oy * sh + ky;
          if (y < y0 || y >= y1)
            continue;
          for (uint64_t kx = 0; kx < kw; ++kx) {
            uint64_t x = ox * sw + kx;
            if (x < x0 || x >= x1)
              continue;
            int32_t v = d.value(in[y * U(F::Pool_in_row_stride) +
                                   x * U(F::Pool_in_pix_stride) + c]);
            mx = std::max(mx, v);
            sum += static_cast<uint32_t>(v);
            facc = facc + scale * float(v - inZp);
            ++count;
          }
        }
        int32_t y;
        if (mode == isa::PoolMode_max) {
          // An empty window (valid region misses it) yields the lowest value.
          y = count ? mx : (d.u8 ? 0 : -128);
        } else if (mode == isa::PoolMode_avg_int) {
          y = requantizeValue(int32_t(sum), scale, outZp, lo, hi);
        } else {
          float div = I.getFlag(F::Pool_count_include_pad) ? float(kh * kw)
                                                           : float(count);
          facc = facc / div;
          float t = facc / outScale + float(outZp);
          y = std::min(std::max(roundHalfEven(t), lo), hi);
        }
        out[(oy * ow + ox) * ch + c] = d.store(y);
      }
  uint8_t *o = S.scratchpad.data() + U(F::Pool_out_addr);
  for (uint64_t oy = 0; oy < oh; ++oy)
    for (uint64_t ox = 0; ox < ow; ++ox)
      std::memcpy(o + oy * U(F::Pool_out_row_stride) +
                      ox * U(F::Pool_out_pix_stride),
                  &out[(oy * ow + ox) * ch], ch);
}

static void executeDwconv(const Instruction &I, MachineState &S) {
  auto U = [&](Field f) { return I.raw(f); };
  const uint64_t oh = U(F::Dwconv_oh), ow = U(F::Dwconv_ow),
                 ch = U(F::Dwconv_ch);
  const uint64_t kh = U(F::Dwconv_kh), kw = U(F::Dwconv_kw);
  const int32_t inZp = int32_t(I.get(F::Dwconv_in_zp)),
                wZp = int32_t(I.get(F::Dwconv_w_zp));
  const uint8_t *in = S.scratchpad.data() + U(F::Dwconv_in_addr);
  const uint8_t *w = S.scratchpad.data() + U(F::Dwconv_w_addr);
  const bool accumulate = I.getFlag(F::Dwconv_accumulate);
  std::vector<int32_t> wv(kh * kw * ch);
  for (uint64_t i = 0; i < wv.size(); ++i)
    wv[i] = int32_t(int8_t(w[i])) - wZp;
  std::vector<uint32_t> accv(ch);
  for (uint64_t oy = 0; oy < oh; ++oy)
    for (uint64_t ox = 0; ox < ow; ++ox) {
      std::fill(accv.begin(), accv.end(), 0u);
      for (uint64_t ky = 0; ky < kh; ++ky)
        for (uint64_t kx = 0; kx < kw; ++kx) {
          uint64_t y = oy * U(F::Dwconv_sh) + ky * U(F::Dwconv_dh);
          uint64_t x = ox * U(F::Dwconv_sw) + kx * U(F::Dwconv_dw);
          const uint8_t *px = in + y * U(F::Dwconv_in_row_stride) +
                              x * U(F::Dwconv_in_pix_stride);
          const int32_t *wk = &wv[(ky * kw + kx) * ch];
          for (uint64_t c = 0; c < ch; ++c)
            accv[c] +=
                uint32_t(int32_t(int8_t(px[c])) - inZp) * uint32_t(wk[c]);
        }
      int32_t *out = S.accumulator.data() + U(F::Dwconv_c_addr) +
                     oy * U(F::Dwconv_c_row_stride) +
                     ox * U(F::Dwconv_c_pix_stride);
      for (uint64_t c = 0; c < ch; ++c)
        out[c] = int32_t(accv[c] + (accumulate ? uint32_t(out[c]) : 0u));
    }
}

void sim::executeInstruction(const Instruction &I, MachineState &S) {
  switch (I.opcode()) {
  case Opcode::Load:
    return executeLoad(I, S);
  case Opcode::Store:
    return executeStore(I, S);
  case Opcode::Matmul:
    return executeMatmul(I, S);
  case Opcode::Requant:
    return executeRequant(I, S);
  case Opcode::Vadd:
  case Opcode::Vmul:
    return executeVector(I, S);
  case Opcode::Vlut:
    return executeLut(I, S);
  case Opcode::Vsoftmax:
    return executeSoftmax(I, S);
  case Opcode::Vlayernorm:
    return executeLayerNorm(I, S);
  case Opcode::Vbinary:
    return executeFloatBinary(I, S);
  case Opcode::Vreduce:
    return executeReduce(I, S);
  case Opcode::Pool:
    return executePool(I, S);
  case Opcode::Dwconv:
    return executeDwconv(I, S);
  case Opcode::Fence:
  case Opcode::End:
    return;
  }
}
