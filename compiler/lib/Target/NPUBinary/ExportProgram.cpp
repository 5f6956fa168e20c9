//===- ExportProgram.cpp - npu IR -> .npu instruction streams -------------===//
//
// The inverse of ImportProgram: each op encodes its own instruction
// (encodeInstruction), the token operands and results become the
// dependency flags. The segment verifier has already checked that the
// tokens pair in FIFO order, so the flags carry the same dependencies.
// `npu.layer_start` markers, where present, write the layer table: a
// layer's range runs to the next marker or the segment's END.
//
//===----------------------------------------------------------------------===//
#include "systole/Target/NPUBinary/NPUBinary.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace systole;
using namespace systole::npu;

static llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

llvm::Error npu::exportProgram(ModuleOp module, isa::Program &program) {
  auto programs = module.getOps<ProgramOp>();
  if (std::distance(programs.begin(), programs.end()) != 1)
    return error("the module must hold exactly one npu.program");
  ProgramOp prog = *programs.begin();
  std::vector<bool> written(program.segments.size(), false);
  std::vector<isa::LayerDebugInfo> layers;
  bool markers = false;
  for (SegmentOp segment : prog.getBody().front().getOps<SegmentOp>()) {
    uint64_t index = segment.getIndex();
    if (index >= program.segments.size() || !program.segments[index].isNpu())
      return error(llvm::formatv("npu.segment {0} '{1}': the program has no "
                                 "NPU segment at that index",
                                 index, segment.getName()));
    if (written[index])
      return error(llvm::formatv("npu.segment {0} appears twice", index));
    written[index] = true;
    std::vector<isa::Instruction> &stream =
        program.segments[index].npu().instructions;
    stream.clear();
    for (Operation &op : segment.getBody().front()) {
      if (auto start = dyn_cast<LayerStartOp>(op)) {
        markers = true;
        if (!layers.empty() && layers.back().segment == index)
          layers.back().instructionCount =
              static_cast<uint32_t>(stream.size()) -
              layers.back().firstInstruction;
        layers.push_back({start.getName().str(), static_cast<uint32_t>(index),
                          static_cast<uint32_t>(stream.size()), 0});
        continue;
      }
      if (mlir::isa<LayerOp>(op))
        return error(llvm::formatv("npu.segment {0} is not scheduled (run "
                                   "npu-schedule-pipeline)",
                                   index));
      if (mlir::isa<EndOp>(op) && !layers.empty() &&
          layers.back().segment == index)
        layers.back().instructionCount = static_cast<uint32_t>(stream.size()) -
                                         layers.back().firstInstruction;
      stream.push_back(encodeInstruction(cast<InstructionOpInterface>(op)));
    }
  }
  for (size_t i = 0; i < program.segments.size(); ++i)
    if (program.segments[i].isNpu() && !written[i])
      return error(llvm::formatv("NPU segment {0} '{1}' has no npu.segment", i,
                                 program.segments[i].name));
  if (markers)
    program.layers = std::move(layers);
  return llvm::Error::success();
}
