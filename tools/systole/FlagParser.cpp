//===- FlagParser.cpp - The option parser of every systole subcommand -----===//
#include "FlagParser.h"
#include "Subcommands.h"
#include "systole/ISA/Presets.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

using namespace systole;
using namespace systole::cli;

FlagParser &
FlagParser::add(std::vector<std::string> names, llvm::StringRef meta,
                llvm::StringRef help,
                std::function<std::string(const std::string &)> apply) {
  Option o;
  o.names = std::move(names);
  o.meta = meta.str();
  o.help = help.str();
  o.apply = std::move(apply);
  options.push_back(std::move(o));
  positionalLast = false;
  return *this;
}

FlagParser &FlagParser::flag(std::vector<std::string> names, bool &dst,
                             llvm::StringRef help) {
  return add(std::move(names), "", help, [&dst](const std::string &) {
    dst = true;
    return std::string();
  });
}

FlagParser &FlagParser::value(std::vector<std::string> names, std::string &dst,
                              llvm::StringRef meta, llvm::StringRef help) {
  return add(std::move(names), meta, help, [&dst](const std::string &v) {
    dst = v;
    return std::string();
  });
}

FlagParser &FlagParser::append(std::vector<std::string> names,
                               std::vector<std::string> &dst,
                               llvm::StringRef meta, llvm::StringRef help) {
  return add(std::move(names), meta, help, [&dst](const std::string &v) {
    dst.push_back(v);
    return std::string();
  });
}

FlagParser &FlagParser::inputs(llvm::StringRef name, std::vector<InputArg> &dst,
                               llvm::StringRef meta, llvm::StringRef help) {
  return add({name.str()}, meta, help, [&dst](const std::string &v) {
    auto [inputName, file] = llvm::StringRef(v).split('=');
    if (file.empty())
      dst.push_back({"", inputName.str()});
    else
      dst.push_back({inputName.str(), file.str()});
    return std::string();
  });
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

FlagParser &FlagParser::number(std::vector<std::string> names, uint64_t &dst,
                               llvm::StringRef meta, llvm::StringRef help) {
  std::string first = names.front();
  return add(std::move(names), meta, help, numberInto(first, dst));
}

FlagParser &FlagParser::number(std::vector<std::string> names, unsigned &dst,
                               llvm::StringRef meta, llvm::StringRef help) {
  std::string first = names.front();
  return add(std::move(names), meta, help, numberInto(first, dst));
}

FlagParser &FlagParser::optionalNumber(std::vector<std::string> names,
                                       uint64_t &dst, uint64_t bare,
                                       llvm::StringRef meta,
                                       llvm::StringRef help) {
  std::string first = names.front();
  auto parseNumber = numberInto(first, dst);
  add(std::move(names), meta, help,
      [parseNumber, &dst, bare](const std::string &v) {
        if (v.empty()) {
          dst = bare;
          return std::string();
        }
        return parseNumber(v);
      });
  options.back().valueOptional = true;
  return *this;
}

FlagParser &FlagParser::positional(std::string &dst, llvm::StringRef meta,
                                   llvm::StringRef tooMany) {
  positionalDst = &dst;
  positionalMeta = meta.str();
  tooManyPositionals = tooMany.str();
  positionalLast = true;
  return *this;
}

FlagParser &FlagParser::required() {
  if (positionalLast)
    positionalRequired = true;
  else if (!options.empty())
    options.back().required = true;
  return *this;
}

int FlagParser::usageError(const llvm::Twine &msg, int code) const {
  llvm::errs() << "error: " << command << ": " << msg << "\n";
  return code;
}

int FlagParser::missing(llvm::StringRef name) const {
  return usageError("missing required option " + name);
}

/// Appends `text` to `os` wrapped at 80 columns, continuation lines indented
/// by `indent`; `column` is where the cursor is.
static void wrap(llvm::raw_ostream &os, llvm::StringRef text, size_t column,
                 size_t indent) {
  llvm::SmallVector<llvm::StringRef> words;
  llvm::SplitString(text, words, " \n");
  bool lineStart = true;
  for (llvm::StringRef w : words) {
    if (!lineStart && column + 1 + w.size() > 80) {
      os << "\n" << std::string(indent, ' ');
      column = indent;
      lineStart = true;
    }
    if (!lineStart) {
      os << ' ';
      ++column;
    }
    os << w;
    column += w.size();
    lineStart = false;
  }
  os << "\n";
}

void FlagParser::printHelp(llvm::raw_ostream &os) const {
  os << "usage: " << command << " [options]";
  if (positionalDst)
    os << (positionalRequired ? " " + positionalMeta
                              : " [" + positionalMeta + "]");
  os << "\n\n";
  wrap(os, description, 0, 0);
  os << "\noptions:\n";
  const size_t column = 26;
  auto line = [&](std::string names, const std::string &help) {
    os << "  " << names;
    size_t at = 2 + names.size();
    if (at + 2 > column) {
      os << "\n";
      at = 0;
    }
    os << std::string(column - at, ' ');
    wrap(os, help, column, column);
  };
  for (const Option &o : options) {
    std::string names = llvm::join(o.names, ", ");
    if (o.valueOptional)
      names += "[=" + o.meta + "]";
    else if (!o.meta.empty())
      names += " " + o.meta;
    line(names, o.help + (o.required ? " (required)" : ""));
  }
  line("-h, --help", "print this help");
}

FlagParser::Option *FlagParser::match(llvm::StringRef a,
                                      std::optional<std::string> &value) {
  for (Option &o : options)
    for (const std::string &n : o.names) {
      if (a == n)
        return &o;
      if (o.meta.empty())
        continue;
      if (a.starts_with(n + "=")) {
        value = a.drop_front(n.size() + 1).str();
        return &o;
      }
      if (n.size() == 2 && a.size() > 2 && a.starts_with(n)) { // -j4
        value = a.drop_front(2).str();
        return &o;
      }
    }
  // llvm::cl, which compile and conformance used, takes `-hw` for `--hw`.
  if (a.size() > 2 && a[0] == '-' && a[1] != '-')
    return match(("-" + a).str(), value);
  return nullptr;
}

/// `--jobs` rather than `-j` in messages about an option.
static llvm::StringRef longestName(const std::vector<std::string> &names) {
  llvm::StringRef best = names.front();
  for (llvm::StringRef n : names)
    if (n.size() > best.size())
      best = n;
  return best;
}

std::optional<int> FlagParser::parse(int argc, char **argv) {
  bool onlyPositionals = false;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    bool isOption = !onlyPositionals && a.starts_with("-") && a != "-";
    if (isOption && (a == "-h" || a == "--help")) {
      printHelp(llvm::outs());
      return 0;
    }
    if (isOption && a == "--") {
      onlyPositionals = true;
      continue;
    }
    std::optional<std::string> value;
    Option *matched = isOption ? match(a, value) : nullptr;
    if (matched) {
      if (!matched->meta.empty() && !value && !matched->valueOptional) {
        if (i + 1 >= argc)
          return usageError(a + " needs a value");
        value = argv[++i];
      }
      matched->seen = true;
      std::string error = matched->apply(value.value_or(""));
      if (!error.empty())
        return usageError(error);
    } else if (isOption) {
      return usageError("unknown option '" + a + "'");
    } else if (!positionalDst) {
      return usageError("unknown argument '" + a + "'");
    } else if (positionalDst->empty()) {
      *positionalDst = a.str();
    } else {
      return usageError(tooManyPositionals);
    }
  }
  if (positionalRequired && positionalDst->empty())
    return usageError("missing required argument " + positionalMeta);
  for (const Option &o : options)
    if (o.required && !o.seen)
      return missing(longestName(o.names));
  return std::nullopt;
}

llvm::Expected<isa::HwConfig> cli::loadHwConfigArg(llvm::StringRef arg) {
  auto cfg = isa::resolveHwConfig(arg);
  if (!cfg)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "--hw: %s",
                                   llvm::toString(cfg.takeError()).c_str());
  return cfg;
}
