//===- systole.cpp - The Systole command-line driver ----------------------===//
//
// Dispatches `systole <subcommand> ...` to the registered subcommands.
//
//===----------------------------------------------------------------------===//
#include "Subcommands.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace systole::cli;

std::vector<Subcommand> &systole::cli::subcommands() {
  static std::vector<Subcommand> registry;
  return registry;
}

static void printUsage(FILE *out) {
  std::fprintf(out,
               "Systole %s: toolchain for a parameterized int8 "
               "systolic-array NPU\n\nusage: systole <command> [options]\n"
               "\ncommands:\n",
               SYSTOLE_VERSION);
  auto cmds = subcommands();
  std::sort(
      cmds.begin(), cmds.end(),
      [](const Subcommand &a, const Subcommand &b) { return a.name < b.name; });
  for (const Subcommand &c : cmds)
    std::fprintf(out, "  %-10s %s\n", c.name.c_str(), c.summary.c_str());
  std::fprintf(out, "\n`systole <command> --help` describes a command.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printUsage(stderr);
    return 2;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    printUsage(stdout);
    return 0;
  }
  if (name == "--version") {
    std::printf("systole %s\n", SYSTOLE_VERSION);
    return 0;
  }
  for (const Subcommand &c : subcommands()) {
    if (c.name != name)
      continue;
    std::string argv0 = std::string("systole ") + name;
    std::vector<char *> args;
    args.push_back(argv0.data());
    for (int i = 2; i < argc; ++i)
      args.push_back(argv[i]);
    args.push_back(nullptr);
    return c.run(static_cast<int>(args.size() - 1), args.data());
  }
  std::fprintf(stderr,
               "error: systole: unknown command '%s' (`systole --help` lists "
               "them)\n",
               name.c_str());
  return 2;
}
