//===- ImportProgram.cpp - .npu instruction streams -> npu IR -------------===//
//
// Dependency flags become SSA tokens (npu::buildInstructionStream pairs them
// FIFO by FIFO). The binary's layer table becomes `npu.layer_start` markers
// when its ranges tile each segment's stream, as the compiler writes them;
// a table of any other shape (gaps, overlaps) is left to the binary.
//
//===----------------------------------------------------------------------===//
#include "systole/Target/NPUBinary/NPUBinary.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace systole;
using namespace systole::npu;

/// Whether the layer table's ranges follow each other in every NPU segment,
/// from its first instruction to the one before its END, in table order.
static bool layersTileSegments(const isa::Program &program) {
  if (program.layers.empty())
    return false;
  size_t k = 0;
  for (size_t s = 0; s < program.segments.size(); ++s) {
    if (!program.segments[s].isNpu())
      continue;
    size_t next = 0, end = program.segments[s].npu().instructions.size();
    bool any = false;
    for (; k < program.layers.size() && program.layers[k].segment == s; ++k) {
      const isa::LayerDebugInfo &l = program.layers[k];
      if (l.firstInstruction != next || l.instructionCount == 0)
        return false;
      next += l.instructionCount;
      any = true;
    }
    if (any && next + 1 != end)
      return false;
  }
  return k == program.layers.size();
}

static llvm::Error importSegment(OpBuilder &b, Location loc, size_t index,
                                 const isa::Segment &seg,
                                 llvm::ArrayRef<isa::LayerDebugInfo> layers) {
  auto segment = b.create<SegmentOp>(loc, b.getI64IntegerAttr(index),
                                     b.getStringAttr(seg.name));
  Block *body = new Block();
  segment.getBody().push_back(body);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(body);
  auto ops = buildInstructionStream(b, loc, seg.npu().instructions);
  if (!ops)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("segment {0} '{1}': {2}", index, seg.name,
                      llvm::toString(ops.takeError()))
            .str());
  for (const isa::LayerDebugInfo &l : layers)
    if (l.segment == index) {
      b.setInsertionPoint((*ops)[l.firstInstruction]);
      b.create<LayerStartOp>(loc, b.getStringAttr(l.name), IntegerAttr(),
                             IntegerAttr());
    }
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>>
npu::importProgram(const isa::Program &program, MLIRContext *context) {
  context->getOrLoadDialect<NPUDialect>();
  Location loc = UnknownLoc::get(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b(context);
  b.setInsertionPointToEnd(module->getBody());
  auto prog = b.create<ProgramOp>(
      loc, b.getStringAttr(hwConfigText(program.config)), DenseI64ArrayAttr());
  prog.getBody().push_back(new Block());
  b.setInsertionPointToEnd(&prog.getBody().front());
  llvm::ArrayRef<isa::LayerDebugInfo> layers;
  if (layersTileSegments(program))
    layers = program.layers;
  for (size_t i = 0; i < program.segments.size(); ++i)
    if (program.segments[i].isNpu())
      if (llvm::Error e = importSegment(b, loc, i, program.segments[i], layers))
        return std::move(e);
  return module;
}
