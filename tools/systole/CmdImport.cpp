//===- CmdImport.cpp - `systole import`: ONNX -> graph dialect ------------===//
#include "Subcommands.h"

#include "systole/Frontend/OnnxImporter.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

static int runImport(int argc, char **argv) {
  cl::OptionCategory cat("systole import");
  cl::opt<std::string> input(cl::Positional, cl::desc("<model.onnx>"),
                             cl::Required, cl::cat(cat));
  cl::HideUnrelatedOptions(cat);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "Import an ONNX model and print it in the "
                                   "graph dialect\n",
                                   &llvm::errs()))
    return 2;
  mlir::MLIRContext context;
  auto module = systole::frontend::importOnnxFile(input, context);
  if (!module) {
    llvm::errs() << "error: " << llvm::toString(module.takeError()) << "\n";
    return 1;
  }
  (*module)->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}

static systole::cli::SubcommandRegistration
    reg("import", "print an ONNX model as graph-dialect MLIR", runImport);
