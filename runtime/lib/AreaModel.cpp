//===- AreaModel.cpp - Silicon area of a hardware configuration -----------===//
//
// Area = PEs + SRAM + vector lanes + a fixed part (control, DMA, queues).
// Without synthesis results the per-unit figures are the 45 nm model of
// docs/sweep.md; a Yosys area table from the RTL flow replaces whichever
// figures it provides.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/Sweep.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace systole;
using namespace systole::rt;

namespace {
// 45 nm: Horowitz ISSCC 2014 (8-bit multiply 282 um^2, 32-bit add 137 um^2,
// fp32 multiply 7700 um^2, fp32 add 4184 um^2) plus 48 pipeline flip-flops
// per PE at 4.52 um^2 (NanGate 45 nm DFF_X1); SRAM: 0.346 um^2 6T cell at
// 50% array efficiency.
constexpr double kPeUm2 = 282 + 137 + 48 * 4.52;
constexpr double kSramUm2PerByte = 8 * 0.346 / 0.5;
constexpr double kVectorLaneUm2 = 7700 + 4184;
constexpr double kFixedUm2 = 100000; // 0.1 mm^2
} // namespace

std::string rt::findYosysAreaTable(llvm::StringRef sourceDir) {
  for (const char *rel : {"rtl/area.json", "rtl/synth/area.json",
                          "rtl/yosys/area.json", "tools/rtl/area.json"}) {
    std::string p = (sourceDir + "/" + rel).str();
    if (llvm::sys::fs::exists(p))
      return p;
  }
  return "";
}

llvm::Expected<AreaEstimate> rt::estimateArea(const isa::HwConfig &cfg,
                                              llvm::StringRef yosysTable) {
  double pe = kPeUm2, sram = kSramUm2PerByte, lane = kVectorLaneUm2,
         fixed = kFixedUm2;
  AreaEstimate a;
  a.source = "model";
  if (!yosysTable.empty()) {
    auto buf = llvm::MemoryBuffer::getFile(yosysTable);
    if (!buf)
      return llvm::createStringError(buf.getError(), "cannot read %s",
                                     yosysTable.str().c_str());
    auto v = llvm::json::parse((*buf)->getBuffer());
    if (!v)
      return v.takeError();
    const llvm::json::Object *o = v->getAsObject();
    if (!o)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "%s: not a JSON object",
                                     yosysTable.str().c_str());
    if (auto x = o->getNumber("pe_um2"))
      pe = *x;
    if (auto x = o->getNumber("sram_um2_per_byte"))
      sram = *x;
    if (auto x = o->getNumber("vector_lane_um2"))
      lane = *x;
    if (auto x = o->getNumber("fixed_um2"))
      fixed = *x;
    a.source = yosysTable.str();
  }
  a.arrayMm2 = pe * double(cfg.array.rows * cfg.array.cols) / 1e6;
  a.sramMm2 =
      sram * double(cfg.sram.scratchpadBytes + cfg.sram.accumulatorBytes) / 1e6;
  a.vectorMm2 = lane * double(cfg.vector.lanes) / 1e6;
  a.otherMm2 = fixed / 1e6;
  a.totalMm2 = a.arrayMm2 + a.sramMm2 + a.vectorMm2 + a.otherMm2;
  return a;
}
