//===- DataRace.cpp - Accesses no token orders
//-----------------------------===//
#include "DataRace.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace systole;
using namespace systole::sim;
using isa::Instruction;

namespace {
const char *describe(const isa::Access &a) {
  return a.write ? "writes" : "reads";
}
bool conflict(const isa::Access &a, const isa::Access &b) {
  return (a.write || b.write) && isa::accessesOverlap(a, b);
}
} // namespace

std::optional<std::string>
DataRaceChecker::execute(llvm::ArrayRef<Instruction> stream, size_t index) {
  const Instruction &I = stream[index];
  if (I.queue() == isa::Queue::None)
    return std::nullopt;
  unsigned q = unsigned(I.queue());
  Clock &c = clocks[q];
  isa::Deps d = I.deps();
  auto pop = [&](std::optional<isa::TokenFifo> f) {
    // An empty FIFO here means the token came from outside the checker's
    // view (a hand-built state); it orders nothing we know of.
    if (!f || fifos[unsigned(*f)].empty())
      return;
    const Clock &t = fifos[unsigned(*f)].front();
    for (unsigned k = 0; k < 3; ++k)
      c[k] = std::max(c[k], t[k]);
    fifos[unsigned(*f)].pop_front();
  };
  if (d.popPrev)
    pop(isa::popPrevFifo(I.queue()));
  if (d.popNext)
    pop(isa::popNextFifo(I.queue()));
  uint64_t epoch = ++c[q];

  std::vector<isa::Access> accesses = isa::accessRanges(I);
  for (const isa::Access &a : accesses) {
    if (a.end <= a.begin)
      continue;
    for (unsigned rq = 0; rq < 3; ++rq) {
      if (rq == q)
        continue;
      for (const Record &r : records[rq]) {
        // Ordered when r's epoch reached this queue through tokens.
        if (r.epoch <= c[rq] || !conflict(a, r.access))
          continue;
        const isa::Access &b = r.access;
        return llvm::formatv(
                   "{0} {1} {2} [{3:x}, {4:x}) ({5}) that instruction #{6} "
                   "({7}, {8} queue) {9} [{10:x}, {11:x}) ({12}), and no "
                   "token orders the two",
                   isa::opcodeInfo(I.opcode()).mnemonic, describe(a),
                   isa::memSpaceName(a.space), a.begin, a.end, a.operand,
                   r.index, isa::opcodeInfo(stream[r.index].opcode()).mnemonic,
                   isa::queueName(isa::Queue(rq)), describe(b), b.begin, b.end,
                   b.operand)
            .str();
      }
    }
  }
  for (const isa::Access &a : accesses)
    if (a.end > a.begin)
      records[q].push_back({index, epoch, a});
  auto push = [&](std::optional<isa::TokenFifo> f) {
    if (f)
      fifos[unsigned(*f)].push_back(c);
  };
  if (d.pushPrev)
    push(isa::pushPrevFifo(I.queue()));
  if (d.pushNext)
    push(isa::pushNextFifo(I.queue()));
  if (++sincePrune >= 64)
    prune();
  return std::nullopt;
}

void DataRaceChecker::prune() {
  sincePrune = 0;
  // A record every other queue has seen (through tokens) can conflict with
  // no later instruction: clocks only grow.
  for (unsigned rq = 0; rq < 3; ++rq)
    llvm::erase_if(records[rq], [&](const Record &r) {
      for (unsigned k = 0; k < 3; ++k)
        if (k != rq && clocks[k][rq] < r.epoch)
          return false;
      return true;
    });
}
