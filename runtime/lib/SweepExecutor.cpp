//===- SweepExecutor.cpp - Run sweep points locally or on Slurm -----------===//
//
// Both executors start the same worker command per point, so they produce
// the same result files; they differ only in where the workers run.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/Sweep.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <chrono>
#include <thread>

using namespace systole;
using namespace systole::rt;

static llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Error rt::runLocalExecutor(const SweepDir &dir,
                                 llvm::ArrayRef<size_t> points,
                                 llvm::StringRef exe, unsigned jobs,
                                 const SweepProgress &progress) {
  struct Running {
    llvm::sys::ProcessInfo info;
    size_t index;
  };
  std::vector<Running> running;
  std::vector<std::string> failures;
  size_t next = 0, done = 0;
  jobs = std::max(1u, jobs);
  if (progress)
    progress(0, points.size());
  while (next < points.size() || !running.empty()) {
    while (running.size() < jobs && next < points.size()) {
      size_t i = points[next++];
      std::string idx = std::to_string(i), err = dir.logPath(i) + ".worker";
      llvm::StringRef args[] = {exe,      "sweep",   "--out",
                                dir.root, "--point", idx};
      std::optional<llvm::StringRef> redirects[] = {
          llvm::StringRef(""), llvm::StringRef(err), llvm::StringRef(err)};
      std::string msg;
      bool failed = false;
      auto pi = llvm::sys::ExecuteNoWait(exe, args, std::nullopt, redirects, 0,
                                         &msg, &failed);
      if (failed)
        return error("cannot start " + exe + ": " + msg);
      running.push_back({pi, i});
    }
    bool reaped = false;
    for (size_t k = 0; k < running.size();) {
      std::string msg;
      auto st = llvm::sys::Wait(running[k].info, 0, &msg);
      if (st.Pid == 0) { // still running
        ++k;
        continue;
      }
      if (st.ReturnCode != 0)
        failures.push_back(
            llvm::formatv("point {0}: worker exit {1}{2} (see "
                          "{3})",
                          running[k].index, st.ReturnCode,
                          msg.empty() ? "" : ", " + msg,
                          dir.logPath(running[k].index) + ".worker")
                .str());
      running.erase(running.begin() + k);
      ++done;
      reaped = true;
      if (progress)
        progress(done, points.size());
    }
    if (!reaped)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!failures.empty()) {
    std::string all;
    for (const std::string &f : failures)
      all += "\n  " + f;
    return error(llvm::formatv("{0} of {1} workers failed:{2}", failures.size(),
                               points.size(), all));
  }
  return llvm::Error::success();
}

/// "0-4,7,9-10" for sbatch --array.
static std::string arrayRanges(llvm::ArrayRef<size_t> points) {
  std::string out;
  for (size_t k = 0; k < points.size();) {
    size_t e = k;
    while (e + 1 < points.size() && points[e + 1] == points[e] + 1)
      ++e;
    out += (out.empty() ? "" : ",") + std::to_string(points[k]);
    if (e > k)
      out += "-" + std::to_string(points[e]);
    k = e + 1;
  }
  return out;
}

llvm::Error rt::runSlurmExecutor(const SweepDir &dir,
                                 llvm::ArrayRef<size_t> points,
                                 llvm::StringRef exe,
                                 const SlurmOptions &options) {
  if (points.empty())
    return llvm::Error::success();
  auto sbatch = llvm::sys::findProgramByName("sbatch");
  if (!sbatch)
    return error("sbatch not found: install the Debian package slurm-wlm "
                 "(and munge) or use --executor local");
  std::string slurmDir = dir.root + "/slurm";
  if (auto ec = llvm::sys::fs::create_directories(slurmDir))
    return error("cannot create " + slurmDir + ": " + ec.message());
  std::string script = slurmDir + "/point.sh";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(script, ec);
    if (ec)
      return error("cannot write " + script + ": " + ec.message());
    // One array task = one worker; the task id is the point index.
    os << "#!/bin/sh\n"
       << "exec '" << exe << "' sweep --out '" << dir.root
       << "' --point \"$SLURM_ARRAY_TASK_ID\"\n";
  }
  std::string array = arrayRanges(points);
  if (options.maxConcurrent)
    array += "%" + std::to_string(options.maxConcurrent);
  std::vector<std::string> argv = {*sbatch,
                                   "--parsable",
                                   "--wait",
                                   "--job-name=systole-sweep",
                                   "--array=" + array,
                                   "--output=" + slurmDir + "/%A_%a.out",
                                   "--chdir=" + dir.root,
                                   "--time=" + options.timeLimit};
  if (!options.partition.empty())
    argv.push_back("--partition=" + options.partition);
  argv.push_back(script);
  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  std::string out = slurmDir + "/sbatch.out", err = slurmDir + "/sbatch.err";
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(""), llvm::StringRef(out), llvm::StringRef(err)};
  std::string msg;
  int rc = llvm::sys::ExecuteAndWait(*sbatch, args, std::nullopt, redirects, 0,
                                     0, &msg);
  if (rc != 0) {
    auto e = llvm::MemoryBuffer::getFile(err);
    return error(llvm::formatv("sbatch --wait exited with {0}{1}: {2}", rc,
                               msg.empty() ? "" : " (" + msg + ")",
                               e ? (*e)->getBuffer().trim().str() : err));
  }
  return llvm::Error::success();
}
