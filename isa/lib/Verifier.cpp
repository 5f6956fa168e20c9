//===- Verifier.cpp - Semantic checks of instructions and programs --------===//
#include "systole/ISA/Verifier.h"
#include "systole/ISA/Footprint.h"
#include "systole/ISA/Timing.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <deque>
#include <optional>

using namespace systole::isa;
using llvm::createStringError;
using llvm::inconvertibleErrorCode;
using F = Field;

namespace {
llvm::Error error(const llvm::Twine &msg) {
  return createStringError(inconvertibleErrorCode(), msg.str());
}

const char *mn(const Instruction &I) { return opcodeInfo(I.opcode()).mnemonic; }

llvm::Error fieldError(const Instruction &I, Field f, const llvm::Twine &msg) {
  return error(llvm::Twine(mn(I)) + "." + fieldInfo(f).name + ": " + msg);
}

// Every listed field must be >= 1.
llvm::Error requirePositive(const Instruction &I,
                            std::initializer_list<Field> fs) {
  for (Field f : fs)
    if (I.raw(f) == 0)
      return fieldError(I, f, "must be >= 1");
  return llvm::Error::success();
}

// In the uint8 domain (u8=1) the 8-bit bounds are read unsigned.
llvm::Error requireOrdered(const Instruction &I, Field lo, Field hi,
                           bool unsignedBounds = false) {
  int64_t l = unsignedBounds ? int64_t(I.raw(lo)) : I.get(lo);
  int64_t h = unsignedBounds ? int64_t(I.raw(hi)) : I.get(hi);
  if (l > h)
    return error(llvm::formatv("{0}: {1} ({2}) must not exceed {3} ({4})",
                               mn(I), fieldInfo(lo).name, l, fieldInfo(hi).name,
                               h));
  return llvm::Error::success();
}

std::string hex(uint64_t v) { return llvm::formatv("{0:x-}", v).str(); }
} // namespace

// Streaming-write rule (docs/isa.md §4, "Outputs do not partially overlap
// inputs"): the RTL writes an instruction's results beat by beat while it
// still reads its inputs, so no input byte may be one an earlier beat wrote.
// Decided exactly on the strided sets by stridedRunsOverlap (Footprint.h).
namespace {
using u128 = unsigned __int128;

// Bounds the exact search (a few ms); a VADD needs at most 2*n1 + 1 steps
// (n1 < 2^16), compiled POOLs a few per output pixel.
constexpr uint64_t kOverlapBudget = 1u << 18;

std::string range(const StridedRuns &s) {
  return llvm::formatv("SP [0x{0}, 0x{1})", hex(s.base),
                       hex(static_cast<uint64_t>(s.end())))
      .str();
}

llvm::Error requireDisjoint(const Instruction &I, const StridedRuns &out,
                            const StridedRuns &in, const char *why) {
  auto m = stridedRunsOverlap(out, in, kOverlapBudget);
  if (m && !*m)
    return llvm::Error::success();
  return error(llvm::formatv(
      "{0}: output {1} {2} {3} input {4} {5}{6}", mn(I), out.name, range(out),
      m ? "overlaps" : "is not provably disjoint (search capped) from", in.name,
      range(in), why));
}

// DWCONV accumulates each output once while streaming, so two outputs must
// not share an ACC word: some (dy, dx) != 0 with |dy*crs + dx*cps| < ch
// (sharedGridCells, Footprint.h).
llvm::Error checkDwconvOutputs(const Instruction &I) {
  uint64_t oh = I.raw(F::Dwconv_oh), ow = I.raw(F::Dwconv_ow),
           ch = I.raw(F::Dwconv_ch), crs = I.raw(F::Dwconv_c_row_stride),
           cps = I.raw(F::Dwconv_c_pix_stride);
  auto clash = [&](uint64_t y0, uint64_t x0, uint64_t y1, uint64_t x1) {
    return error(llvm::formatv(
        "dwconv: output C elements ({0}, {1}) and ({2}, {3}) share ACC words "
        "(c_row_stride {4}, c_pix_stride {5}, ch {6}): every output must own "
        "its ch words",
        y0, x0, y1, x1, crs, cps, ch));
  };
  if (auto c = sharedGridCells(oh, ow, ch, crs, cps))
    return clash(c->y0, c->x0, c->y1, c->x1);
  return llvm::Error::success();
}

llvm::Error checkStreamingOverlaps(const Instruction &I) {
  switch (I.opcode()) {
  case Opcode::Vadd:
  case Opcode::Vmul:
  case Opcode::Vbinary: {
    ElementwiseFields e = *elementwiseFields(I.opcode());
    uint64_t n0 = I.raw(e.n0), n1 = I.raw(e.n1);
    uint64_t oS1 = I.raw(e.oS1);
    StridedRuns O{"O", I.raw(e.oAddr), n1, oS1, 1, 0, n0};
    for (bool isA : {true, false}) {
      // An fp32 B is in ACC, apart from the scratchpad output.
      if (!isA && elementwiseBInAcc(I))
        continue;
      bool bcast = I.raw(isA ? e.aBcast : e.bBcast);
      StridedRuns in{isA ? "A" : "B",
                     I.raw(isA ? e.aAddr : e.bAddr),
                     n1,
                     I.raw(isA ? e.aS1 : e.bS1),
                     1,
                     0,
                     bcast ? 1 : n0};
      // In place: every beat reads exactly the elements it writes.
      bool same = !bcast && in.base == O.base && (n1 == 1 || in.s1 == oS1);
      if (same && n1 > 1 && oS1 < n0)
        return error(llvm::formatv(
            "{0}: output O {1} is input {2} in place, but its rows overlap "
            "(o_s1 {3} < n0 {4}): a later row would read bytes an earlier "
            "row already wrote",
            mn(I), range(O), in.name, oS1, n0));
      if (!same)
        if (auto e = requireDisjoint(
                I, O, in,
                ": an output must be disjoint from each input or be the "
                "identical box (in place)"))
          return e;
    }
    break;
  }
  case Opcode::Vlut: {
    uint64_t n0 = I.raw(F::Vlut_n0), n1 = I.raw(F::Vlut_n1),
             oS1 = I.raw(F::Vlut_o_s1);
    StridedRuns O{"O", I.raw(F::Vlut_o_addr), n1, oS1, 1, 0, n0};
    StridedRuns A{"A", I.raw(F::Vlut_a_addr), n1, I.raw(F::Vlut_a_s1), 1, 0,
                  n0};
    StridedRuns lut{"lut",
                    I.raw(F::Vlut_lut_addr),
                    1,
                    0,
                    1,
                    0,
                    I.getFlag(F::Vlut_per_column) ? 256 * n0 : 256};
    bool same = A.base == O.base && (n1 == 1 || A.s1 == oS1);
    if (same && n1 > 1 && oS1 < n0)
      return error(llvm::formatv(
          "{0}: output O {1} is input A in place, but its rows overlap "
          "(o_s1 {2} < n0 {3}): a later row would read bytes an earlier "
          "row already wrote",
          mn(I), range(O), oS1, n0));
    if (!same)
      if (auto e = requireDisjoint(
              I, O, A,
              ": an output must be disjoint from its input or be the "
              "identical box (in place)"))
        return e;
    return requireDisjoint(I, O, lut, "");
  }
  case Opcode::Vsoftmax:
  case Opcode::Vlayernorm: {
    // Rows go to lanes, each read in several passes: in place is exact only
    // when a row's output lands on its own input.
    bool sm = I.opcode() == Opcode::Vsoftmax;
    auto f = [&](Field a, Field b) { return I.raw(sm ? a : b); };
    uint64_t n0 = f(F::Vsoftmax_n0, F::Vlayernorm_n0),
             n1 = f(F::Vsoftmax_n1, F::Vlayernorm_n1),
             oS1 = f(F::Vsoftmax_o_s1, F::Vlayernorm_o_s1);
    StridedRuns O{
        "O", f(F::Vsoftmax_o_addr, F::Vlayernorm_o_addr), n1, oS1, 1, 0, n0};
    StridedRuns A{"A", f(F::Vsoftmax_a_addr, F::Vlayernorm_a_addr),
                  n1,  f(F::Vsoftmax_a_s1, F::Vlayernorm_a_s1),
                  1,   0,
                  n0};
    // Lanes write a group's rows column by column: rows sharing output
    // bytes would end with whichever column comes last, not the last row.
    if (n1 > 1 && oS1 > 0 && oS1 < n0)
      return error(llvm::formatv(
          "{0}: output O {1} rows overlap (0 < o_s1 {2} < n0 {3})", mn(I),
          range(O), oS1, n0));
    bool same = A.base == O.base && (n1 == 1 || A.s1 == oS1);
    if (!same)
      return requireDisjoint(I, O, A,
                             ": an output must be disjoint from its input or "
                             "be the identical box (in place)");
    break;
  }
  case Opcode::Vreduce: {
    // Lanes read whole rows and write one byte each: no result may land on
    // an input another lane still reads.
    uint64_t n1 = I.raw(F::Vreduce_n1);
    StridedRuns O{
        "O", I.raw(F::Vreduce_o_addr), n1, I.raw(F::Vreduce_o_s1), 1, 0, 1};
    StridedRuns A{"A", I.raw(F::Vreduce_a_addr), n1, I.raw(F::Vreduce_a_s1), 1,
                  0,   I.raw(F::Vreduce_n0)};
    return requireDisjoint(I, O, A,
                           ": the results must be disjoint from the rows");
  }
  case Opcode::Requant:
    if (I.getFlag(F::Requant_lut)) {
      StridedRuns O{"O",
                    I.raw(F::Requant_o_addr),
                    I.raw(F::Requant_m),
                    I.raw(F::Requant_o_stride),
                    1,
                    0,
                    I.raw(F::Requant_n)};
      StridedRuns lut{"lut", I.raw(F::Requant_lut_addr), 1, 0, 1, 0, 256};
      return requireDisjoint(I, O, lut, "");
    }
    break;
  case Opcode::Pool: {
    uint64_t oh = I.raw(F::Pool_oh), ow = I.raw(F::Pool_ow),
             ch = I.raw(F::Pool_ch);
    uint64_t rows = (oh - 1) * I.raw(F::Pool_sh) + I.raw(F::Pool_kh);
    uint64_t cols = (ow - 1) * I.raw(F::Pool_sw) + I.raw(F::Pool_kw);
    StridedRuns out{
        "out", I.raw(F::Pool_out_addr),       oh, I.raw(F::Pool_out_row_stride),
        ow,    I.raw(F::Pool_out_pix_stride), ch};
    StridedRuns in{
        "in", I.raw(F::Pool_in_addr),       rows, I.raw(F::Pool_in_row_stride),
        cols, I.raw(F::Pool_in_pix_stride), ch};
    return requireDisjoint(I, out, in, " (its window box)");
  }
  case Opcode::Dwconv:
    return checkDwconvOutputs(I);
  default:
    break;
  }
  return llvm::Error::success();
}

// A LOAD's padding writer runs beside its data beats (docs/isa.md §4), so a
// padded box must not name one SRAM unit twice: with the dimensions sorted
// by stride, each stride must clear everything the inner ones span.
llvm::Error checkPaddedLoadBox(const Instruction &I) {
  if (!I.raw(F::Load_pad_top) && !I.raw(F::Load_pad_bottom) &&
      !I.raw(F::Load_pad_left) && !I.raw(F::Load_pad_right))
    return llvm::Error::success();
  struct Dim {
    uint64_t n, stride;
    Field field;
  };
  llvm::SmallVector<Dim, 3> dims;
  for (Dim d : {Dim{I.raw(F::Load_pad_left) + I.raw(F::Load_n1) +
                        I.raw(F::Load_pad_right),
                    I.raw(F::Load_t1), F::Load_t1},
                Dim{I.raw(F::Load_pad_top) + I.raw(F::Load_n2) +
                        I.raw(F::Load_pad_bottom),
                    I.raw(F::Load_t2), F::Load_t2},
                Dim{I.raw(F::Load_n3), I.raw(F::Load_t3), F::Load_t3}})
    if (d.n > 1)
      dims.push_back(d);
  llvm::stable_sort(
      dims, [](const Dim &a, const Dim &b) { return a.stride < b.stride; });
  bool acc = I.raw(F::Load_sram) == Memory_acc;
  u128 hull = acc ? I.raw(F::Load_n0)
                  : u128(I.raw(F::Load_n0)) * I.raw(F::Load_elem_bytes);
  for (const Dim &d : dims) {
    if (u128(d.stride) < hull)
      return fieldError(
          I, d.field,
          llvm::formatv("{0} is less than the {1} {2} its inner dimensions "
                        "span: with padding, box positions must not overlap "
                        "(the padding writer runs beside the data beats)",
                        d.stride, static_cast<uint64_t>(hull),
                        acc ? "words" : "bytes"));
    hull += u128(d.n - 1) * d.stride;
  }
  return llvm::Error::success();
}

// The hardware reads bank_conflict instead of computing the bank sets of
// the operands at issue; it must say what the footprint rule says.
llvm::Error checkBankConflictFlag(const Instruction &I, const HwConfig &cfg) {
  Field f;
  switch (I.opcode()) {
  case Opcode::Matmul:
    f = F::Matmul_bank_conflict;
    break;
  case Opcode::Vadd:
  case Opcode::Vmul:
  case Opcode::Vbinary:
    f = elementwiseFields(I.opcode())->bankConflict;
    break;
  default:
    return llvm::Error::success();
  }
  Instruction expect = I;
  setBankConflictFlag(expect, cfg);
  if (expect.raw(f) == I.raw(f))
    return llvm::Error::success();
  return fieldError(
      I, f,
      expect.raw(f)
          ? "is 0, but A and B share a scratchpad bank (docs/isa.md §6)"
          : (I.opcode() == Opcode::Matmul &&
                     I.raw(F::Matmul_dataflow) == Dataflow_ws
                 ? "must be 0 for the ws dataflow"
                 : "is 1, but A and B share no scratchpad bank (docs/isa.md "
                   "§6)"));
}
} // namespace

llvm::Error systole::isa::validateInstruction(const Instruction &I,
                                              const HwConfig &cfg) {
  switch (I.opcode()) {
  case Opcode::Load:
  case Opcode::Store: {
    bool load = I.opcode() == Opcode::Load;
    Field elem = load ? F::Load_elem_bytes : F::Store_elem_bytes;
    Field sram = load ? F::Load_sram : F::Store_sram;
    uint64_t e = I.raw(elem);
    if (e != 1 && e != 4)
      return fieldError(I, elem, "must be 1 or 4, got " + llvm::Twine(e));
    if (I.raw(sram) == Memory_acc && e != 4)
      return fieldError(I, elem, "must be 4 for the accumulator (int32 words)");
    Field flip = load ? F::Load_u8_to_i8 : F::Store_i8_to_u8;
    if (I.getFlag(flip) && e != 1)
      return fieldError(I, flip, "requires elem_bytes=1");
    if (load)
      if (auto err = requirePositive(
              I, {F::Load_n0, F::Load_n1, F::Load_n2, F::Load_n3}))
        return err;
    if (!load)
      if (auto err = requirePositive(
              I, {F::Store_n0, F::Store_n1, F::Store_n2, F::Store_n3}))
        return err;
    break;
  }
  case Opcode::Matmul: {
    if (auto err =
            requirePositive(I, {F::Matmul_m, F::Matmul_k, F::Matmul_n,
                                F::Matmul_a_m_inner, F::Matmul_a_k_inner}))
      return err;
    bool ws = I.raw(F::Matmul_dataflow) == Dataflow_ws;
    if (ws && !cfg.array.ws)
      return fieldError(I, F::Matmul_dataflow,
                        "ws is not supported by config '" + cfg.name + "'");
    if (!ws && !cfg.array.os)
      return fieldError(I, F::Matmul_dataflow,
                        "os is not supported by config '" + cfg.name + "'");
    uint64_t R = cfg.array.rows, C = cfg.array.cols;
    if (I.raw(F::Matmul_n) > C)
      return fieldError(
          I, F::Matmul_n,
          llvm::formatv("{0} exceeds array.cols {1}", I.raw(F::Matmul_n), C));
    if (ws && I.raw(F::Matmul_k) > R)
      return fieldError(I, F::Matmul_k,
                        llvm::formatv("{0} exceeds array.rows {1} (ws)",
                                      I.raw(F::Matmul_k), R));
    if (!ws && I.raw(F::Matmul_m) > R)
      return fieldError(I, F::Matmul_m,
                        llvm::formatv("{0} exceeds array.rows {1} (os)",
                                      I.raw(F::Matmul_m), R));
    if (!ws && I.getFlag(F::Matmul_preload))
      return fieldError(I, F::Matmul_preload, "must be 0 for the os dataflow");
    // The array writes C in its skewed order, so rows of C must not share
    // ACC words (docs/isa.md, MATMUL).
    if (I.raw(F::Matmul_m) > 1 &&
        I.raw(F::Matmul_c_stride) < I.raw(F::Matmul_n))
      return fieldError(
          I, F::Matmul_c_stride,
          llvm::formatv("{0} is less than n ({1}): rows of C would overlap in "
                        "the accumulator (m = {2})",
                        I.raw(F::Matmul_c_stride), I.raw(F::Matmul_n),
                        I.raw(F::Matmul_m)));
    break;
  }
  case Opcode::Requant:
    if (auto err = requirePositive(I, {F::Requant_m, F::Requant_n}))
      return err;
    if (auto err = requireOrdered(I, F::Requant_lo, F::Requant_hi))
      return err;
    break;
  case Opcode::Vadd:
    if (auto err = requirePositive(I, {F::Vadd_n0, F::Vadd_n1}))
      return err;
    if (auto err =
            requireOrdered(I, F::Vadd_lo, F::Vadd_hi, I.getFlag(F::Vadd_u8)))
      return err;
    break;
  case Opcode::Vmul:
    if (auto err = requirePositive(I, {F::Vmul_n0, F::Vmul_n1}))
      return err;
    if (auto err =
            requireOrdered(I, F::Vmul_lo, F::Vmul_hi, I.getFlag(F::Vmul_u8)))
      return err;
    break;
  case Opcode::Vlut:
    if (auto err = requirePositive(I, {F::Vlut_n0, F::Vlut_n1}))
      return err;
    break;
  case Opcode::Vsoftmax:
    if (auto err = requirePositive(I, {F::Vsoftmax_n0, F::Vsoftmax_n1}))
      return err;
    break;
  case Opcode::Vlayernorm:
    if (auto err = requirePositive(I, {F::Vlayernorm_n0, F::Vlayernorm_n1}))
      return err;
    break;
  case Opcode::Vbinary:
    if (auto err = requirePositive(I, {F::Vbinary_n0, F::Vbinary_n1}))
      return err;
    // An fp32 B is used as it is: a zero point or scale would be ignored.
    if (I.getFlag(F::Vbinary_b_f32))
      for (Field f : {F::Vbinary_b_zp, F::Vbinary_b_scale})
        if (I.raw(f) != 0)
          return fieldError(I, f,
                            "is not 0 with b_f32 (B is fp32, not "
                            "dequantized)");
    break;
  case Opcode::Vreduce:
    if (auto err = requirePositive(I, {F::Vreduce_n0, F::Vreduce_n1}))
      return err;
    if (I.raw(F::Vreduce_n1) > 1 && I.raw(F::Vreduce_o_s1) == 0)
      return fieldError(I, F::Vreduce_o_s1,
                        "is 0 with more than one row: the rows' results "
                        "would share one byte");
    break;
  case Opcode::Pool:
    if (auto err =
            requirePositive(I, {F::Pool_oh, F::Pool_ow, F::Pool_ch, F::Pool_kh,
                                F::Pool_kw, F::Pool_sh, F::Pool_sw}))
      return err;
    if (auto err =
            requireOrdered(I, F::Pool_lo, F::Pool_hi, I.getFlag(F::Pool_u8)))
      return err;
    if (auto err = requireOrdered(I, F::Pool_valid_y0, F::Pool_valid_y1))
      return err;
    if (auto err = requireOrdered(I, F::Pool_valid_x0, F::Pool_valid_x1))
      return err;
    break;
  case Opcode::Dwconv:
    if (auto err =
            requirePositive(I, {F::Dwconv_oh, F::Dwconv_ow, F::Dwconv_ch,
                                F::Dwconv_kh, F::Dwconv_kw, F::Dwconv_sh,
                                F::Dwconv_sw, F::Dwconv_dh, F::Dwconv_dw}))
      return err;
    break;
  case Opcode::Fence:
  case Opcode::End:
    break;
  }
  for (const Access &a : accessRanges(I)) {
    uint64_t cap = a.space == MemSpace::Scratchpad    ? cfg.sram.scratchpadBytes
                   : a.space == MemSpace::Accumulator ? cfg.accumulatorWords()
                                                      : ~uint64_t(0);
    if (a.space == MemSpace::Dram)
      continue; // checked against the memory plan by verifyProgram
    if (a.end > cap)
      return error(llvm::formatv(
          "{0}: operand {1} touches {2} [0x{3}, 0x{4}) beyond its capacity "
          "0x{5} {6}",
          mn(I), a.operand, memSpaceName(a.space), hex(a.begin), hex(a.end),
          hex(cap), a.space == MemSpace::Accumulator ? "words" : "bytes"));
  }
  if (I.opcode() == Opcode::Load)
    if (auto err = checkPaddedLoadBox(I))
      return err;
  // Inside the memories, so the overlap search works on bounded addresses.
  if (auto err = checkStreamingOverlaps(I))
    return err;
  return checkBankConflictFlag(I, cfg);
}

llvm::Error
systole::isa::verifyTokenDiscipline(llvm::ArrayRef<Instruction> stream,
                                    const HwConfig &cfg) {
  // Totals first: every token pushed must be popped.
  int64_t balance[kNumTokenFifos] = {};
  for (const Instruction &I : stream) {
    Queue q = I.queue();
    Deps d = I.deps();
    if (d.popPrev)
      --balance[unsigned(*popPrevFifo(q))];
    if (d.popNext)
      --balance[unsigned(*popNextFifo(q))];
    if (d.pushPrev)
      ++balance[unsigned(*pushPrevFifo(q))];
    if (d.pushNext)
      ++balance[unsigned(*pushNextFifo(q))];
  }
  for (unsigned f = 0; f < kNumTokenFifos; ++f)
    if (balance[f])
      return error(
          llvm::formatv("token FIFO {0}: {1} more {2} than {3} over the stream",
                        tokenFifoName(TokenFifo(f)), std::abs(balance[f]),
                        balance[f] > 0 ? "pushes" : "pops",
                        balance[f] > 0 ? "pops" : "pushes"));

  // Abstract in-order execution: fetch dispatches into cmd_depth-deep queues
  // (stalling when the target is full), each queue runs its head as soon as
  // the tokens it pops are present. Blocking reads and writes make the
  // outcome schedule-independent, so a stuck state here is a real deadlock.
  std::deque<size_t> queues[3];
  uint64_t tokens[kNumTokenFifos] = {};
  size_t next = 0;
  bool ended = false;
  const size_t depth = cfg.queues.cmdDepth;
  while (true) {
    bool progress = false;
    // Fetch as far as possible.
    while (!ended && next < stream.size()) {
      Queue q = stream[next].queue();
      if (q == Queue::None) { // END
        ended = true;
        ++next;
        progress = true;
        break;
      }
      if (queues[unsigned(q)].size() >= depth)
        break;
      queues[unsigned(q)].push_back(next++);
      progress = true;
    }
    for (unsigned q = 0; q < 3; ++q) {
      while (!queues[q].empty()) {
        const Instruction &I = stream[queues[q].front()];
        Deps d = I.deps();
        auto need = [&](bool flag, std::optional<TokenFifo> f) {
          return !flag || tokens[unsigned(*f)] > 0;
        };
        if (!need(d.popPrev, popPrevFifo(Queue(q))) ||
            !need(d.popNext, popNextFifo(Queue(q))))
          break;
        if (d.popPrev)
          --tokens[unsigned(*popPrevFifo(Queue(q)))];
        if (d.popNext)
          --tokens[unsigned(*popNextFifo(Queue(q)))];
        if (d.pushPrev)
          ++tokens[unsigned(*pushPrevFifo(Queue(q)))];
        if (d.pushNext)
          ++tokens[unsigned(*pushNextFifo(Queue(q)))];
        queues[q].pop_front();
        progress = true;
      }
    }
    bool empty = queues[0].empty() && queues[1].empty() && queues[2].empty();
    if (empty && (ended || next >= stream.size()))
      return llvm::Error::success();
    if (!progress) {
      std::string msg = "token deadlock: ";
      bool first = true;
      for (unsigned q = 0; q < 3; ++q) {
        if (queues[q].empty())
          continue;
        const Instruction &I = stream[queues[q].front()];
        Deps d = I.deps();
        std::string waits;
        if (d.popPrev && !tokens[unsigned(*popPrevFifo(Queue(q)))])
          waits = tokenFifoName(*popPrevFifo(Queue(q))).str();
        if (d.popNext && !tokens[unsigned(*popNextFifo(Queue(q)))])
          waits += (waits.empty() ? "" : " and ") +
                   tokenFifoName(*popNextFifo(Queue(q))).str();
        msg +=
            llvm::formatv(
                "{0}{1} queue waits at instruction #{2} ({3}) for a {4} token",
                first ? "" : "; ", queueName(Queue(q)), queues[q].front(),
                mn(I), waits)
                .str();
        first = false;
      }
      if (next < stream.size() && !ended)
        msg += llvm::formatv(
                   "; fetch is stalled at instruction #{0} (its queue is full)",
                   next)
                   .str();
      return error(msg);
    }
  }
}

llvm::Error systole::isa::verifyProgram(const Program &p) {
  if (p.versionMajor != kFormatMajor)
    return error(llvm::formatv("version: format {0}.{1} is not supported",
                               p.versionMajor, p.versionMinor));
  if (auto e = validateHwConfig(p.config))
    return error("config." + llvm::toString(std::move(e)));
  const HwConfig &cfg = p.config;
  const uint64_t dram = p.memoryPlan.dramSize;
  if (dram > cfg.dram.capacityBytes)
    return error(llvm::formatv(
        "memory_plan.dram_size: {0} exceeds dram.capacity_bytes {1}", dram,
        cfg.dram.capacityBytes));
  auto inDram = [&](uint64_t off, uint64_t size) {
    return off <= dram && size <= dram - off;
  };
  for (size_t i = 0; i < p.memoryPlan.regions.size(); ++i) {
    const MemoryRegion &r = p.memoryPlan.regions[i];
    if (!inDram(r.offset, r.size))
      return error(llvm::formatv(
          "memory_plan.regions[{0}] '{1}': [{2}, +{3}) is outside "
          "dram_size {4}",
          i, r.name, r.offset, r.size, dram));
  }

  llvm::StringSet<> names;
  for (size_t i = 0; i < p.tensors.size(); ++i) {
    const TensorDesc &t = p.tensors[i];
    auto where = llvm::formatv("tensors[{0}] '{1}'", i, t.name).str();
    if (t.name.empty())
      return error(where + ".name: must not be empty");
    if (!names.insert(t.name).second)
      return error(where + ".name: duplicate tensor name");
    unsigned __int128 elems = 1;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (t.shape[d] < 0)
        return error(llvm::formatv("{0}.shape[{1}]: negative dimension {2}",
                                   where, d, t.shape[d]));
      elems *= static_cast<uint64_t>(t.shape[d]);
      if (elems > (unsigned __int128)1 << 64)
        return error(where + ".shape: element count overflows");
    }
    unsigned __int128 bytes = elems * dtypeBytes(t.dtype);
    if (bytes != t.sizeBytes)
      return error(llvm::formatv(
          "{0}.size_bytes: {1} does not match shape and dtype {2} "
          "({3} bytes)",
          where, t.sizeBytes, dtypeName(t.dtype),
          static_cast<uint64_t>(bytes)));
    if (!inDram(t.dramOffset, t.sizeBytes))
      return error(
          llvm::formatv("{0}: DRAM range [{1}, +{2}) is outside dram_size {3}",
                        where, t.dramOffset, t.sizeBytes, dram));
    if (t.quant) {
      const QuantParams &q = *t.quant;
      if (q.scales.empty())
        return error(where + ".quant.scales: must not be empty");
      if (!q.zeroPoints.empty() && q.zeroPoints.size() != q.scales.size())
        return error(
            llvm::formatv("{0}.quant.zero_points: {1} entries for {2} scales",
                          where, q.zeroPoints.size(), q.scales.size()));
      if (q.scales.size() > 1) {
        if (q.axis < 0 || size_t(q.axis) >= t.shape.size())
          return error(llvm::formatv(
              "{0}.quant.axis: {1} is not a dimension of a rank-{2} "
              "tensor",
              where, q.axis, t.shape.size()));
        if (uint64_t(t.shape[q.axis]) != q.scales.size())
          return error(llvm::formatv(
              "{0}.quant.scales: {1} entries but shape[{2}] = {3}", where,
              q.scales.size(), q.axis, t.shape[q.axis]));
      }
      for (size_t k = 0; k < q.scales.size(); ++k)
        if (!(q.scales[k] > 0) ||
            q.scales[k] == std::numeric_limits<float>::infinity())
          return error(llvm::formatv(
              "{0}.quant.scales[{1}]: must be positive and finite", where, k));
      int lo = t.dtype == DType::UInt8  ? 0
               : t.dtype == DType::Int8 ? -128
                                        : INT32_MIN;
      int hi = t.dtype == DType::UInt8  ? 255
               : t.dtype == DType::Int8 ? 127
                                        : INT32_MAX;
      for (size_t k = 0; k < q.zeroPoints.size(); ++k)
        if (q.zeroPoints[k] < lo || q.zeroPoints[k] > hi)
          return error(llvm::formatv(
              "{0}.quant.zero_points[{1}]: {2} outside the {3} range", where, k,
              q.zeroPoints[k], dtypeName(t.dtype)));
    }
  }
  for (size_t i = 0; i < p.constants.size(); ++i) {
    const ConstantSegment &c = p.constants[i];
    if (!inDram(c.dramOffset, c.data.size()))
      return error(llvm::formatv(
          "constants[{0}] '{1}': [{2}, +{3}) is outside dram_size {4}", i,
          c.name, c.dramOffset, c.data.size(), dram));
  }

  if (p.segments.empty())
    return error("segments: a program needs at least one segment");
  for (size_t s = 0; s < p.segments.size(); ++s) {
    const Segment &seg = p.segments[s];
    auto where = llvm::formatv("segments[{0}] '{1}'", s, seg.name).str();
    if (!seg.isNpu()) {
      const HostSegment &h = seg.host();
      if (h.entry.empty())
        return error(where + ".entry: must name the entry symbol");
      if (h.kind == HostCodeKind::Builtin) {
        // The runtime's kernel library: known names and arities only.
        static const std::pair<const char *, size_t> builtins[] = {
            {"quantize", 2}, {"dequantize", 2}, {"transpose", 2}};
        bool known = false;
        for (auto &[name, arity] : builtins)
          if (h.entry == name) {
            known = true;
            if (h.args.size() != arity)
              return error(llvm::formatv("{0}: builtin '{1}' takes {2} "
                                         "tensors, got {3}",
                                         where, h.entry, arity, h.args.size()));
          }
        if (!known)
          return error(where + ".entry: unknown builtin host kernel '" +
                       h.entry + "'");
        if (!h.code.empty())
          return error(where + ".code: must be empty for a builtin");
      } else if (h.code.empty() &&
                 (h.kind != HostCodeKind::CpuObject || p.hostLibrary.empty())) {
        // A cpu_object entry without code of its own is in the library.
        return error(where + (h.kind == HostCodeKind::CpuObject
                                  ? ".code: empty and the program has no "
                                    "host_library"
                                  : ".code: must not be empty"));
      }
      for (size_t a = 0; a < h.args.size(); ++a)
        if (h.args[a] >= p.tensors.size())
          return error(
              llvm::formatv("{0}.args[{1}]: tensor index {2} out of range ({3} "
                            "tensors)",
                            where, a, h.args[a], p.tensors.size()));
      continue;
    }
    const auto &ins = seg.npu().instructions;
    if (ins.empty() || ins.back().opcode() != Opcode::End)
      return error(where + ": an NPU segment must end with END");
    std::optional<std::pair<uint64_t, uint64_t>>
        wsWeights; // (K, N) in the array
    for (size_t i = 0; i < ins.size(); ++i) {
      const Instruction &I = ins[i];
      auto at = llvm::formatv("{0} instruction #{1}", where, i).str();
      if (I.opcode() == Opcode::End && i + 1 != ins.size())
        return error(at + ": END before the end of the segment");
      if (auto e = validateInstruction(I, cfg))
        return error(at + ": " + llvm::toString(std::move(e)));
      for (const Access &a : accessRanges(I))
        if (a.space == MemSpace::Dram && a.end > dram)
          return error(llvm::formatv(
              "{0}: {1}: operand {2} touches DRAM [0x{3}, 0x{4}) beyond "
              "memory_plan.dram_size 0x{5}",
              at, mn(I), a.operand, hex(a.begin), hex(a.end), hex(dram)));
      if (I.opcode() == Opcode::Matmul) {
        uint64_t K = I.raw(F::Matmul_k), N = I.raw(F::Matmul_n);
        if (I.raw(F::Matmul_dataflow) == Dataflow_os) {
          wsWeights.reset(); // OS overwrites the PE registers
        } else if (I.getFlag(F::Matmul_preload)) {
          wsWeights = {K, N};
        } else if (!wsWeights) {
          return error(at + ": matmul.preload: 0 reuses weights, but no WS "
                            "matmul loaded any");
        } else if (wsWeights->first != K || wsWeights->second != N) {
          return error(llvm::formatv(
              "{0}: matmul.preload: 0 reuses weights of shape K={1} "
              "N={2}, but this matmul has K={3} N={4}",
              at, wsWeights->first, wsWeights->second, K, N));
        }
      }
    }
    if (auto e = verifyTokenDiscipline(ins, cfg))
      return error(where + ": " + llvm::toString(std::move(e)));
  }
  for (size_t l = 0; l < p.layers.size(); ++l) {
    const LayerDebugInfo &L = p.layers[l];
    auto where = llvm::formatv("layers[{0}] '{1}'", l, L.name).str();
    if (L.segment >= p.segments.size() || !p.segments[L.segment].isNpu())
      return error(llvm::formatv("{0}.segment: {1} is not an NPU segment",
                                 where, L.segment));
    uint64_t n = p.segments[L.segment].npu().instructions.size();
    if (uint64_t(L.firstInstruction) + L.instructionCount > n)
      return error(llvm::formatv(
          "{0}: instructions [{1}, +{2}) exceed the segment's {3}", where,
          L.firstInstruction, L.instructionCount, n));
  }
  return llvm::Error::success();
}
