//===- Tuner.cpp - Tile-plan search space and result cache ----------------===//
#include "Tuner.h"
#include "systole/Target/NPU/Emit.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <set>

using namespace mlir;

namespace systole::npu {

namespace {

/// Tile heights of `rows` output rows that give distinct tile counts: the
/// largest height for each count (a smaller one only adds a tile).
std::vector<int64_t> allRowHeights(int64_t rows) {
  std::set<int64_t> heights;
  for (int64_t tiles = 1; tiles <= rows; ++tiles)
    heights.insert((rows + tiles - 1) / tiles);
  return {heights.rbegin(), heights.rend()};
}

/// Output rows of `op` that "rows" tiles (conv: output height; matmul: M).
std::optional<int64_t> tiledRows(Operation *op) {
  if (auto conv = dyn_cast<graph::Conv2DOp>(op))
    return cast<ShapedType>(conv.getOutput().getType()).getDimSize(1);
  if (auto mm = dyn_cast<graph::MatMulOp>(op)) {
    auto lhs = cast<ShapedType>(mm.getLhs().getType());
    auto rhs = cast<ShapedType>(mm.getRhs().getType());
    int64_t n = rhs.getShape().back();
    int64_t batches = rhs.getNumElements() / (n * lhs.getShape().back());
    return lhs.getNumElements() / lhs.getShape().back() / batches;
  }
  if (auto pool = dyn_cast<graph::PoolOp>(op))
    return cast<ShapedType>(pool.getOutput().getType()).getDimSize(1);
  return std::nullopt;
}

} // namespace

std::vector<TilePlan> tuningCandidates(Operation *op, const isa::HwConfig &hw) {
  std::vector<TilePlan> base = candidatePlans(op, hw);
  std::vector<TilePlan> split = candidatePlans(op, hw, /*kSplit=*/true);
  std::set<TilePlan> seen(base.begin(), base.end());
  std::vector<TilePlan> out;
  auto add = [&](const TilePlan &p) {
    if (seen.insert(p).second)
      out.push_back(p);
  };
  // K splits even when the layer fits unsplit: a split can allow resident
  // inputs or larger row tiles.
  for (const TilePlan &p : split)
    add(p);
  std::optional<int64_t> rows = tiledRows(op);
  std::vector<int64_t> heights;
  if (rows)
    heights = allRowHeights(*rows);
  // Wider items for convolutions: more column groups per item, longer DRAM
  // runs per stored row.
  std::vector<int64_t> widths;
  if (auto conv = dyn_cast<graph::Conv2DOp>(op)) {
    int64_t cout =
        cast<ShapedType>(conv.getOutput().getType()).getShape().back() /
        conv.getGroup();
    for (int64_t w = hw.array.cols; w < cout; w += hw.array.cols)
      widths.push_back(w);
    widths.push_back(cout);
  }
  std::vector<TilePlan> seeds = base;
  seeds.insert(seeds.end(), split.begin(), split.end());
  for (const TilePlan &p : seeds) {
    if (!p.rows.has_value())
      continue;
    for (int64_t h : heights) {
      TilePlan q = p;
      q.rows = h;
      add(q);
      if (p.n.has_value() && !widths.empty() &&
          !dyn_cast<graph::Conv2DOp>(op).isDepthwise())
        for (int64_t w : widths) {
          TilePlan r = q;
          r.n = w;
          add(r);
        }
    }
  }
  return out;
}

std::string defaultTuneCachePath() {
  llvm::SmallString<256> dir;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
    dir = x;
  else if (const char *h = std::getenv("HOME"); h && *h)
    llvm::sys::path::append(dir, h, ".cache");
  else
    dir = ".";
  llvm::sys::path::append(dir, "systole", "tune.json");
  return std::string(dir);
}

std::string TuneCache::configKey(const isa::HwConfig &hw) {
  auto hash = llvm::SHA256::hash(
      llvm::arrayRefFromStringRef(isa::hwConfigToJsonText(hw)));
  return llvm::toHex(llvm::ArrayRef(hash).take_front(8), /*LowerCase=*/true);
}

llvm::Expected<TuneCache> TuneCache::open(std::string path) {
  TuneCache c;
  c.path = std::move(path);
  if (!llvm::sys::fs::exists(c.path))
    return c;
  auto buf = llvm::MemoryBuffer::getFile(c.path);
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "tuning cache '" + c.path + "': " + why +
                                       " (delete it to start over)");
  };
  if (!buf)
    return fail(buf.getError().message());
  auto json = llvm::json::parse((*buf)->getBuffer());
  if (!json)
    return fail(llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Object *entries =
      root ? root->getObject("entries") : nullptr;
  if (!entries || root->getInteger("version") != 1)
    return fail("not a version 1 tuning cache");
  for (const auto &[key, v] : *entries) {
    const llvm::json::Object *e = v.getAsObject();
    const llvm::json::Object *plan = e ? e->getObject("plan") : nullptr;
    std::optional<int64_t> cycles = e ? e->getInteger("cycles") : std::nullopt;
    if (!plan || !cycles || *cycles < 0)
      return fail("entry '" + key.str() + "' has no plan or cycles");
    Entry entry;
    entry.cycles = static_cast<uint64_t>(*cycles);
    entry.budget = e->getInteger("budget").value_or(0);
    for (const auto &[name, value] : *plan) {
      std::optional<int64_t> n = value.getAsInteger();
      TilePlan::Field f = TilePlan::field(name);
      if (!n || !f)
        return fail("entry '" + key.str() + "': '" + name.str() +
                    (f ? "' is not an integer" : "' is not a plan entry"));
      entry.plan.*f = *n;
    }
    c.entries[key.str()] = std::move(entry);
  }
  return c;
}

std::optional<TuneCache::Entry>
TuneCache::lookup(const std::string &key) const {
  auto it = entries.find(key);
  if (it == entries.end())
    return std::nullopt;
  return it->second;
}

void TuneCache::store(const std::string &key, Entry e) {
  entries[key] = std::move(e);
  dirty = true;
}

llvm::Error TuneCache::save() const {
  if (!dirty)
    return llvm::Error::success();
  llvm::json::Object all;
  for (const auto &[key, e] : entries) {
    llvm::json::Object plan;
    for (auto [name, f] : TilePlan::fields())
      if (std::optional<int64_t> v = e.plan.*f)
        plan[name] = *v;
    all[key] = llvm::json::Object{{"plan", std::move(plan)},
                                  {"cycles", int64_t(e.cycles)},
                                  {"budget", e.budget}};
  }
  llvm::json::Object root{{"version", 1}, {"entries", std::move(all)}};
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (!dir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      return llvm::createStringError(ec, "tuning cache directory '%s': %s",
                                     dir.c_str(), ec.message().c_str());
  std::string tmp = path + ".tmp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(tmp, ec);
    if (ec)
      return llvm::createStringError(ec, "tuning cache '%s': %s", tmp.c_str(),
                                     ec.message().c_str());
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, path))
    return llvm::createStringError(ec, "tuning cache '%s': %s", path.c_str(),
                                   ec.message().c_str());
  return llvm::Error::success();
}

} // namespace systole::npu
