//===- HwConfig.cpp - Hardware configuration: JSON, validation ------------===//
#include "systole/ISA/HwConfig.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <tuple>

using namespace systole::isa;
using llvm::createStringError;
using llvm::inconvertibleErrorCode;

namespace {
using Spec = HwConfigFieldSpec;
constexpr double k2_32 = 4294967296.0;

// The schema. Ranges are chosen so that every address/size derived from the
// config fits the instruction fields (32-bit SRAM addresses, 16-bit N).
const Spec kSpecs[] = {
    {"name", Spec::String, true, 0, 0, "", "preset / product name"},
    {"array.rows", Spec::UInt, true, 1, 1024, "PEs",
     "rows R of the systolic array"},
    {"array.cols", Spec::UInt, true, 1, 1024, "PEs",
     "columns C of the systolic array"},
    {"array.dataflows", Spec::DataflowList, true, 0, 0, "",
     "supported dataflows, subset of [\"ws\", \"os\"]"},
    {"array.matmul_inflight", Spec::UInt, false, 1, 8, "MATMULs",
     "WS MATMULs streaming through the array at once (double-buffered PE "
     "weights, docs/isa.md section 6); 1 (default): each waits until the "
     "previous one has drained"},
    {"sram.scratchpad_bytes", Spec::UInt, true, 1024, k2_32, "bytes",
     "int8 scratchpad capacity S"},
    {"sram.scratchpad_banks", Spec::UInt, true, 1, 1024, "banks",
     "power of two dividing scratchpad_bytes; bank b = [b*S/banks, "
     "(b+1)*S/banks)"},
    {"sram.accumulator_bytes", Spec::UInt, true, 64, 4 * k2_32, "bytes",
     "int32 accumulator capacity (multiple of 4*accumulator_banks)"},
    {"sram.accumulator_banks", Spec::UInt, true, 1, 1024, "banks",
     "power of two"},
    {"dram.bytes_per_cycle", Spec::UInt, true, 1, 4096, "bytes/cycle",
     "DRAM channel bandwidth"},
    {"dram.latency_cycles", Spec::UInt, true, 0, 1000000, "cycles",
     "from the last beat of a DMA to its completion"},
    {"dram.burst_bytes", Spec::UInt, true, 1, 65536, "bytes",
     "burst size, a power of two and a multiple of bytes_per_cycle"},
    {"dram.capacity_bytes", Spec::UInt, true, 1, 281474976710656.0, "bytes",
     "DRAM capacity (upper bound of a program's dram_size)"},
    {"vector.lanes", Spec::UInt, true, 1, 4096, "elements/cycle",
     "vector unit / post-processing width"},
    {"vector.pipeline_depth", Spec::UInt, true, 0, 1024, "cycles",
     "post-processing pipeline depth P"},
    {"vector.requant_overlap", Spec::UInt, false, 0, 1, "",
     "1: REQUANT runs on the post-processor beside the array, later MATMULs "
     "do not wait for it; 0 (default): it occupies the compute queue"},
    {"vector.dwconv_taps", Spec::UInt, false, 1, 64, "taps/cycle",
     "taps of one kernel row each DWCONV lane multiplies per cycle (a "
     "depthwise engine of lanes x dwconv_taps MACs); 1 (default): one"},
    {"queues.cmd_depth", Spec::UInt, true, 1, 65536, "instructions",
     "depth of each command queue"},
    {"queues.token_depth", Spec::UInt, true, 1, 65536, "tokens",
     "depth of each dependency-token FIFO"},
    {"clock_mhz", Spec::Float, true, 1e-3, 1e5, "MHz", "clock frequency"},
    {"host.ops_per_cycle", Spec::Float, false, 1e-6, 1e6, "ops/cycle",
     "elementary operations the host CPU completes per NPU clock cycle "
     "(host segments' compute time; default 8)"},
    {"energy.mac_pj", Spec::Float, false, 0, 1e9, "pJ",
     "one int8 MAC with int32 accumulate"},
    {"energy.sp_read_pj_per_byte", Spec::Float, false, 0, 1e9, "pJ/byte",
     "scratchpad read"},
    {"energy.sp_write_pj_per_byte", Spec::Float, false, 0, 1e9, "pJ/byte",
     "scratchpad write"},
    {"energy.acc_read_pj_per_word", Spec::Float, false, 0, 1e9, "pJ/word",
     "accumulator read"},
    {"energy.acc_write_pj_per_word", Spec::Float, false, 0, 1e9, "pJ/word",
     "accumulator write"},
    {"energy.dram_pj_per_byte", Spec::Float, false, 0, 1e9, "pJ/byte",
     "DRAM transfer"},
    {"energy.vector_op_pj", Spec::Float, false, 0, 1e9, "pJ",
     "one vector-unit element operation (fp32 mul+add)"},
    {"energy.leakage_pj_per_cycle", Spec::Float, false, 0, 1e9, "pJ/cycle",
     "static energy per cycle"},
    {"energy.host_op_pj", Spec::Float, false, 0, 1e9, "pJ",
     "one elementary operation of the host CPU (default 9)"},
};

uint64_t *uintSlot(HwConfig &c, llvm::StringRef p) {
  if (p == "array.rows")
    return &c.array.rows;
  if (p == "array.cols")
    return &c.array.cols;
  if (p == "array.matmul_inflight")
    return &c.array.matmulInflight;
  if (p == "sram.scratchpad_bytes")
    return &c.sram.scratchpadBytes;
  if (p == "sram.scratchpad_banks")
    return &c.sram.scratchpadBanks;
  if (p == "sram.accumulator_bytes")
    return &c.sram.accumulatorBytes;
  if (p == "sram.accumulator_banks")
    return &c.sram.accumulatorBanks;
  if (p == "dram.bytes_per_cycle")
    return &c.dram.bytesPerCycle;
  if (p == "dram.latency_cycles")
    return &c.dram.latencyCycles;
  if (p == "dram.burst_bytes")
    return &c.dram.burstBytes;
  if (p == "dram.capacity_bytes")
    return &c.dram.capacityBytes;
  if (p == "vector.lanes")
    return &c.vector.lanes;
  if (p == "vector.pipeline_depth")
    return &c.vector.pipelineDepth;
  if (p == "vector.requant_overlap")
    return &c.vector.requantOverlap;
  if (p == "vector.dwconv_taps")
    return &c.vector.dwconvTaps;
  if (p == "queues.cmd_depth")
    return &c.queues.cmdDepth;
  if (p == "queues.token_depth")
    return &c.queues.tokenDepth;
  return nullptr;
}

double *floatSlot(HwConfig &c, llvm::StringRef p) {
  if (p == "clock_mhz")
    return &c.clockMhz;
  if (p == "host.ops_per_cycle")
    return &c.host.opsPerCycle;
  if (p == "energy.host_op_pj")
    return &c.energy.hostOpPj;
  if (p == "energy.mac_pj")
    return &c.energy.macPj;
  if (p == "energy.sp_read_pj_per_byte")
    return &c.energy.spReadPjPerByte;
  if (p == "energy.sp_write_pj_per_byte")
    return &c.energy.spWritePjPerByte;
  if (p == "energy.acc_read_pj_per_word")
    return &c.energy.accReadPjPerWord;
  if (p == "energy.acc_write_pj_per_word")
    return &c.energy.accWritePjPerWord;
  if (p == "energy.dram_pj_per_byte")
    return &c.energy.dramPjPerByte;
  if (p == "energy.vector_op_pj")
    return &c.energy.vectorOpPj;
  if (p == "energy.leakage_pj_per_cycle")
    return &c.energy.leakagePjPerCycle;
  return nullptr;
}

llvm::Error fieldError(llvm::StringRef path, const llvm::Twine &msg) {
  return createStringError(inconvertibleErrorCode(), (path + ": " + msg).str());
}

bool isPow2(uint64_t v) { return v && !(v & (v - 1)); }

std::string fmtNum(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e18)
    return llvm::formatv("{0}", static_cast<long long>(v)).str();
  return llvm::formatv("{0}", v).str();
}

llvm::Error checkRange(const Spec &s, double v) {
  if (!(v >= s.min && v <= s.max))
    return fieldError(s.path, "must be in [" + fmtNum(s.min) + ", " +
                                  fmtNum(s.max) + "], got " + fmtNum(v));
  return llvm::Error::success();
}

// The parent object of a dotted path ("sram" for "sram.scratchpad_bytes").
std::pair<llvm::StringRef, llvm::StringRef> splitPath(llvm::StringRef p) {
  auto dot = p.find('.');
  if (dot == llvm::StringRef::npos)
    return {"", p};
  return {p.substr(0, dot), p.substr(dot + 1)};
}
} // namespace

llvm::ArrayRef<HwConfigFieldSpec> systole::isa::hwConfigFields() {
  return kSpecs;
}

uint64_t HwConfig::scratchpadBank(uint64_t addr) const {
  uint64_t bankBytes = scratchpadBankBytes();
  if (!bankBytes)
    return 0;
  return std::min(addr / bankBytes, sram.scratchpadBanks - 1);
}

bool HwConfig::operator==(const HwConfig &o) const {
  auto tie = [](const HwConfig &c) {
    return std::make_tuple(
        c.name, c.array.rows, c.array.cols, c.array.ws, c.array.os,
        c.array.matmulInflight, c.sram.scratchpadBytes, c.sram.scratchpadBanks,
        c.sram.accumulatorBytes, c.sram.accumulatorBanks, c.dram.bytesPerCycle,
        c.dram.latencyCycles, c.dram.burstBytes, c.dram.capacityBytes,
        c.vector.lanes, c.vector.pipelineDepth, c.vector.requantOverlap,
        c.vector.dwconvTaps, c.queues.cmdDepth, c.queues.tokenDepth, c.clockMhz,
        c.energy.macPj, c.energy.spReadPjPerByte, c.energy.spWritePjPerByte,
        c.energy.accReadPjPerWord, c.energy.accWritePjPerWord,
        c.energy.dramPjPerByte, c.energy.vectorOpPj, c.energy.leakagePjPerCycle,
        c.host.opsPerCycle, c.energy.hostOpPj);
  };
  return tie(*this) == tie(o);
}

llvm::Expected<HwConfig>
systole::isa::hwConfigFromJson(const llvm::json::Value &value) {
  const llvm::json::Object *root = value.getAsObject();
  if (!root)
    return createStringError(inconvertibleErrorCode(),
                             "hardware config: expected a JSON object");
  // Unknown keys are errors: a typo must not silently fall back to a default.
  for (const auto &kv : *root) {
    llvm::StringRef key = kv.first;
    bool known = false;
    for (const Spec &s : kSpecs) {
      auto [parent, leaf] = splitPath(s.path);
      if ((parent.empty() && leaf == key) || parent == key)
        known = true;
    }
    if (!known)
      return fieldError(key, "unknown field");
    if (const llvm::json::Object *obj = kv.second.getAsObject()) {
      for (const auto &inner : *obj) {
        std::string path = (key + "." + inner.first.str()).str();
        bool innerKnown = false;
        for (const Spec &s : kSpecs)
          innerKnown |= path == s.path;
        if (!innerKnown)
          return fieldError(path, "unknown field");
      }
    }
  }

  HwConfig c;
  for (const Spec &s : kSpecs) {
    auto [parent, leaf] = splitPath(s.path);
    const llvm::json::Object *obj = root;
    if (!parent.empty()) {
      const llvm::json::Value *pv = root->get(parent);
      if (!pv) {
        if (s.required)
          return fieldError(s.path, "missing");
        continue;
      }
      obj = pv->getAsObject();
      if (!obj)
        return fieldError(parent, "expected an object");
    }
    const llvm::json::Value *v = obj->get(leaf);
    if (!v) {
      if (s.required)
        return fieldError(s.path, "missing");
      continue;
    }
    switch (s.kind) {
    case Spec::String: {
      auto str = v->getAsString();
      if (!str)
        return fieldError(s.path, "expected a string");
      if (str->empty())
        return fieldError(s.path, "must not be empty");
      c.name = str->str();
      break;
    }
    case Spec::UInt: {
      std::optional<uint64_t> u;
      if (v->kind() == llvm::json::Value::Number) {
        if (auto i = v->getAsInteger()) {
          if (*i < 0)
            return fieldError(s.path, "must be in [" + fmtNum(s.min) + ", " +
                                          fmtNum(s.max) + "], got " +
                                          std::to_string(*i));
          u = static_cast<uint64_t>(*i);
        } else if (auto big = v->getAsUINT64()) {
          u = *big;
        }
      }
      if (!u)
        return fieldError(s.path, "expected a non-negative integer");
      if (auto err = checkRange(s, static_cast<double>(*u)))
        return std::move(err);
      *uintSlot(c, s.path) = *u;
      break;
    }
    case Spec::Float: {
      auto d = v->getAsNumber();
      if (!d)
        return fieldError(s.path, "expected a number");
      if (auto err = checkRange(s, *d))
        return std::move(err);
      *floatSlot(c, s.path) = *d;
      break;
    }
    case Spec::DataflowList: {
      const llvm::json::Array *arr = v->getAsArray();
      if (!arr)
        return fieldError(s.path, "expected an array of strings");
      for (const llvm::json::Value &e : *arr) {
        auto str = e.getAsString();
        if (!str)
          return fieldError(s.path, "expected an array of strings");
        bool &slot = *str == "ws" ? c.array.ws : c.array.os;
        if (*str != "ws" && *str != "os")
          return fieldError(s.path, "unknown dataflow '" + *str +
                                        "' (expected \"ws\" or \"os\")");
        if (slot)
          return fieldError(s.path, "duplicate dataflow '" + *str + "'");
        slot = true;
      }
      break;
    }
    }
  }
  if (auto err = validateHwConfig(c))
    return std::move(err);
  return c;
}

llvm::Error systole::isa::validateHwConfig(const HwConfig &c) {
  HwConfig copy = c;
  for (const Spec &s : kSpecs) {
    if (s.kind == Spec::UInt) {
      if (auto err = checkRange(s, double(*uintSlot(copy, s.path))))
        return err;
    } else if (s.kind == Spec::Float) {
      if (auto err = checkRange(s, *floatSlot(copy, s.path)))
        return err;
    }
  }
  if (c.name.empty())
    return fieldError("name", "must not be empty");
  if (!llvm::json::isUTF8(c.name))
    return fieldError("name", "must be valid UTF-8");
  if (!c.array.ws && !c.array.os)
    return fieldError("array.dataflows", "must list at least one dataflow");
  if (!isPow2(c.sram.scratchpadBanks) ||
      c.sram.scratchpadBytes % c.sram.scratchpadBanks)
    return fieldError("sram.scratchpad_banks",
                      "must be a power of two dividing scratchpad_bytes");
  if (!isPow2(c.sram.accumulatorBanks))
    return fieldError("sram.accumulator_banks", "must be a power of two");
  if (c.sram.accumulatorBytes % (4 * c.sram.accumulatorBanks))
    return fieldError("sram.accumulator_bytes",
                      "must be a multiple of 4 * accumulator_banks");
  if (!isPow2(c.dram.burstBytes) || c.dram.burstBytes % c.dram.bytesPerCycle)
    return fieldError(
        "dram.burst_bytes",
        "must be a power of two and a multiple of bytes_per_cycle");
  return llvm::Error::success();
}

llvm::json::Value systole::isa::hwConfigToJson(const HwConfig &c) {
  HwConfig copy = c;
  llvm::json::Object root;
  for (const Spec &s : kSpecs) {
    auto [parent, leaf] = splitPath(s.path);
    llvm::json::Object *obj = &root;
    if (!parent.empty()) {
      if (!root.get(parent))
        root[parent] = llvm::json::Object();
      obj = root.getObject(parent);
    }
    switch (s.kind) {
    case Spec::String:
      (*obj)[leaf] = c.name;
      break;
    case Spec::UInt:
      (*obj)[leaf] = *uintSlot(copy, s.path);
      break;
    case Spec::Float:
      (*obj)[leaf] = *floatSlot(copy, s.path);
      break;
    case Spec::DataflowList: {
      llvm::json::Array a;
      if (c.array.ws)
        a.push_back("ws");
      if (c.array.os)
        a.push_back("os");
      (*obj)[leaf] = std::move(a);
      break;
    }
    }
  }
  return llvm::json::Value(std::move(root));
}

std::string systole::isa::hwConfigToJsonText(const HwConfig &c) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0:2}", hwConfigToJson(c));
  return out;
}

llvm::Expected<HwConfig> systole::isa::parseHwConfig(llvm::StringRef text) {
  auto value = llvm::json::parse(text);
  if (!value)
    return createStringError(inconvertibleErrorCode(),
                             "hardware config: invalid JSON: " +
                                 llvm::toString(value.takeError()));
  return hwConfigFromJson(*value);
}

llvm::Expected<HwConfig> systole::isa::loadHwConfigFile(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return createStringError(buf.getError(), "cannot read '%s': %s",
                             path.str().c_str(),
                             buf.getError().message().c_str());
  auto cfg = parseHwConfig((*buf)->getBuffer());
  if (!cfg)
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             path.str().c_str(),
                             llvm::toString(cfg.takeError()).c_str());
  return cfg;
}

llvm::Expected<std::vector<PresetEntry>>
systole::isa::listPresets(llvm::StringRef directory) {
  std::vector<PresetEntry> out;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       it != end && !ec; it.increment(ec)) {
    llvm::StringRef p = it->path();
    if (llvm::sys::path::extension(p) != ".json")
      continue;
    out.push_back({p.str(), llvm::sys::path::stem(p).str()});
  }
  if (ec)
    return createStringError(ec, "cannot list presets in '%s': %s",
                             directory.str().c_str(), ec.message().c_str());
  std::sort(out.begin(), out.end(),
            [](const PresetEntry &a, const PresetEntry &b) {
              return a.stem < b.stem;
            });
  return out;
}
