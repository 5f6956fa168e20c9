//===- TokenRules.cpp - Dependency-token pops and pushes ------------------===//
#include "TokenRules.h"

#include "llvm/Support/FormatVariadic.h"

using namespace systole;
using namespace systole::sim;
using isa::Instruction;
using isa::Queue;

namespace {
// The dependency flags of an instruction whose queue lacks that neighbour are
// rejected by the decoder; a hand-built one is treated as having no flag.
template <typename Fn> void forPops(const Instruction &I, Fn fn) {
  isa::Deps d = I.deps();
  Queue q = I.queue();
  if (d.popPrev)
    if (auto f = isa::popPrevFifo(q))
      fn(*f);
  if (d.popNext)
    if (auto f = isa::popNextFifo(q))
      fn(*f);
}
template <typename Fn> void forPushes(const Instruction &I, Fn fn) {
  isa::Deps d = I.deps();
  Queue q = I.queue();
  if (d.pushPrev)
    if (auto f = isa::pushPrevFifo(q))
      fn(*f);
  if (d.pushNext)
    if (auto f = isa::pushNextFifo(q))
      fn(*f);
}
} // namespace

bool sim::tokensReady(const Instruction &I, const MachineState &S) {
  bool ready = true;
  forPops(I, [&](isa::TokenFifo f) { ready &= S.tokens[unsigned(f)] > 0; });
  return ready;
}

std::string sim::missingTokens(const Instruction &I, const MachineState &S) {
  std::string out;
  forPops(I, [&](isa::TokenFifo f) {
    if (!S.tokens[unsigned(f)])
      out += (out.empty() ? "" : " and ") + isa::tokenFifoName(f).str();
  });
  return out;
}

void sim::popTokens(const Instruction &I, MachineState &S) {
  forPops(I, [&](isa::TokenFifo f) { --S.tokens[unsigned(f)]; });
}

std::optional<std::string> sim::pushTokens(const Instruction &I,
                                           MachineState &S,
                                           const isa::HwConfig &cfg) {
  std::optional<std::string> err;
  forPushes(I, [&](isa::TokenFifo f) {
    if (err)
      return;
    if (S.tokens[unsigned(f)] >= cfg.queues.tokenDepth) {
      err = llvm::formatv("push into the full {0} token FIFO (token_depth {1})",
                          isa::tokenFifoName(f), cfg.queues.tokenDepth)
                .str();
      return;
    }
    ++S.tokens[unsigned(f)];
  });
  return err;
}

BlockedHead sim::oldestBlockedHead(llvm::ArrayRef<Instruction> stream,
                                   const std::deque<size_t> queues[3]) {
  std::optional<size_t> heads[3];
  for (unsigned q = 0; q < 3; ++q)
    if (!queues[q].empty())
      heads[q] = queues[q].front();
  return oldestBlockedHead(stream, heads);
}

BlockedHead
sim::oldestBlockedHead(llvm::ArrayRef<Instruction> stream,
                       llvm::ArrayRef<std::optional<size_t>> heads) {
  BlockedHead b;
  bool found = false;
  for (const auto &h : heads)
    if (h && (!found || *h < b.index)) {
      b.index = *h;
      found = true;
    }
  for (const auto &h : heads)
    if (h && *h != b.index)
      b.others += llvm::formatv("; {0} queue blocked at instruction #{1} ({2})",
                                isa::queueName(stream[*h].queue()), *h,
                                isa::opcodeInfo(stream[*h].opcode()).mnemonic)
                      .str();
  return b;
}

std::string BlockedHead::detail(llvm::ArrayRef<Instruction> stream,
                                const MachineState &state) const {
  std::string missing = missingTokens(stream[index], state);
  return llvm::formatv(
             "waits for a {0} token that can never arrive (no instruction "
             "in flight){1}",
             missing.empty() ? "dependency" : missing, others)
      .str();
}
