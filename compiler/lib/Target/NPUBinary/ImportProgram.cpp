//===- ImportProgram.cpp - .npu instruction streams -> npu IR -------------===//
//
// Dependency flags become SSA tokens. The FIFOs are in order, so the k-th
// pop of a FIFO takes the token of its k-th push; a consumer may be fetched
// before its producer, so ops are built first with placeholder operands and
// the tokens are bound once every push exists.
//
//===----------------------------------------------------------------------===//
#include "systole/Target/NPUBinary/NPUBinary.h"

#include "systole/ISA/Presets.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace systole;
using namespace systole::npu;

static llvm::Error importSegment(OpBuilder &b, Location loc, size_t index,
                                 const isa::Segment &seg) {
  auto segment = b.create<SegmentOp>(loc, b.getI64IntegerAttr(index),
                                     b.getStringAttr(seg.name));
  Block *body = new Block();
  segment.getBody().push_back(body);
  OpBuilder::InsertionGuard guard(b);

  // Placeholder for pops whose push comes later in the stream.
  b.setInsertionPointToStart(body);
  Operation *placeholder = b.create<UnrealizedConversionCastOp>(
      loc, TypeRange{TokenType::get(b.getContext())}, ValueRange{});
  Value hole = placeholder->getResult(0);

  constexpr unsigned n = isa::kNumTokenFifos;
  std::vector<Value> pushes[n];
  std::vector<std::pair<Operation *, unsigned>> pops[n]; // op, operand index
  b.setInsertionPointToEnd(body);
  for (const isa::Instruction &inst : seg.npu().instructions) {
    isa::Deps d = inst.deps();
    isa::Queue q = inst.queue();
    InstructionOpInterface op = buildInstruction(
        b, loc, inst, d.popPrev ? hole : Value(), d.popNext ? hole : Value());
    unsigned operand = 0, result = 0;
    if (d.popPrev)
      pops[unsigned(*isa::popPrevFifo(q))].push_back({op, operand++});
    if (d.popNext)
      pops[unsigned(*isa::popNextFifo(q))].push_back({op, operand++});
    if (d.pushPrev)
      pushes[unsigned(*isa::pushPrevFifo(q))].push_back(
          op->getResult(result++));
    if (d.pushNext)
      pushes[unsigned(*isa::pushNextFifo(q))].push_back(
          op->getResult(result++));
  }
  for (unsigned f = 0; f < n; ++f) {
    if (pops[f].size() > pushes[f].size())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("segment {0} '{1}': FIFO {2} is popped {3} times but "
                        "pushed {4} times",
                        index, seg.name,
                        isa::tokenFifoName(static_cast<isa::TokenFifo>(f)),
                        pops[f].size(), pushes[f].size())
              .str());
    for (size_t k = 0; k < pops[f].size(); ++k)
      pops[f][k].first->setOperand(pops[f][k].second, pushes[f][k]);
  }
  placeholder->erase();
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>>
npu::importProgram(const isa::Program &program, MLIRContext *context) {
  context->getOrLoadDialect<NPUDialect>();
  Location loc = UnknownLoc::get(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b(context);
  b.setInsertionPointToEnd(module->getBody());
  // A bundled preset is named, any other config is spelled out.
  std::string hw = isa::hwConfigToJsonText(program.config);
  if (auto preset = isa::resolveHwConfig(program.config.name)) {
    if (isa::hwConfigToJsonText(*preset) == hw)
      hw = program.config.name;
  } else {
    llvm::consumeError(preset.takeError());
  }
  auto prog = b.create<ProgramOp>(loc, hw);
  prog.getBody().push_back(new Block());
  b.setInsertionPointToEnd(&prog.getBody().front());
  for (size_t i = 0; i < program.segments.size(); ++i)
    if (program.segments[i].isNpu())
      if (llvm::Error e = importSegment(b, loc, i, program.segments[i]))
        return std::move(e);
  return module;
}
