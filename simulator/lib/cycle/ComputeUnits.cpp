//===- ComputeUnits.cpp - Systolic array, post-processor, vector unit -----===//
//
// Each unit is busy for exactly the cycles of the timing reference
// (isa::computeCycles). A bank conflict between the two scratchpad operands
// of an OS matmul or a VADD/VMUL is part of that figure; the units report the
// extra cycles as bank-conflict stalls.
//
//===----------------------------------------------------------------------===//
#include "Modules.h"

#include <algorithm>

using namespace systole;
using namespace systole::sim;
using namespace systole::sim::cycle;
using F = isa::Field;

uint64_t SystolicArray::issue(const isa::Instruction &I, uint64_t start) {
  if (I.raw(F::Matmul_dataflow) == isa::Dataflow_os &&
      isa::matmulBankConflict(I, *ctx.cfg))
    ctx.stats->stalls[unsigned(StallCause::BankConflict)] += I.raw(F::Matmul_k);
  uint64_t before = pipeline.drained();
  uint64_t end = pipeline.issue(I, start);
  // Busy cycles: the union of the MATMULs' intervals (they may overlap).
  ctx.stats->unitBusy[unsigned(Unit::SystolicArray)] +=
      end - std::max(start, before);
  return end;
}

uint64_t PostProcessor::cycles(const isa::Instruction &I) {
  uint64_t c = isa::computeCycles(I, *ctx.cfg);
  ctx.stats->unitBusy[unsigned(Unit::PostProcessor)] += c;
  return c;
}

uint64_t VectorUnit::cycles(const isa::Instruction &I) {
  uint64_t c = isa::computeCycles(I, *ctx.cfg);
  if (isa::vectorBankConflict(I, *ctx.cfg)) {
    bool add = I.opcode() == isa::Opcode::Vadd;
    uint64_t L = I.raw(add ? F::Vadd_n0 : F::Vmul_n0) *
                 I.raw(add ? F::Vadd_n1 : F::Vmul_n1);
    uint64_t lanes = ctx.cfg->vector.lanes;
    ctx.stats->stalls[unsigned(StallCause::BankConflict)] +=
        (L + lanes - 1) / lanes;
  }
  ctx.stats->unitBusy[unsigned(Unit::VectorUnit)] += c;
  return c;
}
