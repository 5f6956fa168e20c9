//===- PlacementReport.h - NPU/host shares of ops and MACs ------*- C++ -*-===//
//
// The placement summary of a program (Program.placement): printed by
// `systole compile` and `systole report`, one format for both.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_ISA_PLACEMENTREPORT_H
#define SYSTOLE_ISA_PLACEMENTREPORT_H

#include "systole/ISA/Program.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace systole::isa {

struct PlacementTotals {
  uint64_t npuOps = 0, hostOps = 0, npuMacs = 0, hostMacs = 0;
  /// Percentages of all ops / all MACs (0 when there are none).
  double npuOpShare() const;
  double npuMacShare() const;
};

PlacementTotals totalPlacement(llvm::ArrayRef<OpPlacement> ops);

/// "placement: NPU x ops (a%) / y MACs (p%), host z ops (b%) / w MACs (q%)"
/// and one line per host op: ONNX node name, op, MACs, reason.
void printPlacement(llvm::ArrayRef<OpPlacement> ops, llvm::raw_ostream &os);

/// Totals, shares and every op (name, op, placement, macs, reason, note).
llvm::json::Value placementToJson(llvm::ArrayRef<OpPlacement> ops);

} // namespace systole::isa

#endif // SYSTOLE_ISA_PLACEMENTREPORT_H
