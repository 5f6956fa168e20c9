//===- Binary.cpp - Program <-> FlatBuffers (.npu) ------------------------===//
#include "systole/ISA/Program.h"
#include "systole/ISA/Verifier.h"

#include "npu_generated.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace systole::isa;
using llvm::createStringError;
using llvm::inconvertibleErrorCode;
namespace fb = systole::fb;

namespace {
template <typename... Ts> llvm::Error err(const char *fmt, Ts... args) {
  return createStringError(inconvertibleErrorCode(), fmt, args...);
}

flatbuffers::Offset<fb::HwConfig> writeConfig(flatbuffers::FlatBufferBuilder &b,
                                              const HwConfig &c) {
  std::vector<uint8_t> flows;
  if (c.array.ws)
    flows.push_back(fb::Dataflow_WS);
  if (c.array.os)
    flows.push_back(fb::Dataflow_OS);
  auto name = b.CreateString(c.name);
  auto flowVec = b.CreateVector(flows);
  auto array = fb::CreateArrayConfig(b, c.array.rows, c.array.cols, flowVec,
                                     c.array.matmulInflight);
  auto sram =
      fb::CreateSramConfig(b, c.sram.scratchpadBytes, c.sram.scratchpadBanks,
                           c.sram.accumulatorBytes, c.sram.accumulatorBanks);
  auto dram =
      fb::CreateDramConfig(b, c.dram.bytesPerCycle, c.dram.latencyCycles,
                           c.dram.burstBytes, c.dram.capacityBytes);
  // One tap per cycle is written as the absent field, so binaries for
  // configs without a wider depthwise engine stay as they were.
  auto vec = fb::CreateVectorConfig(
      b, c.vector.lanes, c.vector.pipelineDepth, c.vector.requantOverlap,
      c.vector.dwconvTaps > 1 ? c.vector.dwconvTaps : 0);
  auto q = fb::CreateQueueConfig(b, c.queues.cmdDepth, c.queues.tokenDepth);
  const auto &e = c.energy;
  auto energy = fb::CreateEnergyConfig(
      b, e.macPj, e.spReadPjPerByte, e.spWritePjPerByte, e.accReadPjPerWord,
      e.accWritePjPerWord, e.dramPjPerByte, e.vectorOpPj, e.leakagePjPerCycle,
      e.hostOpPj);
  auto host = fb::CreateHostConfig(b, c.host.opsPerCycle);
  return fb::CreateHwConfig(b, name, array, sram, dram, vec, q, c.clockMhz,
                            energy, host);
}

llvm::Expected<HwConfig> readConfig(const fb::HwConfig *c) {
  if (!c)
    return err("config: missing");
  if (!c->name())
    return err("config.name: missing");
  if (!c->array())
    return err("config.array: missing");
  if (!c->sram())
    return err("config.sram: missing");
  if (!c->dram())
    return err("config.dram: missing");
  if (!c->vector())
    return err("config.vector: missing");
  if (!c->queues())
    return err("config.queues: missing");
  HwConfig h;
  h.name = c->name()->str();
  h.array.rows = c->array()->rows();
  h.array.cols = c->array()->cols();
  // Binaries written before the field existed ran one MATMUL at a time.
  h.array.matmulInflight =
      c->array()->matmul_inflight() ? c->array()->matmul_inflight() : 1;
  if (const auto *flows = c->array()->dataflows()) {
    for (auto f : *flows) {
      if (f == fb::Dataflow_WS && !h.array.ws)
        h.array.ws = true;
      else if (f == fb::Dataflow_OS && !h.array.os)
        h.array.os = true;
      else
        return err("config.array.dataflows: invalid or duplicate value %u",
                   unsigned(f));
    }
  }
  h.sram = {c->sram()->scratchpad_bytes(), c->sram()->scratchpad_banks(),
            c->sram()->accumulator_bytes(), c->sram()->accumulator_banks()};
  h.dram = {c->dram()->bytes_per_cycle(), c->dram()->latency_cycles(),
            c->dram()->burst_bytes(), c->dram()->capacity_bytes()};
  h.vector = {c->vector()->lanes(), c->vector()->pipeline_depth(),
              c->vector()->requant_overlap(),
              std::max<uint64_t>(1, c->vector()->dwconv_taps())};
  h.queues = {c->queues()->cmd_depth(), c->queues()->token_depth()};
  h.clockMhz = c->clock_mhz();
  if (const auto *e = c->energy())
    h.energy = {e->mac_pj(),
                e->sp_read_pj_per_byte(),
                e->sp_write_pj_per_byte(),
                e->acc_read_pj_per_word(),
                e->acc_write_pj_per_word(),
                e->dram_pj_per_byte(),
                e->vector_op_pj(),
                e->leakage_pj_per_cycle(),
                e->host_op_pj()};
  if (const auto *host = c->host())
    h.host.opsPerCycle = host->ops_per_cycle();
  if (auto e = validateHwConfig(h))
    return createStringError(inconvertibleErrorCode(),
                             "config." + llvm::toString(std::move(e)));
  return h;
}

std::string str(const flatbuffers::String *s) {
  return s ? s->str() : std::string();
}
} // namespace

std::vector<uint8_t> systole::isa::writeProgram(const Program &p) {
  flatbuffers::FlatBufferBuilder b(1024);
  auto producer = b.CreateString(p.producer);
  auto config = writeConfig(b, p.config);

  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (const TensorDesc &t : p.tensors) {
    auto name = b.CreateString(t.name);
    auto shape = b.CreateVector(t.shape);
    flatbuffers::Offset<fb::Quantization> quant;
    if (t.quant)
      quant = fb::CreateQuantization(b, b.CreateVector(t.quant->scales),
                                     b.CreateVector(t.quant->zeroPoints),
                                     t.quant->axis);
    tensors.push_back(fb::CreateTensor(b, name,
                                       static_cast<fb::TensorKind>(t.kind),
                                       static_cast<fb::DType>(t.dtype), shape,
                                       quant, t.dramOffset, t.sizeBytes));
  }
  std::vector<flatbuffers::Offset<fb::ConstantSegment>> constants;
  for (const ConstantSegment &c : p.constants)
    constants.push_back(fb::CreateConstantSegment(
        b, b.CreateString(c.name), c.dramOffset, b.CreateVector(c.data)));
  std::vector<flatbuffers::Offset<fb::MemoryRegion>> regions;
  for (const MemoryRegion &r : p.memoryPlan.regions)
    regions.push_back(fb::CreateMemoryRegion(
        b, b.CreateString(r.name), static_cast<fb::RegionKind>(r.kind),
        r.offset, r.size));
  auto plan =
      fb::CreateMemoryPlan(b, p.memoryPlan.dramSize, b.CreateVector(regions));

  std::vector<flatbuffers::Offset<fb::Segment>> segments;
  for (const Segment &s : p.segments) {
    auto name = b.CreateString(s.name);
    if (s.isNpu()) {
      std::vector<uint8_t> bytes(s.npu().instructions.size() *
                                 kInstructionBytes);
      for (size_t i = 0; i < s.npu().instructions.size(); ++i)
        s.npu().instructions[i].encode(bytes.data() + i * kInstructionBytes);
      auto body = fb::CreateNpuSegment(b, b.CreateVector(bytes));
      segments.push_back(
          fb::CreateSegment(b, name, fb::SegmentBody_NpuSegment, body.Union()));
    } else {
      const HostSegment &h = s.host();
      auto body = fb::CreateHostSegment(
          b, static_cast<fb::HostCodeKind>(h.kind), b.CreateString(h.entry),
          b.CreateVector(h.code), b.CreateVector(h.args),
          b.CreateVector(h.params), h.ops);
      segments.push_back(fb::CreateSegment(b, name, fb::SegmentBody_HostSegment,
                                           body.Union()));
    }
  }
  std::vector<flatbuffers::Offset<fb::LayerDebugInfo>> layers;
  for (const LayerDebugInfo &l : p.layers)
    layers.push_back(fb::CreateLayerDebugInfo(b, b.CreateString(l.name),
                                              l.segment, l.firstInstruction,
                                              l.instructionCount));
  std::vector<flatbuffers::Offset<fb::OpPlacement>> placement;
  for (const OpPlacement &o : p.placement)
    placement.push_back(fb::CreateOpPlacement(
        b, b.CreateString(o.name), b.CreateString(o.op), o.onHost, o.macs,
        b.CreateString(o.reason), b.CreateString(o.note)));
  fb::FormatVersion version(p.versionMajor, p.versionMinor);
  // Format 1.0 readers ignore the appended field; writing none when there is
  // nothing to say keeps hand-written programs byte-identical.
  auto root = fb::CreateProgram(
      b, &version, producer, config, b.CreateVector(tensors),
      b.CreateVector(constants), plan, b.CreateVector(segments),
      b.CreateVector(layers), placement.empty() ? 0 : b.CreateVector(placement),
      p.hostLibrary.empty() ? 0 : b.CreateVector(p.hostLibrary));
  fb::FinishProgramBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(),
                              b.GetBufferPointer() + b.GetSize());
}

llvm::Error systole::isa::writeProgramFile(const Program &p,
                                           llvm::StringRef path) {
  std::vector<uint8_t> bytes = writeProgram(p);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                             ec.message().c_str());
  os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  os.close();
  if (os.has_error())
    return createStringError(os.error(), "cannot write '%s'",
                             path.str().c_str());
  return llvm::Error::success();
}

/// Copies a vector of 8-byte scalars. The FlatBuffers 2.0 Verifier checks
/// the alignment of a vector's length but not of its elements: a hostile file
/// can put an int64 vector at 4 mod 8, where reading elements is undefined
/// behaviour (UBSan, fuzz-npu-load). memcpy reads any alignment.
template <typename T>
static std::vector<T> copyScalars(const flatbuffers::Vector<T> *v) {
  static_assert(FLATBUFFERS_LITTLEENDIAN, "FlatBuffers data is little-endian");
  std::vector<T> out(v->size());
  if (!out.empty())
    std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

llvm::Expected<Program>
systole::isa::readProgram(llvm::ArrayRef<uint8_t> bytes) {
  // The Verifier checks field alignment relative to the buffer start, so the
  // start itself must be 8-aligned for those fields to be.
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(uint64_t) != 0) {
    std::vector<uint64_t> aligned((bytes.size() + 7) / 8);
    if (!bytes.empty())
      std::memcpy(aligned.data(), bytes.data(), bytes.size());
    return readProgram(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(aligned.data()), bytes.size()));
  }
  if (bytes.size() < 8)
    return err("not a .npu file: %zu bytes is too short", bytes.size());
  if (!fb::ProgramBufferHasIdentifier(bytes.data()))
    return err("not a .npu file: file identifier is not \"%s\"",
               kFileIdentifier);
  // The FlatBuffers runtime requires the root offset to be readable; its
  // Verifier bounds-checks everything else.
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!fb::VerifyProgramBuffer(verifier))
    return err("malformed .npu: FlatBuffers verification failed");
  const fb::Program *root = fb::GetProgram(bytes.data());

  Program p;
  if (!root->version())
    return err("version: missing");
  p.versionMajor = root->version()->major();
  p.versionMinor = root->version()->minor();
  if (p.versionMajor != kFormatMajor)
    return err(
        "version: format %u.%u is not supported (this reader reads %u.x)",
        unsigned(p.versionMajor), unsigned(p.versionMinor),
        unsigned(kFormatMajor));
  p.producer = str(root->producer());
  auto cfg = readConfig(root->config());
  if (!cfg)
    return cfg.takeError();
  p.config = *cfg;

  if (const auto *ts = root->tensors()) {
    for (unsigned i = 0; i < ts->size(); ++i) {
      const fb::Tensor *t = ts->Get(i);
      TensorDesc d;
      if (!t->name())
        return err("tensors[%u].name: missing", i);
      d.name = t->name()->str();
      if (t->kind() > fb::TensorKind_MAX)
        return err("tensors[%u] '%s'.kind: invalid value %u", i, d.name.c_str(),
                   unsigned(t->kind()));
      if (t->dtype() > fb::DType_MAX)
        return err("tensors[%u] '%s'.dtype: invalid value %u", i,
                   d.name.c_str(), unsigned(t->dtype()));
      d.kind = static_cast<TensorKind>(t->kind());
      d.dtype = static_cast<DType>(t->dtype());
      if (t->shape())
        d.shape = copyScalars(t->shape());
      if (const fb::Quantization *q = t->quant()) {
        QuantParams qp;
        if (q->scales())
          qp.scales.assign(q->scales()->begin(), q->scales()->end());
        if (q->zero_points())
          qp.zeroPoints.assign(q->zero_points()->begin(),
                               q->zero_points()->end());
        qp.axis = q->axis();
        d.quant = std::move(qp);
      }
      d.dramOffset = t->dram_offset();
      d.sizeBytes = t->size_bytes();
      p.tensors.push_back(std::move(d));
    }
  }
  if (const auto *cs = root->constants()) {
    for (unsigned i = 0; i < cs->size(); ++i) {
      const fb::ConstantSegment *c = cs->Get(i);
      ConstantSegment s;
      s.name = str(c->name());
      s.dramOffset = c->dram_offset();
      if (c->data())
        s.data.assign(c->data()->begin(), c->data()->end());
      p.constants.push_back(std::move(s));
    }
  }
  if (!root->memory_plan())
    return err("memory_plan: missing");
  p.memoryPlan.dramSize = root->memory_plan()->dram_size();
  if (const auto *rs = root->memory_plan()->regions()) {
    for (unsigned i = 0; i < rs->size(); ++i) {
      const fb::MemoryRegion *r = rs->Get(i);
      if (r->kind() > fb::RegionKind_MAX)
        return err("memory_plan.regions[%u].kind: invalid value %u", i,
                   unsigned(r->kind()));
      p.memoryPlan.regions.push_back({str(r->name()),
                                      static_cast<RegionKind>(r->kind()),
                                      r->offset(), r->size()});
    }
  }
  if (const auto *ss = root->segments()) {
    for (unsigned i = 0; i < ss->size(); ++i) {
      const fb::Segment *s = ss->Get(i);
      Segment seg;
      seg.name = str(s->name());
      if (const fb::NpuSegment *n = s->body_as_NpuSegment()) {
        NpuSegment npu;
        const auto *ins = n->instructions();
        size_t size = ins ? ins->size() : 0;
        if (size % kInstructionBytes)
          return err("segments[%u] '%s': instruction bytes (%zu) are not a "
                     "multiple of %zu",
                     i, seg.name.c_str(), size, kInstructionBytes);
        for (size_t k = 0; k * kInstructionBytes < size; ++k) {
          auto inst = decodeInstruction(llvm::ArrayRef<uint8_t>(
              ins->data() + k * kInstructionBytes, kInstructionBytes));
          if (!inst)
            return err("segments[%u] '%s' instruction #%zu: %s", i,
                       seg.name.c_str(), k,
                       llvm::toString(inst.takeError()).c_str());
          npu.instructions.push_back(*inst);
        }
        seg.body = std::move(npu);
      } else if (const fb::HostSegment *h = s->body_as_HostSegment()) {
        HostSegment host;
        if (h->kind() > fb::HostCodeKind_MAX)
          return err("segments[%u] '%s'.kind: invalid host code kind %u", i,
                     seg.name.c_str(), unsigned(h->kind()));
        host.kind = static_cast<HostCodeKind>(h->kind());
        host.entry = str(h->entry());
        if (h->code())
          host.code.assign(h->code()->begin(), h->code()->end());
        if (h->args())
          host.args.assign(h->args()->begin(), h->args()->end());
        if (h->params())
          host.params = copyScalars(h->params());
        host.ops = h->ops();
        seg.body = std::move(host);
      } else {
        return err("segments[%u] '%s': missing or unknown segment body", i,
                   seg.name.c_str());
      }
      p.segments.push_back(std::move(seg));
    }
  }
  if (const auto *ls = root->layers()) {
    for (unsigned i = 0; i < ls->size(); ++i) {
      const fb::LayerDebugInfo *l = ls->Get(i);
      p.layers.push_back({str(l->name()), l->segment(), l->first_instruction(),
                          l->instruction_count()});
    }
  }
  if (const auto *ps = root->placement()) {
    for (unsigned i = 0; i < ps->size(); ++i) {
      const fb::OpPlacement *o = ps->Get(i);
      p.placement.push_back({str(o->name()), str(o->op()), o->on_host(),
                             o->macs(), str(o->reason()), str(o->note())});
    }
  }
  if (const auto *lib = root->host_library())
    p.hostLibrary.assign(lib->begin(), lib->end());
  if (auto e = verifyProgram(p))
    return std::move(e);
  return p;
}

llvm::Expected<Program> systole::isa::readProgramFile(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return createStringError(buf.getError(), "cannot read '%s': %s",
                             path.str().c_str(),
                             buf.getError().message().c_str());
  llvm::StringRef data = (*buf)->getBuffer();
  auto p = readProgram(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(data.data()), data.size()));
  if (!p)
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             path.str().c_str(),
                             llvm::toString(p.takeError()).c_str());
  return p;
}
