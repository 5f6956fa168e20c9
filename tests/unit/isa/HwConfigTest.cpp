//===- HwConfigTest.cpp - Parsing and validation of every config field ----===//
#include "TestUtil.h"

#include "llvm/Support/JSON.h"

using namespace systole::isa;
using namespace systole::isa::test;

namespace {
const char *kPresets[] = {"tiny-4x4", "rtl-8x8", "edge-16x16", "default-32x32",
                          "datacenter-128x128"};

llvm::json::Value presetJson() {
  std::string text = hwConfigToJsonText(preset("default-32x32"));
  return std::move(*llvm::json::parse(text));
}

// The object holding the leaf of `path` and the leaf key.
std::pair<llvm::json::Object *, std::string> slot(llvm::json::Value &root,
                                                  llvm::StringRef path) {
  auto [parent, leaf] = path.split('.');
  if (leaf.empty())
    return {root.getAsObject(), parent.str()};
  return {root.getAsObject()->getObject(parent), leaf.str()};
}

std::string parseError(const llvm::json::Value &v) {
  auto cfg = hwConfigFromJson(v);
  return errorText(cfg);
}
} // namespace

TEST(HwConfig, PresetsParseAndRoundTripThroughJson) {
  for (const char *name : kPresets) {
    HwConfig c = preset(name);
    EXPECT_EQ(c.name, name);
    auto again = parseHwConfig(hwConfigToJsonText(c));
    ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
    EXPECT_EQ(hwConfigToJsonText(*again), hwConfigToJsonText(c));
  }
}

TEST(HwConfig, PresetsAreListed) {
  auto list = listPresets(SYSTOLE_PRESET_DIR);
  ASSERT_TRUE(bool(list));
  std::vector<std::string> stems;
  for (auto &p : *list)
    stems.push_back(p.stem);
  for (const char *name : kPresets)
    EXPECT_NE(std::find(stems.begin(), stems.end(), name), stems.end()) << name;
}

TEST(HwConfig, EveryFieldMissing) {
  for (const HwConfigFieldSpec &s : hwConfigFields()) {
    llvm::json::Value v = presetJson();
    auto [obj, leaf] = slot(v, s.path);
    obj->erase(leaf);
    std::string err = parseError(v);
    if (s.required)
      EXPECT_EQ(err, std::string(s.path) + ": missing") << s.path;
    else
      EXPECT_EQ(err, "") << s.path << " should default";
  }
  llvm::json::Value v = presetJson();
  v.getAsObject()->erase("sram");
  EXPECT_EQ(parseError(v), "sram.scratchpad_bytes: missing");
  // Optional energy table: defaults from Horowitz ISSCC 2014.
  llvm::json::Value e = presetJson();
  e.getAsObject()->erase("energy");
  auto cfg = hwConfigFromJson(e);
  ASSERT_TRUE(bool(cfg));
  EXPECT_DOUBLE_EQ(cfg->energy.macPj, HwConfig().energy.macPj);
}

TEST(HwConfig, EveryFieldWrongType) {
  for (const HwConfigFieldSpec &s : hwConfigFields()) {
    llvm::json::Value v = presetJson();
    auto [obj, leaf] = slot(v, s.path);
    (*obj)[leaf] = s.kind == HwConfigFieldSpec::String
                       ? llvm::json::Value(42)
                       : llvm::json::Value("oops");
    std::string err = parseError(v);
    EXPECT_EQ(err.rfind(std::string(s.path) + ": expected", 0), 0u)
        << s.path << " -> " << err;
  }
  llvm::json::Value v = presetJson();
  (*v.getAsObject())["array"] = 5;
  EXPECT_EQ(parseError(v), "array: expected an object");
  llvm::json::Value f = presetJson();
  (*f.getAsObject()->getObject("array"))["rows"] = 1.5;
  EXPECT_EQ(parseError(f), "array.rows: expected a non-negative integer");
}

TEST(HwConfig, EveryNumericFieldOutOfRange) {
  for (const HwConfigFieldSpec &s : hwConfigFields()) {
    if (s.kind != HwConfigFieldSpec::UInt && s.kind != HwConfigFieldSpec::Float)
      continue;
    for (double bad :
         {s.min - (s.kind == HwConfigFieldSpec::UInt ? 1 : s.min / 2 + 1),
          s.max * 2 + 1}) {
      llvm::json::Value v = presetJson();
      auto [obj, leaf] = slot(v, s.path);
      if (s.kind == HwConfigFieldSpec::UInt)
        (*obj)[leaf] = static_cast<int64_t>(bad);
      else
        (*obj)[leaf] = bad;
      std::string err = parseError(v);
      EXPECT_EQ(err.rfind(std::string(s.path) + ": must be in [", 0), 0u)
          << s.path << " = " << bad << " -> " << err;
    }
  }
}

TEST(HwConfig, CrossFieldRules) {
  auto with = [](llvm::StringRef path, llvm::json::Value value) {
    llvm::json::Value v = presetJson();
    auto [obj, leaf] = slot(v, path);
    (*obj)[leaf] = std::move(value);
    return parseError(v);
  };
  EXPECT_EQ(with("sram.scratchpad_banks", 3),
            "sram.scratchpad_banks: must be a power of two dividing "
            "scratchpad_bytes");
  EXPECT_EQ(with("sram.scratchpad_bytes", 524289),
            "sram.scratchpad_banks: must be a power of two dividing "
            "scratchpad_bytes");
  EXPECT_EQ(with("sram.accumulator_banks", 6),
            "sram.accumulator_banks: must be a power of two");
  EXPECT_EQ(
      with("sram.accumulator_bytes", 262148),
      "sram.accumulator_bytes: must be a multiple of 4 * accumulator_banks");
  EXPECT_EQ(with("dram.burst_bytes", 8),
            "dram.burst_bytes: must be a power of two and a multiple of "
            "bytes_per_cycle");
  EXPECT_EQ(with("dram.burst_bytes", 96),
            "dram.burst_bytes: must be a power of two and a multiple of "
            "bytes_per_cycle");
  EXPECT_EQ(with("array.dataflows", llvm::json::Array{}),
            "array.dataflows: must list at least one dataflow");
  EXPECT_EQ(with("array.dataflows", llvm::json::Array{"ws", "ws"}),
            "array.dataflows: duplicate dataflow 'ws'");
  EXPECT_EQ(
      with("array.dataflows", llvm::json::Array{"rs"}),
      "array.dataflows: unknown dataflow 'rs' (expected \"ws\" or \"os\")");
  EXPECT_EQ(with("name", ""), "name: must not be empty");
  EXPECT_EQ(with("array.rowz", 3), "array.rowz: unknown field");
  EXPECT_EQ(with("extra", 3), "extra: unknown field");
  EXPECT_EQ(with("array.rows", -4), "array.rows: must be in [1, 1024], got -4");
}

TEST(HwConfig, NameMustBeUtf8) {
  HwConfig c = preset("tiny-4x4");
  c.name = "bad\xff";
  EXPECT_EQ(errorText(validateHwConfig(c)), "name: must be valid UTF-8");
}

TEST(HwConfig, InvalidJsonAndMissingFile) {
  auto bad = parseHwConfig("{ nope");
  EXPECT_EQ(errorText(bad).rfind("hardware config: invalid JSON", 0), 0u);
  auto missing = loadHwConfigFile("/nonexistent/cfg.json");
  EXPECT_NE(errorText(missing).find("cannot read '/nonexistent/cfg.json'"),
            std::string::npos);
}
