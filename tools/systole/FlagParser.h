//===- FlagParser.h - Flag loop shared by systole subcommands --*- C++ -*-===//
//-*-===//
//
// run, report and sweep take the same kinds of flags (`--flag VALUE` or
// `--flag=VALUE`, numbers, repeated `--input NAME=FILE`, -q/--quiet,
// -h/--help) and must answer bad input the same way: one line naming the
// flag, exit code 2. Each subcommand declares its flags here; what a flag
// means stays in the subcommand.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_TOOLS_FLAGPARSER_H
#define SYSTOLE_TOOLS_FLAGPARSER_H

#include "systole/ISA/HwConfig.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace systole::cli {

/// One `--input NAME=FILE` (or `--input FILE`: name empty, the model's only
/// input).
struct InputArg {
  std::string name;
  std::string file;
};

class FlagParser {
public:
  using UsageFn = void (*)(llvm::raw_ostream &);
  /// `command` prefixes every message ("systole run"); `usage` is printed on
  /// -h/--help (stdout) and after an unknown flag (stderr).
  FlagParser(llvm::StringRef command, UsageFn usage)
      : command(command.str()), usage(usage) {}

  /// A flag without a value (`--quiet`, `-q`).
  FlagParser &flag(std::vector<std::string> names, bool &dst);
  /// `--flag VALUE` / `--flag=VALUE`; several names are aliases. A
  /// one-letter flag (`-j`) also takes its value attached (`-j4`).
  FlagParser &value(std::vector<std::string> names, std::string &dst);
  /// Repeatable: every occurrence is appended.
  FlagParser &append(llvm::StringRef name, std::vector<std::string> &dst);
  /// Repeatable `--input NAME=FILE` or `--input FILE`.
  FlagParser &inputs(llvm::StringRef name, std::vector<InputArg> &dst);
  /// A decimal number: "FLAG: 'V' is not a number" otherwise.
  FlagParser &number(llvm::StringRef name, uint64_t &dst);
  FlagParser &number(llvm::StringRef name, unsigned &dst);
  /// The one positional argument (a model file); a second one is an error
  /// with `tooMany` as message. Without it every non-flag word is "unknown
  /// argument".
  FlagParser &positional(std::string &dst, llvm::StringRef tooMany);

  /// Parses argv[1..argc). Returns the exit code when the command should
  /// stop now (0 after --help, 2 for bad flags; the message is printed),
  /// std::nullopt to go on.
  std::optional<int> parse(int argc, char **argv);

  /// "systole run: " + msg on stderr; returns code.
  int fail(const llvm::Twine &msg, int code = 1) const;

private:
  struct Flag {
    std::vector<std::string> names;
    bool takesValue;
    /// Gets the value (empty for flags without one); returns an error
    /// message, empty on success.
    std::function<std::string(const std::string &)> apply;
  };
  /// The flag `a` names, and its value when attached (`--f=V`, `-jV`).
  const Flag *match(llvm::StringRef a, std::optional<std::string> &value) const;

  std::string command;
  UsageFn usage;
  std::vector<Flag> flags;
  std::string *positionalDst = nullptr;
  std::string tooManyPositionals;
};

/// `--hw`: a hardware config file, or the name of a bundled preset
/// (cli::presetDirectory()). Errors start with "--hw: ".
llvm::Expected<isa::HwConfig> loadHwConfigArg(llvm::StringRef arg);

} // namespace systole::cli

#endif // SYSTOLE_TOOLS_FLAGPARSER_H
