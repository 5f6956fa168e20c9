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
  bool noHostBodies = false, noOrtFusions = false;
  flags.positional(input, "MODEL.onnx", "more than one model file").required();
  flags.flag({"--no-host-bodies"}, noHostBodies,
             "leave the graph.host bodies empty, with the params "
             "convert-onnx-to-linalg builds them from");
  flags.flag({"--no-ort-fusions"}, noOrtFusions,
             "import the ops as written, without ONNX Runtime's fusions "
             "that change the arithmetic (a decomposed LayerNorm)");
  if (auto exit = flags.parse(argc, argv))
    return *exit;
  mlir::MLIRContext context;
  systole::frontend::ImportOptions options;
  options.buildHostBodies = !noHostBodies;
  options.ortFusions = !noOrtFusions;
  auto module = systole::frontend::importOnnxFile(input, context, options);
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
