//===- Subcommands.h - Registry of `systole` subcommands --------*- C++ -*-===//
//
// Each subcommand lives in its own Cmd<Name>.cpp and registers itself with a
// static SubcommandRegistration, so adding one touches no other file.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_TOOLS_SUBCOMMANDS_H
#define SYSTOLE_TOOLS_SUBCOMMANDS_H

#include <functional>
#include <string>
#include <vector>

namespace systole::cli {

/// A subcommand receives argv with argv[0] = "systole <name>" and returns the
/// process exit code.
using SubcommandFn = std::function<int(int argc, char **argv)>;

struct Subcommand {
  std::string name;
  std::string summary;
  SubcommandFn run;
};

std::vector<Subcommand> &subcommands();

struct SubcommandRegistration {
  SubcommandRegistration(std::string name, std::string summary,
                         SubcommandFn run) {
    subcommands().push_back(
        {std::move(name), std::move(summary), std::move(run)});
  }
};

} // namespace systole::cli

#endif // SYSTOLE_TOOLS_SUBCOMMANDS_H
