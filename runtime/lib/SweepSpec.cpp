//===- SweepSpec.cpp - Sweep axes, points and their derived configs -------===//
#include "systole/Runtime/Analysis.h"
#include "systole/Runtime/Sweep.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace systole;
using namespace systole::rt;
namespace json = llvm::json;

static llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Expected<std::vector<std::pair<uint64_t, uint64_t>>>
rt::parseArrayList(llvm::StringRef text) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',', -1, false);
  for (llvm::StringRef item : items) {
    auto [r, c] = item.trim().split('x');
    uint64_t rows, cols;
    if (r.getAsInteger(10, rows) || c.getAsInteger(10, cols) || !rows || !cols)
      return error("array '" + item + "': expected ROWSxCOLS, e.g. 32x32");
    out.emplace_back(rows, cols);
  }
  if (out.empty())
    return error("empty array list");
  return out;
}

llvm::Expected<std::vector<uint64_t>> rt::parseSizeList(llvm::StringRef text) {
  std::vector<uint64_t> out;
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',', -1, false);
  for (llvm::StringRef item : items) {
    llvm::StringRef s = item.trim();
    uint64_t scale = 1;
    s.consume_back("iB") || s.consume_back("B");
    if (s.consume_back("K") || s.consume_back("k"))
      scale = 1024;
    else if (s.consume_back("M") || s.consume_back("m"))
      scale = 1024 * 1024;
    else if (s.consume_back("G") || s.consume_back("g"))
      scale = 1024 * 1024 * 1024;
    uint64_t v;
    if (s.getAsInteger(10, v) || !v)
      return error("'" + item + "': expected a positive size (e.g. 256K, 1M)");
    out.push_back(v * scale);
  }
  if (out.empty())
    return error("empty list");
  return out;
}

json::Value rt::sweepSpecToJson(const SweepSpec &s) {
  json::Array arrays, sram, bw, args;
  for (auto [r, c] : s.arrays)
    arrays.push_back(llvm::formatv("{0}x{1}", r, c).str());
  for (uint64_t v : s.scratchpadBytes)
    sram.push_back(int64_t(v));
  for (uint64_t v : s.dramBytesPerCycle)
    bw.push_back(int64_t(v));
  for (const std::string &a : s.compileArgs)
    args.push_back(a);
  return json::Object{{"model", s.model},
                      {"mode", s.mode},
                      {"base_config", isa::hwConfigToJson(s.base)},
                      {"array", std::move(arrays)},
                      {"scratchpad_bytes", std::move(sram)},
                      {"dram_bytes_per_cycle", std::move(bw)},
                      {"compile_args", std::move(args)},
                      {"area_table", s.areaTable}};
}

llvm::Expected<SweepSpec> rt::sweepSpecFromJson(const json::Value &v) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return error("sweep.json: not an object");
  SweepSpec s;
  auto str = [&](const char *k) -> std::string {
    auto x = o->getString(k);
    return x ? x->str() : "";
  };
  s.model = str("model");
  s.mode = str("mode");
  s.areaTable = str("area_table");
  const json::Value *base = o->get("base_config");
  if (!base)
    return error("sweep.json: base_config missing");
  auto cfg = isa::hwConfigFromJson(*base);
  if (!cfg)
    return cfg.takeError();
  s.base = *cfg;
  auto ints = [&](const char *k, std::vector<uint64_t> &out) -> llvm::Error {
    const json::Array *a = o->getArray(k);
    if (!a)
      return error(llvm::Twine("sweep.json: ") + k + " missing");
    for (const json::Value &x : *a)
      if (auto i = x.getAsInteger())
        out.push_back(uint64_t(*i));
    return llvm::Error::success();
  };
  if (auto e = ints("scratchpad_bytes", s.scratchpadBytes))
    return std::move(e);
  if (auto e = ints("dram_bytes_per_cycle", s.dramBytesPerCycle))
    return std::move(e);
  std::string arrays;
  if (const json::Array *a = o->getArray("array"))
    for (const json::Value &x : *a)
      if (auto t = x.getAsString())
        arrays += (arrays.empty() ? "" : ",") + t->str();
  auto parsed = parseArrayList(arrays);
  if (!parsed)
    return parsed.takeError();
  s.arrays = *parsed;
  if (const json::Array *a = o->getArray("compile_args"))
    for (const json::Value &x : *a)
      if (auto t = x.getAsString())
        s.compileArgs.push_back(t->str());
  return s;
}

SweepPoint rt::sweepPoint(const SweepSpec &s, size_t i) {
  SweepPoint p;
  p.index = i;
  size_t nb = s.dramBytesPerCycle.size(), ns = s.scratchpadBytes.size();
  auto [r, c] = s.arrays[i / (ns * nb)];
  p.rows = r;
  p.cols = c;
  p.scratchpadBytes = s.scratchpadBytes[i / nb % ns];
  p.dramBytesPerCycle = s.dramBytesPerCycle[i % nb];
  return p;
}

llvm::Expected<isa::HwConfig> rt::sweepPointConfig(const SweepSpec &s,
                                                   const SweepPoint &p) {
  isa::HwConfig c = s.base;
  c.name = llvm::formatv("sweep-{0}x{1}-sp{2}k-bw{3}", p.rows, p.cols,
                         p.scratchpadBytes / 1024, p.dramBytesPerCycle)
               .str();
  c.array.rows = p.rows;
  c.array.cols = p.cols;
  c.vector.lanes = p.cols;
  uint64_t baseSp = c.sram.scratchpadBytes, baseAcc = c.sram.accumulatorBytes;
  c.sram.scratchpadBytes = p.scratchpadBytes;
  while (c.sram.scratchpadBanks > 1 &&
         p.scratchpadBytes % c.sram.scratchpadBanks)
    c.sram.scratchpadBanks /= 2;
  c.sram.accumulatorBytes = std::max<uint64_t>(
      p.scratchpadBytes / 2, 4 * c.sram.accumulatorBanks * p.cols);
  c.dram.bytesPerCycle = p.dramBytesPerCycle;
  c.dram.burstBytes = std::max(c.dram.burstBytes, p.dramBytesPerCycle);
  // Bigger SRAMs cost more per access (longer bit lines and wires): the
  // base's prices move along Horowitz's capacity curve, so a point with the
  // base's capacities keeps the base's prices exactly (same hardware, same
  // energy as `systole report` on the base) and calibrated prices stay
  // calibrated (docs/energy.md).
  c.energy = scaleSramPrices(s.base.energy, baseSp, baseAcc, c.sram);
  if (auto e = isa::validateHwConfig(c))
    return error(llvm::formatv("point {0} ({1}): {2}", p.index, c.name,
                               llvm::toString(std::move(e))));
  return c;
}

std::string SweepDir::resultPath(size_t i) const {
  return llvm::formatv("{0}/{1:d4}.json", pointsDir(), i).str();
}
std::string SweepDir::configPath(size_t i) const {
  return llvm::formatv("{0}/{1:d4}.hw.json", pointsDir(), i).str();
}
std::string SweepDir::binaryPath(size_t i) const {
  return llvm::formatv("{0}/{1:d4}.npu", pointsDir(), i).str();
}
std::string SweepDir::logPath(size_t i) const {
  return llvm::formatv("{0}/{1:d4}.log", pointsDir(), i).str();
}

llvm::Expected<SweepSpec> rt::loadSweepSpec(const SweepDir &dir) {
  auto buf = llvm::MemoryBuffer::getFile(dir.specPath());
  if (!buf)
    return error("cannot read " + dir.specPath() + ": " +
                 buf.getError().message());
  auto v = json::parse((*buf)->getBuffer());
  if (!v)
    return v.takeError();
  return sweepSpecFromJson(*v);
}

llvm::Error rt::prepareSweepDir(const SweepDir &dir, const SweepSpec &spec) {
  if (auto ec = llvm::sys::fs::create_directories(dir.pointsDir()))
    return error("cannot create " + dir.pointsDir() + ": " + ec.message());
  std::string text = llvm::formatv("{0:2}", sweepSpecToJson(spec)).str();
  if (llvm::sys::fs::exists(dir.specPath())) {
    auto buf = llvm::MemoryBuffer::getFile(dir.specPath());
    if (buf && (*buf)->getBuffer().trim() == llvm::StringRef(text).trim())
      return llvm::Error::success();
    return error(dir.root + " holds a different sweep (sweep.json differs); "
                            "use another --out directory");
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(dir.specPath(), ec);
  if (ec)
    return error("cannot write " + dir.specPath() + ": " + ec.message());
  os << text << "\n";
  return llvm::Error::success();
}

std::vector<size_t> rt::pendingPoints(const SweepDir &dir,
                                      const SweepSpec &spec) {
  std::vector<size_t> out;
  for (size_t i = 0; i < spec.size(); ++i)
    if (!llvm::sys::fs::exists(dir.resultPath(i)))
      out.push_back(i);
  return out;
}
