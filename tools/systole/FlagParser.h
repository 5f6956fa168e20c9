//===- FlagParser.h - Option parser of every systole subcommand -*- C++ -*-===//
//
// Every subcommand parses its options here so that all of them behave the
// same (docs/runtime.md, "Command line"):
//   * `--opt VALUE` and `--opt=VALUE`; a one-letter option also `-jVALUE`;
//     a long option spelled with one dash (`-hw`) is accepted as well, as
//     llvm::cl did for compile and conformance;
//   * -h/--help prints a help generated from the declarations:
//     `usage: systole <cmd> [options] POSITIONAL`, the description, then one
//     line per option with its description;
//   * bad input is one line on stderr, `error: systole <cmd>: ...`, naming
//     the option (unknown option, missing value, not a number, missing
//     required option), and exit code 2.
// Each subcommand declares its options here; what an option means stays in
// the subcommand.
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
  /// `command` prefixes every message ("systole run"); `description` is the
  /// paragraph of the help between the usage line and the options.
  FlagParser(llvm::StringRef command, llvm::StringRef description)
      : command(command.str()), description(description.str()) {}

  /// An option without a value (`--quiet`, `-q`).
  FlagParser &flag(std::vector<std::string> names, bool &dst,
                   llvm::StringRef help);
  /// `--opt VALUE` / `--opt=VALUE`; several names are aliases. `meta` names
  /// the value in the help (`DIR`).
  FlagParser &value(std::vector<std::string> names, std::string &dst,
                    llvm::StringRef meta, llvm::StringRef help);
  /// Repeatable: every occurrence is appended.
  FlagParser &append(std::vector<std::string> names,
                     std::vector<std::string> &dst, llvm::StringRef meta,
                     llvm::StringRef help);
  /// Repeatable `--input NAME=FILE` or `--input FILE`.
  FlagParser &inputs(llvm::StringRef name, std::vector<InputArg> &dst,
                     llvm::StringRef meta, llvm::StringRef help);
  /// A decimal number: "OPT: 'V' is not a number" otherwise.
  FlagParser &number(std::vector<std::string> names, uint64_t &dst,
                     llvm::StringRef meta, llvm::StringRef help);
  FlagParser &number(std::vector<std::string> names, unsigned &dst,
                     llvm::StringRef meta, llvm::StringRef help);
  /// `--opt` or `--opt=N`: bare, `dst` becomes `bare`; a value must be
  /// attached with '=' (the next word stays a positional).
  FlagParser &optionalNumber(std::vector<std::string> names, uint64_t &dst,
                             uint64_t bare, llvm::StringRef meta,
                             llvm::StringRef help);
  /// The one positional argument (a model file); a second one is an error
  /// with `tooMany` as message. Without it every non-option word is
  /// "unknown argument".
  FlagParser &positional(std::string &dst, llvm::StringRef meta,
                         llvm::StringRef tooMany);
  /// The option (or positional) declared just before must be given; parse()
  /// names it when it is not.
  FlagParser &required();

  /// Parses argv[1..argc). Returns the exit code when the command should
  /// stop now (0 after --help, 2 for bad options; the message is printed),
  /// std::nullopt to go on.
  std::optional<int> parse(int argc, char **argv);

  /// "error: systole <cmd>: missing required option NAME"; returns 2. For
  /// options required only in some modes (sweep's --model without --point).
  int missing(llvm::StringRef name) const;
  /// "error: systole <cmd>: msg" on stderr; returns code.
  int usageError(const llvm::Twine &msg, int code = 2) const;
  void printHelp(llvm::raw_ostream &os) const;

private:
  struct Option {
    std::vector<std::string> names;
    std::string meta;           ///< empty: takes no value
    bool valueOptional = false; ///< `--opt` or `--opt=V` (optionalNumber)
    std::string help;
    bool required = false;
    bool seen = false;
    /// Gets the value (empty for options without one); returns an error
    /// message, empty on success.
    std::function<std::string(const std::string &)> apply;
  };
  FlagParser &add(std::vector<std::string> names, llvm::StringRef meta,
                  llvm::StringRef help,
                  std::function<std::string(const std::string &)> apply);
  /// The option `a` names, and its value when attached (`--f=V`, `-jV`).
  Option *match(llvm::StringRef a, std::optional<std::string> &value);

  std::string command, description;
  std::vector<Option> options;
  std::string *positionalDst = nullptr;
  std::string positionalMeta, tooManyPositionals;
  bool positionalRequired = false;
  /// required() applies to the positional when it was declared last.
  bool positionalLast = false;
};

/// `--hw`: a hardware config file, or the name of a bundled preset
/// (isa::resolveHwConfig). Errors start with "--hw: ".
llvm::Expected<isa::HwConfig> loadHwConfigArg(llvm::StringRef arg);

} // namespace systole::cli

#endif // SYSTOLE_TOOLS_FLAGPARSER_H
