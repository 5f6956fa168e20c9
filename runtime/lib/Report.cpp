//===- Report.cpp - Text summary, JSON report and Perfetto trace ----------===//
#include "systole/Runtime/Report.h"
#include "systole/Runtime/Analysis.h"
#include "systole/Runtime/HostCode.h"
#include "systole/Runtime/ModelBound.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace systole;
using namespace systole::rt;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {
Object actionsJson(const sim::ActionCounts &a) {
  return Object{{"macs", int64_t(a.macs)},
                {"vector_macs", int64_t(a.vectorMacs)},
                {"vector_ops", int64_t(a.vectorOps)},
                {"sp_read_bytes", int64_t(a.spReadBytes)},
                {"sp_write_bytes", int64_t(a.spWriteBytes)},
                {"acc_read_words", int64_t(a.accReadWords)},
                {"acc_write_words", int64_t(a.accWriteWords)},
                {"dram_read_bytes", int64_t(a.dramReadBytes)},
                {"dram_write_bytes", int64_t(a.dramWriteBytes)},
                {"host_ops", int64_t(a.hostOps)},
                {"host_bytes", int64_t(a.hostBytes)}};
}

Value faultJson(const RunReport &r) {
  if (!r.fault)
    return nullptr;
  const sim::Fault &f = *r.fault;
  return Object{{"kind", sim::faultKindName(f.kind)},
                {"segment", r.faultSegment},
                {"instruction", int64_t(f.instruction)},
                {"opcode", isa::opcodeInfo(f.opcode).mnemonic},
                {"queue", f.queue == isa::Queue::None
                              ? "fetch"
                              : isa::queueName(f.queue).str()},
                {"cycle", int64_t(f.cycle)},
                {"message", f.message()}};
}

double micros(uint64_t cycles, const isa::HwConfig &cfg) {
  return cfg.clockMhz > 0 ? double(cycles) / cfg.clockMhz : double(cycles);
}
} // namespace

Value rt::reportToJson(const RunReport &r, const Model &model) {
  const isa::HwConfig &cfg = model.config();
  const sim::RunStats &t = r.total;
  Object units, stalls, waits;
  for (unsigned u = 0; u < sim::kNumUnits; ++u)
    units[sim::unitName(sim::Unit(u))] = int64_t(t.unitBusy[u]);
  for (unsigned c = 0; c < sim::kNumStallCauses; ++c)
    stalls[sim::stallCauseName(sim::StallCause(c))] = int64_t(t.stalls[c]);
  for (unsigned q = 0; q < 3; ++q)
    waits[isa::queueName(isa::Queue(q))] = int64_t(t.tokenWaitByQueue[q]);
  Array segments;
  for (const SegmentReport &s : r.segments) {
    segments.push_back(Object{
        {"name", s.name},
        {"kind", s.npu ? "npu" : "host"},
        {"host_kernel", s.hostKernel},
        {"host_device", s.hostDevice},
        {"host_bytes_in", int64_t(s.hostBytesIn)},
        {"host_bytes_out", int64_t(s.hostBytesOut)},
        {"transfer_cycles", int64_t(s.transferCycles)},
        {"host_ops", int64_t(s.hostOps)},
        {"host_compute_cycles", int64_t(s.hostComputeCycles)},
        {"start_cycle", int64_t(s.startCycle)},
        {"cycles", int64_t(s.npu ? s.stats.totalCycles
                                 : s.transferCycles + s.hostComputeCycles)},
        {"instructions", int64_t(s.stats.instructionsRetired)},
        {"wall_seconds", s.wallSeconds}});
    if (const std::optional<GpuPhases> &g = s.gpuPhases)
      segments.back().getAsObject()->insert(
          {"gpu_phase_seconds", Object{{"load_module", g->loadModule},
                                       {"allocate", g->allocate},
                                       {"copy_in", g->copyIn},
                                       {"kernels", g->kernels},
                                       {"copy_out", g->copyOut}}});
  }
  Array layers;
  for (const sim::LayerStats &l : t.layers) {
    uint64_t peak = l.cycles() * cfg.array.rows * cfg.array.cols;
    layers.push_back(Object{
        {"name", l.name},
        {"segment", int64_t(l.segment)},
        {"first_instruction", int64_t(l.firstInstruction)},
        {"instruction_count", int64_t(l.instructionCount)},
        {"start_cycle", int64_t(l.startCycle)},
        {"end_cycle", int64_t(l.endCycle)},
        {"cycles", int64_t(l.cycles())},
        {"compute_busy_cycles", int64_t(l.computeBusyCycles)},
        {"mac_utilization", peak ? double(l.actions.macs) / double(peak) : 0.0},
        {"dram_read_bytes", int64_t(l.actions.dramReadBytes)},
        {"dram_write_bytes", int64_t(l.actions.dramWriteBytes)},
        {"sp_read_bytes", int64_t(l.actions.spReadBytes)},
        {"sp_write_bytes", int64_t(l.actions.spWriteBytes)},
        {"acc_read_words", int64_t(l.actions.accReadWords)},
        {"acc_write_words", int64_t(l.actions.accWriteWords)},
        {"actions", actionsJson(l.actions)}});
  }
  Object actions = actionsJson(t.actions);
  actions["cycles"] = int64_t(t.totalCycles);
  return Object{
      {"backend", sim::backendName(r.backend)},
      {"config", cfg.name},
      {"clock_mhz", cfg.clockMhz},
      {"array", Object{{"rows", int64_t(cfg.array.rows)},
                       {"cols", int64_t(cfg.array.cols)}}},
      {"total_cycles", int64_t(t.totalCycles)},
      {"host_cycles", int64_t(r.hostCycles)},
      {"time_us", micros(t.totalCycles, cfg)},
      {"wall_seconds", r.wallSeconds},
      {"instructions_retired", int64_t(t.instructionsRetired)},
      {"macs", int64_t(t.actions.macs)},
      {"peak_macs", int64_t(t.peakMacs(cfg))},
      {"mac_utilization", t.macUtilization(cfg)},
      {"dram", Object{{"read_bytes", int64_t(t.actions.dramReadBytes)},
                      {"write_bytes", int64_t(t.actions.dramWriteBytes)}}},
      {"sram", Object{{"sp_read_bytes", int64_t(t.actions.spReadBytes)},
                      {"sp_write_bytes", int64_t(t.actions.spWriteBytes)},
                      {"acc_read_words", int64_t(t.actions.accReadWords)},
                      {"acc_write_words", int64_t(t.actions.accWriteWords)}}},
      {"actions", std::move(actions)},
      {"energy_pj", energyOf(t.actions, t.totalCycles, cfg).total()},
      {"model_bound",
       modelBoundToJson(modelBound(model.program()), t.totalCycles)},
      {"unit_busy_cycles", std::move(units)},
      {"stall_cycles", std::move(stalls)},
      {"token_wait_cycles_by_queue", std::move(waits)},
      {"segments", std::move(segments)},
      {"layers", std::move(layers)},
      {"fault", faultJson(r)}};
}

void rt::printSummary(const RunReport &r, const Model &model,
                      llvm::raw_ostream &os) {
  const isa::HwConfig &cfg = model.config();
  const sim::RunStats &t = r.total;
  bool cyc = r.backend != sim::BackendKind::Functional; // cycle or rtl
  os << llvm::formatv(
      "backend: {0} on {1} ({2}x{3} array, {4} MHz), wall {5:f3} s\n",
      sim::backendName(r.backend), cfg.name, cfg.array.rows, cfg.array.cols,
      cfg.clockMhz, r.wallSeconds);
  if (cyc) {
    os << llvm::formatv("cycles: {0} ({1:f3} us at {2} MHz)\n", t.totalCycles,
                        micros(t.totalCycles, cfg), cfg.clockMhz);
    os << llvm::formatv(
        "  NPU {0}, host {1} (host segments: transfers through the DRAM "
        "interface and compute at {2} ops/cycle)\n",
        t.totalCycles - r.hostCycles, r.hostCycles, cfg.host.opsPerCycle);
    os << llvm::formatv("MAC utilization: {0:f1}% ({1} MACs of {2} peak)\n",
                        100.0 * t.macUtilization(cfg), t.actions.macs,
                        t.peakMacs(cfg));
  } else {
    os << "cycles: n/a (functional backend; use --backend cycle)\n";
    os << llvm::formatv("MACs: {0}\n", t.actions.macs);
  }
  os << llvm::formatv("instructions: {0}\n", t.instructionsRetired);
  os << llvm::formatv("DRAM traffic: {0} bytes read, {1} bytes written\n",
                      t.actions.dramReadBytes, t.actions.dramWriteBytes);
  os << llvm::formatv(
      "SRAM traffic: SP {0} bytes read, {1} written; ACC {2} words read, "
      "{3} written\n",
      t.actions.spReadBytes, t.actions.spWriteBytes, t.actions.accReadWords,
      t.actions.accWriteWords);
  os << llvm::formatv("energy: {0:f3} uJ\n",
                      energyOf(t.actions, t.totalCycles, cfg).total() * 1e-6);
  if (cyc)
    printModelBound(modelBound(model.program()), t.totalCycles, os);
  if (cyc) {
    os << "stalls (cycles):";
    for (unsigned c = 0; c < sim::kNumStallCauses; ++c)
      os << " " << sim::stallCauseName(sim::StallCause(c)) << "="
         << t.stalls[c];
    os << "\nbusy (cycles):";
    for (unsigned u = 0; u < sim::kNumUnits; ++u)
      os << " " << sim::unitName(sim::Unit(u)) << "=" << t.unitBusy[u];
    os << "\n";
  }
  // Host segments (builtin kernels and compiled code): where they ran,
  // their transfers and their time on the run's cycle axis.
  bool anyHost = false;
  for (const SegmentReport &s : r.segments)
    anyHost |= !s.npu;
  if (anyHost) {
    os << "host segments:\n";
    os << llvm::formatv(
        "  {0,-36} {1,-8} {2,10} {3,10} {4,10} {5,10} {6,10} {7,10}\n", "ops",
        "device", "bytes in", "bytes out", "host ops", "xfer cyc", "comp cyc",
        "wall us");
    for (const SegmentReport &s : r.segments) {
      if (s.npu)
        continue;
      std::string ops = s.name.substr(s.name.find(':') + 1);
      if (ops.size() > 36)
        ops = ops.substr(0, 33) + "...";
      os << llvm::formatv(
          "  {0,-36} {1,-8} {2,10} {3,10} {4,10} {5,10} {6,10} {7,10:f1}\n",
          ops, s.hostDevice, s.hostBytesIn, s.hostBytesOut, s.hostOps,
          s.transferCycles, s.hostComputeCycles, s.wallSeconds * 1e6);
    }
    // A gpu-target binary says why its PTX did not run.
    for (const SegmentReport &s : r.segments)
      if (s.hostDevice == "skipped") {
        std::string why;
        if (!gpuAvailable(&why))
          os << "  gpu code not run (" << why
             << "); the cpu code of those groups ran\n";
        break;
      }
  }
  if (!t.layers.empty()) {
    os << "per layer:\n";
    os << llvm::formatv("  {0,-32} {1,12} {2,14} {3,7} {4,12} {5,12}\n",
                        "layer", "cycles", "MACs", "util", "DRAM rd",
                        "DRAM wr");
    for (const sim::LayerStats &l : t.layers) {
      uint64_t peak = l.cycles() * cfg.array.rows * cfg.array.cols;
      std::string util =
          cyc && peak
              ? llvm::formatv("{0:f1}%",
                              100.0 * double(l.actions.macs) / double(peak))
                    .str()
              : "-";
      os << llvm::formatv(
          "  {0,-32} {1,12} {2,14} {3,7} {4,12} {5,12}\n",
          l.name.size() > 32 ? l.name.substr(0, 29) + "..." : l.name,
          cyc ? std::to_string(l.cycles()) : "-", l.actions.macs, util,
          l.actions.dramReadBytes, l.actions.dramWriteBytes);
    }
  }
}

llvm::Error rt::writeTrace(const RunReport &r, const Model &model,
                           llvm::StringRef path, uint64_t maxInstructions) {
  const isa::HwConfig &cfg = model.config();
  const isa::Program &p = model.program();
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError(ec, "--trace %s: %s", path.str().c_str(),
                                   ec.message().c_str());
  enum Track {
    kLoadQ = 1,
    kComputeQ,
    kStoreQ,
    kDram,
    kArray,
    kPost,
    kVector,
    kHost,
    kLayers
  };
  static const char *trackNames[] = {"",
                                     "load queue",
                                     "compute queue",
                                     "store queue",
                                     "DRAM channel",
                                     "systolic array",
                                     "post-processor",
                                     "vector unit",
                                     "host kernels",
                                     "layers"};
  llvm::json::OStream j(os);
  uint64_t written = 0, skipped = 0;
  j.object([&] {
    j.attribute("displayTimeUnit", "ns");
    j.attributeArray("traceEvents", [&] {
      j.object([&] {
        j.attribute("ph", "M");
        j.attribute("pid", 1);
        j.attribute("name", "process_name");
        j.attributeObject("args",
                          [&] { j.attribute("name", "NPU " + cfg.name); });
      });
      for (int tid = 1; tid <= kLayers; ++tid)
        j.object([&] {
          j.attribute("ph", "M");
          j.attribute("pid", 1);
          j.attribute("tid", tid);
          j.attribute("name", "thread_name");
          j.attributeObject("args",
                            [&] { j.attribute("name", trackNames[tid]); });
        });
      auto span = [&](int tid, llvm::StringRef name, uint64_t start,
                      uint64_t end, llvm::function_ref<void()> args) {
        j.object([&] {
          j.attribute("ph", "X");
          j.attribute("pid", 1);
          j.attribute("tid", tid);
          j.attribute("name", name);
          j.attribute("ts", micros(start, cfg));
          j.attribute("dur", micros(end - start, cfg));
          if (args)
            j.attributeObject("args", args);
        });
      };
      for (size_t s = 0; s < r.segments.size(); ++s) {
        const SegmentReport &sr = r.segments[s];
        if (!sr.npu) {
          // A span of the segment's host time (transfers + compute).
          uint64_t cycles = sr.transferCycles + sr.hostComputeCycles;
          span(kHost, sr.hostKernel + " (" + sr.name + ")", sr.startCycle,
               sr.startCycle + cycles, [&] {
                 j.attribute("device", sr.hostDevice);
                 j.attribute("bytes_in", int64_t(sr.hostBytesIn));
                 j.attribute("bytes_out", int64_t(sr.hostBytesOut));
                 j.attribute("host_ops", int64_t(sr.hostOps));
                 j.attribute("transfer_cycles", int64_t(sr.transferCycles));
                 j.attribute("compute_cycles", int64_t(sr.hostComputeCycles));
               });
          continue;
        }
        const auto &stream = p.segments[s].npu().instructions;
        const auto &recs = sr.stats.instructions;
        for (size_t i = 0; i < recs.size() && i < stream.size(); ++i) {
          const sim::InstructionRecord &rec = recs[i];
          const isa::Instruction &I = stream[i];
          if (!rec.executed || I.opcode() == isa::Opcode::End)
            continue;
          if (written >= maxInstructions) {
            ++skipped;
            continue;
          }
          ++written;
          uint64_t base = sr.startCycle;
          std::string name = llvm::formatv(
              "{0} #{1}", isa::opcodeInfo(I.opcode()).mnemonic, i);
          int q = int(I.queue());
          auto args = [&] {
            j.attribute("segment", sr.name);
            j.attribute("index", int64_t(i));
            j.attribute("fetch_cycle", int64_t(base + rec.fetch));
            j.attribute("start_cycle", int64_t(base + rec.start));
            j.attribute("end_cycle", int64_t(base + rec.end));
            j.attribute("token_wait", int64_t(rec.tokenWait));
            if (rec.dramContention)
              j.attribute("dram_contention", int64_t(rec.dramContention));
          };
          span(kLoadQ + q, name, base + rec.start, base + rec.end, args);
          if (I.opcode() == isa::Opcode::Load ||
              I.opcode() == isa::Opcode::Store) {
            span(kDram, name, base + rec.channelStart, base + rec.channelEnd,
                 nullptr);
          } else if (I.opcode() != isa::Opcode::Fence) {
            sim::Unit u = sim::executingUnit(I);
            int tid = u == sim::Unit::SystolicArray   ? kArray
                      : u == sim::Unit::PostProcessor ? kPost
                                                      : kVector;
            span(tid, name, base + rec.start, base + rec.end, nullptr);
          }
        }
        for (const sim::LayerStats &l : sr.stats.layers)
          span(kLayers, l.name, l.startCycle, l.endCycle, [&] {
            j.attribute("macs", int64_t(l.actions.macs));
            j.attribute("dram_read_bytes", int64_t(l.actions.dramReadBytes));
          });
      }
    });
    j.attributeObject("metadata", [&] {
      j.attribute("backend", sim::backendName(r.backend));
      j.attribute("clock_mhz", cfg.clockMhz);
      j.attribute("instructions_written", int64_t(written));
      j.attribute("instructions_omitted", int64_t(skipped));
    });
  });
  os << "\n";
  return llvm::Error::success();
}
