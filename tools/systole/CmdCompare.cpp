//===- CmdCompare.cpp - `systole compare`: per-layer diff against ORT -----===//
//
// The comparison lives in the Python package (tools/python/systole/
// compare.py): ONNX Runtime, the reference, is only available to this
// project as the npm package driven by tools/ort/ort_run.js, and the
// package already binds the runtime. This subcommand runs it with the
// package of this build (<bin>/../python) on PYTHONPATH.
//
//===----------------------------------------------------------------------===//
#include "Subcommands.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>
#include <vector>

static int runCompare(int argc, char **argv) {
  std::string exe =
      llvm::sys::fs::getMainExecutable(argv[0], (void *)&runCompare);
  llvm::SmallString<256> pkg(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(pkg, "..", "python");
  llvm::sys::path::remove_dots(pkg, /*remove_dot_dot=*/true);
  llvm::SmallString<256> init(pkg);
  llvm::sys::path::append(init, "systole", "__init__.py");
  if (!llvm::sys::fs::exists(init)) {
    llvm::errs() << "systole compare: the Python package is not built (" << init
                 << " is missing; configure with -DSYSTOLE_PYTHON=ON "
                 << "and build the target systole-python)\n";
    return 1;
  }
  const char *python = std::getenv("SYSTOLE_PYTHON");
  std::string interpreter = python && *python ? python : "/usr/bin/python3";
  std::string path = std::string(pkg);
  if (const char *old = std::getenv("PYTHONPATH"); old && *old)
    path += std::string(":") + old;
  ::setenv("PYTHONPATH", path.c_str(), 1);
  std::vector<llvm::StringRef> args = {interpreter, "-m", "systole.compare"};
  for (int i = 1; i < argc; ++i)
    args.push_back(argv[i]);
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(interpreter, args, std::nullopt, {}, 0, 0,
                                     &error);
  if (rc < 0) {
    llvm::errs() << "systole compare: cannot run " << interpreter << ": "
                 << error << "\n";
    return 1;
  }
  return rc;
}

static systole::cli::SubcommandRegistration
    reg("compare",
        "per-layer comparison of a model's binary with ONNX Runtime "
        "(exact, steps, cosine)",
        runCompare);
