//===- Npu.cpp - Top-level NPU module, shared context, phase helpers ------===//
#include "Modules.h"

using namespace sc_core;
using namespace systole;
using namespace systole::sim;
using namespace systole::sim::cycle;

uint64_t cycle::currentCycle() { return sc_time_stamp().value() / kPeriod; }

void cycle::waitUntil(uint64_t cycle, uint64_t phase) {
  uint64_t target = cycle * kPeriod + phase;
  uint64_t now = sc_time_stamp().value();
  if (target > now)
    wait(sc_time::from_value(target - now));
}

void cycle::waitPhase(uint64_t phase) {
  uint64_t now = sc_time_stamp().value();
  uint64_t c = now / kPeriod;
  if (now % kPeriod > phase)
    ++c;
  waitUntil(c, phase);
}

void Context::raise(FaultKind kind, size_t index, std::string detail) {
  if (fault)
    return;
  Fault f;
  f.kind = kind;
  f.instruction = index;
  f.opcode = stream[index].opcode();
  f.queue = stream[index].queue();
  f.cycle = currentCycle();
  f.detail = std::move(detail);
  fault = std::move(f);
  sc_stop();
}

void Context::retired(size_t index) {
  (void)index;
  ++stats->instructionsRetired;
  lastActivity = currentCycle();
  if (options->progress && (stats->instructionsRetired & 4095) == 0) {
    auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - lastReport).count() >=
        options->progressIntervalSeconds) {
      lastReport = now;
      options->progress(
          {currentCycle(), stats->instructionsRetired, stream.size(),
           std::chrono::duration<double>(now - wallStart).count()});
    }
  }
}

ExecUnit::~ExecUnit() = default;

Npu::Npu(sc_module_name name, Context &ctx) : sc_module(name), ctx(ctx) {
  static const char *fifoNames[] = {"load_to_compute", "compute_to_load",
                                    "compute_to_store", "store_to_compute"};
  for (unsigned f = 0; f < isa::kNumTokenFifos; ++f)
    fifos[f] = std::make_unique<TokenFifo>(fifoNames[f]);
  scratchpad =
      std::make_unique<Sram>("scratchpad", ctx.cfg->sram.scratchpadBanks);
  accumulator =
      std::make_unique<Sram>("accumulator", ctx.cfg->sram.accumulatorBanks);
  dram = std::make_unique<DramChannel>("dram_channel", ctx);
  dma = std::make_unique<DmaEngine>("dma", ctx, *dram);
  array = std::make_unique<SystolicArray>("systolic_array", ctx, *scratchpad);
  post = std::make_unique<PostProcessor>("post_processor", ctx);
  vector = std::make_unique<VectorUnit>("vector_unit", ctx, *scratchpad);
  TokenFifo *raw[isa::kNumTokenFifos];
  for (unsigned f = 0; f < isa::kNumTokenFifos; ++f)
    raw[f] = fifos[f].get();
  queues[0] =
      std::make_unique<CommandQueue>("load_queue", ctx, isa::Queue::Load, raw);
  queues[1] = std::make_unique<CommandQueue>("compute_queue", ctx,
                                             isa::Queue::Compute, raw);
  queues[2] = std::make_unique<CommandQueue>("store_queue", ctx,
                                             isa::Queue::Store, raw);
  queues[0]->dma = dma.get();
  queues[2]->dma = dma.get();
  queues[1]->array = array.get();
  queues[1]->post = post.get();
  queues[1]->vector = vector.get();
  fetch = std::make_unique<FetchUnit>("fetch", ctx);
  for (unsigned q = 0; q < 3; ++q)
    fetch->queues[q] = queues[q].get();
}

Npu::~Npu() = default;
