//===- PlacementReport.cpp - NPU/host shares of ops and MACs --------------===//
#include "systole/ISA/PlacementReport.h"

#include "llvm/Support/FormatVariadic.h"

using namespace systole::isa;

static double percent(uint64_t part, uint64_t total) {
  return total ? 100.0 * double(part) / double(total) : 0.0;
}

double PlacementTotals::npuOpShare() const {
  return percent(npuOps, npuOps + hostOps);
}
double PlacementTotals::npuMacShare() const {
  return percent(npuMacs, npuMacs + hostMacs);
}

PlacementTotals systole::isa::totalPlacement(llvm::ArrayRef<OpPlacement> ops) {
  PlacementTotals t;
  for (const OpPlacement &o : ops) {
    (o.onHost ? t.hostOps : t.npuOps) += 1;
    (o.onHost ? t.hostMacs : t.npuMacs) += o.macs;
  }
  return t;
}

void systole::isa::printPlacement(llvm::ArrayRef<OpPlacement> ops,
                                  llvm::raw_ostream &os) {
  if (ops.empty()) {
    // Format 1.0 binaries, or a program with no graph ops (hand-written).
    os << "placement: not recorded in this binary\n";
    return;
  }
  PlacementTotals t = totalPlacement(ops);
  uint64_t allOps = t.npuOps + t.hostOps, allMacs = t.npuMacs + t.hostMacs;
  os << llvm::formatv("placement: NPU {0} ops ({1:f1}%) / {2} MACs ({3:f2}%), "
                      "host {4} ops ({5:f1}%) / {6} MACs ({7:f2}%)\n",
                      t.npuOps, t.npuOpShare(), t.npuMacs, t.npuMacShare(),
                      t.hostOps, percent(t.hostOps, allOps), t.hostMacs,
                      percent(t.hostMacs, allMacs));
  for (const OpPlacement &o : ops) {
    if (!o.onHost)
      continue;
    std::string why = o.reason.empty() ? "-" : o.reason;
    if (!o.note.empty())
      why += " [" + o.note + "]";
    os << llvm::formatv("  host op {0,-36} {1,-16} {2,14} MACs  {3}\n",
                        o.name.empty() ? "(unnamed)" : o.name, o.op, o.macs,
                        why);
  }
}

llvm::json::Value
systole::isa::placementToJson(llvm::ArrayRef<OpPlacement> ops) {
  PlacementTotals t = totalPlacement(ops);
  llvm::json::Array list;
  for (const OpPlacement &o : ops) {
    llvm::json::Object e{{"name", o.name},
                         {"op", o.op},
                         {"placement", o.onHost ? "host" : "npu"},
                         {"macs", static_cast<int64_t>(o.macs)}};
    if (!o.reason.empty())
      e["reason"] = o.reason;
    if (!o.note.empty())
      e["note"] = o.note;
    list.push_back(std::move(e));
  }
  return llvm::json::Object{{"npu_ops", static_cast<int64_t>(t.npuOps)},
                            {"host_ops", static_cast<int64_t>(t.hostOps)},
                            {"npu_macs", static_cast<int64_t>(t.npuMacs)},
                            {"host_macs", static_cast<int64_t>(t.hostMacs)},
                            {"npu_op_percent", t.npuOpShare()},
                            {"npu_mac_percent", t.npuMacShare()},
                            {"ops", std::move(list)}};
}
