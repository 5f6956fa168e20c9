//===- AreaModel.cpp - Silicon area of a hardware configuration -----------===//
//
// The one area model: PEs + SRAM + vector lanes + a fixed part (control, DMA,
// queues). The PE array comes from the project's own Yosys synthesis
// (rtl/synth/pe_array_area.json, docs/rtl.md) whenever the tree has it; the
// rest, and the PEs of a tree without it, from the 45 nm figures of
// docs/sweep.md. An area table (--area-table) replaces whichever figures it
// provides.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/Sweep.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

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

llvm::Error tableError(llvm::StringRef path, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s",
                                 path.str().c_str(), what.str().c_str());
}
} // namespace

std::string rt::findYosysAreaTable(llvm::StringRef sourceDir) {
  for (const char *rel :
       {"rtl/area.json", "rtl/synth/area.json", "rtl/yosys/area.json",
        "tools/rtl/area.json", "rtl/synth/pe_array_area.json"}) {
    std::string p = (sourceDir + "/" + rel).str();
    if (llvm::sys::fs::exists(p))
      return p;
  }
  return "";
}

std::string rt::defaultAreaTable() {
#ifdef SYSTOLE_SOURCE_DIR
  return findYosysAreaTable(SYSTOLE_SOURCE_DIR);
#else
  return "";
#endif
}

/// The PE array from synth_pe_array.sh's table (a JSON array of {rows,
/// cols, pes, area_um2_45nm, optional double_buf}): among the entries of the
/// config's PE (double-buffered weights when array.matmul_inflight > 1),
/// the synthesized area itself when the config's array has a synthesized
/// shape, else the per-PE area of the largest synthesized array (the most
/// PEs, so the least edge logic per PE) times rows x cols. A table without
/// entries of that PE leaves the model's figure.
static llvm::Error peArrayFromSynthesis(const llvm::json::Array &rows,
                                        llvm::StringRef path,
                                        const isa::HwConfig &cfg,
                                        double &arrayUm2, std::string &how) {
  const llvm::json::Object *largest = nullptr;
  const bool doubleBuf = cfg.array.matmulInflight > 1;
  bool any = false;
  for (const llvm::json::Value &v : rows) {
    const llvm::json::Object *o = v.getAsObject();
    if (!o || !o->getInteger("rows") || !o->getInteger("cols") ||
        !o->getInteger("pes") || !o->getNumber("area_um2_45nm") ||
        *o->getInteger("pes") <= 0)
      return tableError(path, "each entry needs rows, cols, pes and "
                              "area_um2_45nm");
    any = true;
    if ((o->getInteger("double_buf").value_or(0) != 0) != doubleBuf)
      continue;
    if (uint64_t(*o->getInteger("rows")) == cfg.array.rows &&
        uint64_t(*o->getInteger("cols")) == cfg.array.cols) {
      arrayUm2 = *o->getNumber("area_um2_45nm");
      how = llvm::formatv("{0} ({1}x{2} synthesized)", path, cfg.array.rows,
                          cfg.array.cols);
      return llvm::Error::success();
    }
    if (!largest || *o->getInteger("pes") > *largest->getInteger("pes"))
      largest = o;
  }
  if (!any)
    return tableError(path, "no synthesized array");
  if (!largest) {
    how = llvm::formatv("model ({0} has no {1} PE)", path,
                        doubleBuf ? "double-buffered" : "single-buffered");
    return llvm::Error::success();
  }
  double perPe = *largest->getNumber("area_um2_45nm") /
                 double(*largest->getInteger("pes"));
  arrayUm2 = perPe * double(cfg.array.rows * cfg.array.cols);
  how =
      llvm::formatv("{0} (per PE of {1}x{2})", path,
                    *largest->getInteger("rows"), *largest->getInteger("cols"));
  return llvm::Error::success();
}

llvm::Expected<AreaEstimate> rt::estimateArea(const isa::HwConfig &cfg,
                                              llvm::StringRef yosysTable) {
  double pe = kPeUm2, sram = kSramUm2PerByte, lane = kVectorLaneUm2,
         fixed = kFixedUm2;
  double pes = double(cfg.array.rows * cfg.array.cols);
  double arrayUm2 = pe * pes;
  AreaEstimate a;
  a.source = "model";
  if (!yosysTable.empty()) {
    auto buf = llvm::MemoryBuffer::getFile(yosysTable);
    if (!buf)
      return llvm::createStringError(buf.getError(), "cannot read %s",
                                     yosysTable.str().c_str());
    auto v = llvm::json::parse((*buf)->getBuffer());
    if (!v)
      return tableError(yosysTable, llvm::toString(v.takeError()));
    if (const llvm::json::Array *rows = v->getAsArray()) {
      if (auto e =
              peArrayFromSynthesis(*rows, yosysTable, cfg, arrayUm2, a.source))
        return std::move(e);
    } else if (const llvm::json::Object *o = v->getAsObject()) {
      if (auto x = o->getNumber("pe_um2"))
        arrayUm2 = *x * pes;
      if (auto x = o->getNumber("sram_um2_per_byte"))
        sram = *x;
      if (auto x = o->getNumber("vector_lane_um2"))
        lane = *x;
      if (auto x = o->getNumber("fixed_um2"))
        fixed = *x;
      a.source = yosysTable.str();
    } else {
      return tableError(yosysTable, "neither an area table (object) nor a "
                                    "synthesized PE array list (array)");
    }
  }
  a.arrayMm2 = arrayUm2 / 1e6;
  a.sramMm2 =
      sram * double(cfg.sram.scratchpadBytes + cfg.sram.accumulatorBytes) / 1e6;
  // A depthwise engine of T taps per lane adds T - 1 int8 MACs (and their
  // adder tree) per lane beside the lane's own: priced as PEs.
  a.vectorMm2 = (lane * double(cfg.vector.lanes) +
                 (arrayUm2 / std::max(1.0, pes)) * double(cfg.vector.lanes) *
                     double(cfg.vector.dwconvTaps - 1)) /
                1e6;
  a.otherMm2 = fixed / 1e6;
  a.totalMm2 = a.arrayMm2 + a.sramMm2 + a.vectorMm2 + a.otherMm2;
  return a;
}
