//===- SweepResults.cpp - Point results, Pareto front, CSV, gathering -----===//
#include "systole/Runtime/Sweep.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace systole;
using namespace systole::rt;
namespace json = llvm::json;

json::Value rt::pointResultToJson(const PointResult &r) {
  return json::Object{
      {"index", int64_t(r.point.index)},
      {"rows", int64_t(r.point.rows)},
      {"cols", int64_t(r.point.cols)},
      {"scratchpad_bytes", int64_t(r.point.scratchpadBytes)},
      {"dram_bytes_per_cycle", int64_t(r.point.dramBytesPerCycle)},
      {"config", r.configName},
      {"status", r.status},
      {"message", r.message},
      {"cycles", int64_t(r.cycles)},
      {"time_us", r.timeUs},
      {"macs", int64_t(r.macs)},
      {"mac_utilization", r.macUtilization},
      {"dram_bytes", int64_t(r.dramBytes)},
      {"bound_cycles", r.boundCycles},
      {"energy_pj", r.energyPj},
      {"energy_compute_pj", r.energyComputePj},
      {"energy_sram_pj", r.energySramPj},
      {"energy_dram_pj", r.energyDramPj},
      {"area_mm2", r.areaMm2},
      {"area_source", r.areaSource},
      {"compile_seconds", r.compileSeconds},
      {"simulate_seconds", r.simulateSeconds}};
}

llvm::Expected<PointResult> rt::pointResultFromJson(const json::Value &v) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "point result: not an object");
  PointResult r;
  auto u = [&](const char *k) {
    return uint64_t(o->getInteger(k).value_or(0));
  };
  auto d = [&](const char *k) { return o->getNumber(k).value_or(0.0); };
  auto s = [&](const char *k) {
    auto x = o->getString(k);
    return x ? x->str() : std::string();
  };
  r.point.index = u("index");
  r.point.rows = u("rows");
  r.point.cols = u("cols");
  r.point.scratchpadBytes = u("scratchpad_bytes");
  r.point.dramBytesPerCycle = u("dram_bytes_per_cycle");
  r.configName = s("config");
  r.status = s("status");
  r.message = s("message");
  r.cycles = u("cycles");
  r.timeUs = d("time_us");
  r.macs = u("macs");
  r.macUtilization = d("mac_utilization");
  r.dramBytes = u("dram_bytes");
  r.boundCycles = d("bound_cycles");
  r.energyPj = d("energy_pj");
  r.energyComputePj = d("energy_compute_pj");
  r.energySramPj = d("energy_sram_pj");
  r.energyDramPj = d("energy_dram_pj");
  r.areaMm2 = d("area_mm2");
  r.areaSource = s("area_source");
  r.compileSeconds = d("compile_seconds");
  r.simulateSeconds = d("simulate_seconds");
  return r;
}

void rt::markParetoFront(std::vector<PointResult> &rs) {
  auto dominates = [](const PointResult &a, const PointResult &b) {
    bool le = a.timeUs <= b.timeUs && a.energyPj <= b.energyPj &&
              a.areaMm2 <= b.areaMm2;
    bool lt =
        a.timeUs < b.timeUs || a.energyPj < b.energyPj || a.areaMm2 < b.areaMm2;
    return le && lt;
  };
  for (PointResult &r : rs) {
    r.pareto = r.status == "ok";
    for (const PointResult &q : rs)
      if (r.pareto && q.status == "ok" && dominates(q, r))
        r.pareto = false;
  }
}

static std::string csvField(llvm::StringRef s) {
  if (!s.contains(',') && !s.contains('"') && !s.contains('\n'))
    return s.str();
  std::string out = "\"";
  for (char c : s) {
    if (c == '"')
      out += '"';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

void rt::writeSweepCsv(llvm::ArrayRef<PointResult> rs, llvm::raw_ostream &os) {
  os << "index,array,scratchpad_bytes,dram_bytes_per_cycle,status,cycles,"
        "time_us,macs,mac_utilization,dram_bytes,bound_cycles,energy_pj,"
        "energy_compute_pj,energy_sram_pj,energy_dram_pj,area_mm2,"
        "area_source,pareto,message\n";
  for (const PointResult &r : rs)
    os << llvm::formatv("{0},{1}x{2},{3},{4},{5},{6},{7:f3},{8},{9:f4},{10},"
                        "{11:f0},",
                        r.point.index, r.point.rows, r.point.cols,
                        r.point.scratchpadBytes, r.point.dramBytesPerCycle,
                        r.status, r.cycles, r.timeUs, r.macs, r.macUtilization,
                        r.dramBytes, r.boundCycles)
       << llvm::formatv("{0:f0},{1:f0},{2:f0},{3:f0},{4:f4},{5},{6},{7}\n",
                        r.energyPj, r.energyComputePj, r.energySramPj,
                        r.energyDramPj, r.areaMm2, csvField(r.areaSource),
                        r.pareto ? 1 : 0, csvField(r.message));
}

llvm::Expected<std::vector<PointResult>>
rt::gatherSweep(const SweepDir &dir, const SweepSpec &spec) {
  std::vector<PointResult> rs;
  for (size_t i = 0; i < spec.size(); ++i) {
    auto buf = llvm::MemoryBuffer::getFile(dir.resultPath(i));
    if (!buf)
      continue;
    auto v = json::parse((*buf)->getBuffer());
    if (!v)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s",
                                     dir.resultPath(i).c_str(),
                                     llvm::toString(v.takeError()).c_str());
    auto r = pointResultFromJson(*v);
    if (!r)
      return r.takeError();
    rs.push_back(std::move(*r));
  }
  markParetoFront(rs);
  for (auto [path, html] :
       {std::pair(dir.csvPath(), false), std::pair(dir.htmlPath(), true)}) {
    std::string tmp = path + ".tmp";
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(tmp, ec);
      if (ec)
        return llvm::createStringError(ec, "cannot write %s", tmp.c_str());
      if (html)
        writeSweepHtml(spec, rs, os);
      else
        writeSweepCsv(rs, os);
    }
    if (auto ec = llvm::sys::fs::rename(tmp, path))
      return llvm::createStringError(ec, "cannot write %s", path.c_str());
  }
  return rs;
}
