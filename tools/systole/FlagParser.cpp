//===- FlagParser.cpp - Flag loop shared by systole subcommands -----------===//
#include "FlagParser.h"
#include "Subcommands.h"

#include "llvm/Support/FileSystem.h"

using namespace systole;
using namespace systole::cli;

FlagParser &FlagParser::flag(std::vector<std::string> names, bool &dst) {
  flags.push_back({std::move(names), false, [&dst](const std::string &) {
                     dst = true;
                     return std::string();
                   }});
  return *this;
}

FlagParser &FlagParser::value(std::vector<std::string> names,
                              std::string &dst) {
  flags.push_back({std::move(names), true, [&dst](const std::string &v) {
                     dst = v;
                     return std::string();
                   }});
  return *this;
}

FlagParser &FlagParser::append(llvm::StringRef name,
                               std::vector<std::string> &dst) {
  flags.push_back({{name.str()}, true, [&dst](const std::string &v) {
                     dst.push_back(v);
                     return std::string();
                   }});
  return *this;
}

FlagParser &FlagParser::inputs(llvm::StringRef name,
                               std::vector<InputArg> &dst) {
  flags.push_back({{name.str()}, true, [&dst](const std::string &v) {
                     auto [inputName, file] = llvm::StringRef(v).split('=');
                     if (file.empty())
                       dst.push_back({"", inputName.str()});
                     else
                       dst.push_back({inputName.str(), file.str()});
                     return std::string();
                   }});
  return *this;
}

template <typename T>
static std::function<std::string(const std::string &)>
numberInto(llvm::StringRef name, T &dst) {
  return [name = name.str(), &dst](const std::string &v) {
    if (llvm::StringRef(v).getAsInteger(10, dst))
      return name + ": '" + v + "' is not a number";
    return std::string();
  };
}

FlagParser &FlagParser::number(llvm::StringRef name, uint64_t &dst) {
  flags.push_back({{name.str()}, true, numberInto(name, dst)});
  return *this;
}

FlagParser &FlagParser::number(llvm::StringRef name, unsigned &dst) {
  flags.push_back({{name.str()}, true, numberInto(name, dst)});
  return *this;
}

FlagParser &FlagParser::positional(std::string &dst, llvm::StringRef tooMany) {
  positionalDst = &dst;
  tooManyPositionals = tooMany.str();
  return *this;
}

int FlagParser::fail(const llvm::Twine &msg, int code) const {
  llvm::errs() << command << ": " << msg << "\n";
  return code;
}

const FlagParser::Flag *
FlagParser::match(llvm::StringRef a, std::optional<std::string> &value) const {
  for (const Flag &f : flags)
    for (const std::string &n : f.names) {
      if (a == n)
        return &f;
      if (!f.takesValue)
        continue;
      if (a.starts_with(n + "=")) {
        value = a.drop_front(n.size() + 1).str();
        return &f;
      }
      if (n.size() == 2 && a.size() > 2 && a.starts_with(n)) { // -j4
        value = a.drop_front(2).str();
        return &f;
      }
    }
  return nullptr;
}

std::optional<int> FlagParser::parse(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    if (a == "-h" || a == "--help") {
      usage(llvm::outs());
      return 0;
    }
    std::optional<std::string> value;
    const Flag *matched = match(a, value);
    if (matched) {
      if (matched->takesValue && !value) {
        if (i + 1 >= argc)
          return fail(a + " needs a value", 2);
        value = argv[++i];
      }
      std::string error = matched->apply(value.value_or(""));
      if (!error.empty())
        return fail(error, 2);
    } else if (positionalDst && a.starts_with("-")) {
      fail("unknown option '" + a + "'");
      usage(llvm::errs());
      return 2;
    } else if (!positionalDst) {
      fail("unknown argument '" + a + "'");
      usage(llvm::errs());
      return 2;
    } else if (positionalDst->empty()) {
      *positionalDst = a.str();
    } else {
      return fail(tooManyPositionals, 2);
    }
  }
  return std::nullopt;
}

llvm::Expected<isa::HwConfig> cli::loadHwConfigArg(llvm::StringRef arg) {
  std::string path = arg.str();
  if (!llvm::sys::fs::exists(arg)) {
    std::string preset = presetDirectory() + "/" + arg.str() + ".json";
    if (arg.contains('/') || !llvm::sys::fs::exists(preset))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--hw: '%s' is neither a file nor a bundled preset "
          "(see `systole presets`)",
          arg.str().c_str());
    path = preset;
  }
  auto cfg = isa::loadHwConfigFile(path);
  if (!cfg)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "--hw: %s",
                                   llvm::toString(cfg.takeError()).c_str());
  return cfg;
}
