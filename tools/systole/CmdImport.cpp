//===- CmdImport.cpp - `systole import`: ONNX -> graph dialect ------------===//
#include "FlagParser.h"
#include "Subcommands.h"

#include "systole/Frontend/OnnxImporter.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

static int runImport(int argc, char **argv) {
  std::string input;
  systole::cli::FlagParser flags(
      "systole import",
      "Imports an ONNX model and prints it in the graph dialect (MLIR).");
  flags.positional(input, "MODEL.onnx", "more than one model file").required();
  if (auto exit = flags.parse(argc, argv))
    return *exit;
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
