//===- NPUOps.cpp - npu ops: syntax, verifiers, encoding ------------------===//
//
// Every instruction op is parsed, printed, verified and encoded by the same
// few functions, driven by the ISA's field table: the IR cannot name a field
// the encoder does not know, and a field's kind decides its attribute type
// (U/S: i64, F32: f32, FLAG: unit, ENUM: the generated i32 enum).
//
// Syntax:  %t = npu.<mnemonic> [pop_prev %a] [pop_next %b] [push_prev]
//               [push_next] {field = value, flag, ...} [attributes {...}]
// Fields equal to 0 are left out (an absent field is 0), enum fields are
// always printed.
//
//===----------------------------------------------------------------------===//
#include "systole/Dialect/NPU/NPUOps.h"
#include "systole/ISA/Presets.h"
#include "systole/ISA/Verifier.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace systole;
using namespace systole::npu;

#include "systole/Dialect/NPU/NPUEnums.cpp.inc"
#include "systole/Dialect/NPU/NPUOpInterfaces.cpp.inc"

static constexpr llvm::StringLiteral kOperandSegments = "operandSegmentSizes";
static constexpr llvm::StringLiteral kResultSegments = "resultSegmentSizes";

static Type tokenType(MLIRContext *ctx) { return TokenType::get(ctx); }

/// The attribute a field's value is stored as, or null for a 0 that is left
/// out (enum fields are always stored, so `dataflow = ws` stays visible).
static Attribute fieldAttr(MLIRContext *ctx, const isa::FieldInfo &fi,
                           const isa::Instruction &inst) {
  switch (fi.kind) {
  case isa::FieldKind::FLAG:
    return inst.getFlag(fi.field) ? UnitAttr::get(ctx) : Attribute();
  case isa::FieldKind::ENUM:
    return IntegerAttr::get(IntegerType::get(ctx, 32), inst.get(fi.field));
  case isa::FieldKind::F32:
    if (inst.raw(fi.field) == 0)
      return {};
    return FloatAttr::get(Float32Type::get(ctx), inst.getF32(fi.field));
  case isa::FieldKind::U:
  case isa::FieldKind::S:
    if (inst.raw(fi.field) == 0)
      return {};
    return IntegerAttr::get(IntegerType::get(ctx, 64), inst.get(fi.field));
  }
  return {};
}

isa::Queue npu::queueOf(InstructionOpInterface op) {
  isa::Opcode opcode = op.getIsaOpcode();
  isa::Queue q = isa::opcodeInfo(opcode).queue;
  if (q != isa::Queue::Selected)
    return q;
  auto sel = op->getAttrOfType<IntegerAttr>("queue");
  return static_cast<isa::Queue>(sel ? sel.getInt() : 0);
}

isa::Instruction npu::encodeInstruction(InstructionOpInterface op) {
  isa::Instruction inst(op.getIsaOpcode());
  for (isa::Field f : isa::fieldsOf(op.getIsaOpcode())) {
    const isa::FieldInfo &fi = isa::fieldInfo(f);
    Attribute a = op->getAttr(fi.name);
    if (!a)
      continue;
    if (fi.kind == isa::FieldKind::FLAG)
      inst.set(f, 1);
    else if (fi.kind == isa::FieldKind::F32)
      inst.setF32(f, cast<FloatAttr>(a).getValue().convertToFloat());
    else
      inst.set(f, cast<IntegerAttr>(a).getInt());
  }
  auto segments = op->getAttrOfType<DenseI32ArrayAttr>(kOperandSegments);
  auto results = op->getAttrOfType<DenseI32ArrayAttr>(kResultSegments);
  isa::Deps d;
  d.popPrev = segments && segments[0] != 0;
  d.popNext = segments && segments[1] != 0;
  d.pushPrev = results && results[0] != 0;
  d.pushNext = results && results[1] != 0;
  inst.setDeps(d);
  return inst;
}

InstructionOpInterface npu::buildInstruction(OpBuilder &b, Location loc,
                                             const isa::Instruction &inst,
                                             Value popPrev, Value popNext) {
  MLIRContext *ctx = b.getContext();
  const isa::OpcodeInfo &info = isa::opcodeInfo(inst.opcode());
  OperationState state(loc, (llvm::Twine("npu.") + info.mnemonic).str());
  isa::Deps d = inst.deps();
  assert(bool(popPrev) == d.popPrev && bool(popNext) == d.popNext &&
         "token operands must match the dependency flags");
  if (popPrev)
    state.addOperands(popPrev);
  if (popNext)
    state.addOperands(popNext);
  if (d.pushPrev)
    state.addTypes(tokenType(ctx));
  if (d.pushNext)
    state.addTypes(tokenType(ctx));
  state.addAttribute(kOperandSegments,
                     b.getDenseI32ArrayAttr({d.popPrev, d.popNext}));
  state.addAttribute(kResultSegments,
                     b.getDenseI32ArrayAttr({d.pushPrev, d.pushNext}));
  for (isa::Field f : isa::fieldsOf(inst.opcode())) {
    const isa::FieldInfo &fi = isa::fieldInfo(f);
    if (Attribute a = fieldAttr(ctx, fi, inst))
      state.addAttribute(fi.name, a);
  }
  return cast<InstructionOpInterface>(b.create(state));
}

//===----------------------------------------------------------------------===//
// Syntax
//===----------------------------------------------------------------------===//

ParseResult npu::parseInstruction(OpAsmParser &parser, OperationState &result,
                                  isa::Opcode opcode) {
  MLIRContext *ctx = parser.getContext();
  const char *mnemonic = isa::opcodeInfo(opcode).mnemonic;
  Type token = tokenType(ctx);
  bool pops[2] = {false, false};
  const char *popNames[2] = {"pop_prev", "pop_next"};
  for (int i = 0; i < 2; ++i) {
    if (failed(parser.parseOptionalKeyword(popNames[i])))
      continue;
    OpAsmParser::UnresolvedOperand operand;
    if (parser.parseOperand(operand) ||
        parser.resolveOperand(operand, token, result.operands))
      return failure();
    pops[i] = true;
  }
  bool pushPrev = succeeded(parser.parseOptionalKeyword("push_prev"));
  bool pushNext = succeeded(parser.parseOptionalKeyword("push_next"));

  llvm::SmallSet<isa::Field, 16> seen;
  auto parseField = [&]() -> ParseResult {
    llvm::SMLoc loc = parser.getCurrentLocation();
    llvm::StringRef name;
    if (parser.parseKeyword(&name))
      return failure();
    std::optional<isa::Field> f = isa::fieldByName(opcode, name);
    if (!f)
      return parser.emitError(loc)
             << "npu." << mnemonic << " has no field '" << name << "'";
    if (!seen.insert(*f).second)
      return parser.emitError(loc) << "field '" << name << "' given twice";
    const isa::FieldInfo &fi = isa::fieldInfo(*f);
    if (fi.kind == isa::FieldKind::FLAG) {
      result.addAttribute(name, UnitAttr::get(ctx));
      return success();
    }
    if (parser.parseEqual())
      return failure();
    switch (fi.kind) {
    case isa::FieldKind::ENUM: {
      llvm::StringRef value;
      llvm::SMLoc vloc = parser.getCurrentLocation();
      if (parser.parseKeyword(&value))
        return failure();
      std::optional<uint8_t> v = isa::enumValue(fi.enumType, value);
      if (!v)
        return parser.emitError(vloc)
               << "field '" << name << "': '" << value << "' is not a "
               << isa::enumTypeName(fi.enumType) << " value";
      result.addAttribute(name, IntegerAttr::get(IntegerType::get(ctx, 32),
                                                 static_cast<int64_t>(*v)));
      return success();
    }
    case isa::FieldKind::F32: {
      Attribute a;
      if (parser.parseAttribute(a, Float32Type::get(ctx)))
        return failure();
      result.addAttribute(name, a);
      return success();
    }
    default: {
      int64_t v;
      if (parser.parseInteger(v))
        return failure();
      result.addAttribute(name, IntegerAttr::get(IntegerType::get(ctx, 64), v));
      return success();
    }
    }
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::OptionalBraces,
                                     parseField) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  if (pushPrev)
    result.addTypes(token);
  if (pushNext)
    result.addTypes(token);
  Builder b(ctx);
  result.addAttribute(kOperandSegments,
                      b.getDenseI32ArrayAttr({pops[0], pops[1]}));
  result.addAttribute(kResultSegments,
                      b.getDenseI32ArrayAttr({pushPrev, pushNext}));
  return success();
}

/// A U/S/F32 field holding 0 (all bits clear): what an absent field means.
/// (ODS fills in the defaults of absent fields when an op is created.)
static bool isElidedZero(const isa::FieldInfo &fi, Attribute a) {
  if (fi.kind == isa::FieldKind::ENUM || fi.kind == isa::FieldKind::FLAG)
    return false;
  if (auto i = dyn_cast<IntegerAttr>(a))
    return i.getInt() == 0;
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValue().bitcastToAPInt().isZero();
  return false;
}

void npu::getTokenResultNames(Operation *op,
                              function_ref<void(Value, StringRef)> setName) {
  auto inst = cast<InstructionOpInterface>(op);
  isa::Queue q = queueOf(inst);
  auto results = op->getAttrOfType<DenseI32ArrayAttr>(kResultSegments);
  if (!results)
    return;
  // The FIFO a token travels through: l2c = load -> compute, etc.
  static const char *names[isa::kNumTokenFifos] = {"l2c", "c2l", "c2s", "s2c"};
  unsigned next = 0;
  if (results[0])
    if (auto f = isa::pushPrevFifo(q); f && next < op->getNumResults())
      setName(op->getResult(next++), names[unsigned(*f)]);
  if (results[1])
    if (auto f = isa::pushNextFifo(q); f && next < op->getNumResults())
      setName(op->getResult(next++), names[unsigned(*f)]);
}

void npu::printInstruction(Operation *op, OpAsmPrinter &p) {
  auto inst = cast<InstructionOpInterface>(op);
  isa::Opcode opcode = inst.getIsaOpcode();
  auto operands = op->getAttrOfType<DenseI32ArrayAttr>(kOperandSegments);
  auto results = op->getAttrOfType<DenseI32ArrayAttr>(kResultSegments);
  unsigned next = 0;
  if (operands && operands[0])
    p << " pop_prev " << op->getOperand(next++);
  if (operands && operands[1])
    p << " pop_next " << op->getOperand(next++);
  if (results && results[0])
    p << " push_prev";
  if (results && results[1])
    p << " push_next";
  llvm::SmallVector<llvm::StringRef> elided = {kOperandSegments,
                                               kResultSegments};
  bool first = true;
  for (isa::Field f : isa::fieldsOf(opcode)) {
    const isa::FieldInfo &fi = isa::fieldInfo(f);
    elided.push_back(fi.name);
    Attribute a = op->getAttr(fi.name);
    if (!a || isElidedZero(fi, a))
      continue;
    p << (first ? " {" : ", ") << fi.name;
    first = false;
    if (fi.kind == isa::FieldKind::FLAG)
      continue;
    p << " = ";
    auto i = dyn_cast<IntegerAttr>(a);
    if (fi.kind == isa::FieldKind::ENUM && i &&
        isa::enumName(fi.enumType, i.getInt()))
      p << isa::enumName(fi.enumType, i.getInt());
    else if (i && fi.kind != isa::FieldKind::ENUM)
      p << i.getInt();
    else if (mlir::isa<FloatAttr>(a) && fi.kind == isa::FieldKind::F32)
      p.printAttributeWithoutType(a);
    else
      p.printAttribute(a); // malformed IR prints as it is (the verifier says)
  }
  if (!first)
    p << "}";
  p.printOptionalAttrDictWithKeyword(op->getAttrs(), elided);
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult npu::verifyInstruction(Operation *op) {
  auto inst = cast<InstructionOpInterface>(op);
  isa::Opcode opcode = inst.getIsaOpcode();
  for (isa::Field f : isa::fieldsOf(opcode)) {
    const isa::FieldInfo &fi = isa::fieldInfo(f);
    Attribute a = op->getAttr(fi.name);
    if (!a || fi.kind == isa::FieldKind::FLAG || fi.kind == isa::FieldKind::F32)
      continue; // ODS checked the attribute's type
    int64_t v = cast<IntegerAttr>(a).getInt();
    if (fi.kind == isa::FieldKind::ENUM ? !isa::enumName(fi.enumType, v)
                                        : !isa::Instruction::fits(f, v))
      return op->emitOpError("field '")
             << fi.name << "' = " << v << " does not fit: "
             << (fi.kind == isa::FieldKind::ENUM
                     ? ("not a " + isa::enumTypeName(fi.enumType) + " value")
                           .str()
                     : (std::to_string(fi.width) +
                        (fi.kind == isa::FieldKind::S ? " signed"
                                                      : " unsigned") +
                        " bits"));
  }
  isa::Queue q = queueOf(inst);
  auto operands = op->getAttrOfType<DenseI32ArrayAttr>(kOperandSegments);
  auto results = op->getAttrOfType<DenseI32ArrayAttr>(kResultSegments);
  struct Flag {
    const char *name;
    bool set;
    std::optional<isa::TokenFifo> fifo;
  } flags[] = {{"pop_prev", operands[0] != 0, isa::popPrevFifo(q)},
               {"pop_next", operands[1] != 0, isa::popNextFifo(q)},
               {"push_prev", results[0] != 0, isa::pushPrevFifo(q)},
               {"push_next", results[1] != 0, isa::pushNextFifo(q)}};
  for (const Flag &f : flags)
    if (f.set && !f.fifo)
      return op->emitOpError(f.name)
             << ": the " << isa::queueName(q) << " queue has no such neighbour";
  return success();
}

RegionKind SegmentOp::getRegionKind(unsigned) { return RegionKind::Graph; }

/// Each FIFO is in order, so the k-th pop of a FIFO takes the k-th push:
/// the token values must say exactly that, and every push must be popped.
static LogicalResult verifyTokenPairing(SegmentOp segment,
                                        llvm::ArrayRef<Operation *> ops) {
  constexpr unsigned n = isa::kNumTokenFifos;
  llvm::SmallVector<Value> pushes[n];
  llvm::SmallVector<std::pair<Operation *, Value>> pops[n];
  for (Operation *op : ops) {
    auto inst = cast<InstructionOpInterface>(op);
    isa::Queue q = queueOf(inst);
    auto operands = op->getAttrOfType<DenseI32ArrayAttr>(kOperandSegments);
    auto results = op->getAttrOfType<DenseI32ArrayAttr>(kResultSegments);
    unsigned nextOperand = 0, nextResult = 0;
    if (operands[0])
      pops[unsigned(*isa::popPrevFifo(q))].push_back(
          {op, op->getOperand(nextOperand++)});
    if (operands[1])
      pops[unsigned(*isa::popNextFifo(q))].push_back(
          {op, op->getOperand(nextOperand++)});
    if (results[0])
      pushes[unsigned(*isa::pushPrevFifo(q))].push_back(
          op->getResult(nextResult++));
    if (results[1])
      pushes[unsigned(*isa::pushNextFifo(q))].push_back(
          op->getResult(nextResult++));
  }
  for (unsigned f = 0; f < n; ++f) {
    llvm::StringRef fifo = isa::tokenFifoName(static_cast<isa::TokenFifo>(f));
    for (size_t k = 0; k < pops[f].size(); ++k) {
      auto [op, value] = pops[f][k];
      if (k >= pushes[f].size())
        return op->emitOpError("pops token #")
               << k << " of FIFO " << fifo << ", which only "
               << pushes[f].size() << " instructions push";
      if (value != pushes[f][k])
        return op->emitOpError("pops token #")
               << k << " of FIFO " << fifo
               << " but names another push (FIFOs are in order: the k-th "
                  "pop takes the k-th push)";
    }
    if (pushes[f].size() > pops[f].size())
      return segment.emitOpError("FIFO ")
             << fifo << ": " << pushes[f].size() << " pushes but "
             << pops[f].size() << " pops";
  }
  return success();
}

/// The program's hardware config, for the checks against it.
static FailureOr<isa::HwConfig> programConfig(Operation *op) {
  auto program = op->getParentOfType<ProgramOp>();
  llvm::Expected<isa::HwConfig> hw = isa::resolveHwConfig(program.getHw());
  if (!hw) {
    program.emitOpError("hw: ") << llvm::toString(hw.takeError());
    return failure();
  }
  return *hw;
}

LogicalResult SegmentOp::verifyRegions() {
  Block &body = getBody().front();
  // Before scheduling: layers only (npu-schedule-pipeline ends the stream).
  if (!body.empty() && mlir::isa<LayerOp>(body.front())) {
    for (Operation &op : body)
      if (!mlir::isa<LayerOp>(op))
        return op.emitOpError("beside npu.layer ops: a segment holds either "
                              "layers (before npu-schedule-pipeline) or an "
                              "instruction stream");
    return success();
  }
  llvm::SmallVector<Operation *> ops;
  for (Operation &op : body) {
    if (mlir::isa<LayerStartOp>(op))
      continue;
    if (!mlir::isa<InstructionOpInterface>(op))
      return op.emitOpError("is not an instruction: a scheduled segment "
                            "holds only npu instruction ops and "
                            "npu.layer_start");
    ops.push_back(&op);
  }
  if (ops.empty() || !mlir::isa<EndOp>(ops.back()))
    return emitOpError("must end with npu.end");
  for (Operation *op : llvm::ArrayRef(ops).drop_back())
    if (mlir::isa<EndOp>(op))
      return op->emitOpError("before the end of the segment");
  if (failed(verifyTokenPairing(*this, ops)))
    return failure();

  // Against the hardware: every instruction's config-dependent checks, then
  // the queues' abstract execution (deadlock, FIFO depths).
  FailureOr<isa::HwConfig> hw = programConfig(*this);
  if (failed(hw))
    return failure();
  std::vector<isa::Instruction> stream;
  stream.reserve(ops.size());
  for (Operation *op : ops) {
    stream.push_back(encodeInstruction(cast<InstructionOpInterface>(op)));
    if (llvm::Error e = isa::validateInstruction(stream.back(), *hw))
      return op->emitOpError() << llvm::toString(std::move(e));
  }
  if (llvm::Error e = isa::verifyTokenDiscipline(stream, *hw))
    return emitOpError() << llvm::toString(std::move(e));
  return success();
}

LogicalResult LayerOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.empty())
    return emitOpError("has no items");
  FailureOr<isa::HwConfig> hw = programConfig(*this);
  if (failed(hw))
    return failure();
  for (Operation &op : body) {
    auto item = mlir::dyn_cast<ItemOp>(op);
    if (!item)
      return op.emitOpError("in an npu.layer: a layer holds only npu.item");
    for (Region &r : item->getRegions())
      for (Operation &inst : r.getOps())
        if (llvm::Error e = isa::validateInstruction(
                encodeInstruction(cast<InstructionOpInterface>(inst)), *hw))
          return inst.emitOpError() << llvm::toString(std::move(e));
  }
  // The protocol's one rule across items: the last item ends the output
  // tile (it stores, or keeps the tile on chip), and either every item
  // keeps or none does.
  auto items = body.getOps<ItemOp>();
  ItemOp last = *std::prev(items.end());
  if (!last.getKeep() && last.getStores().getOps().empty())
    return last.emitOpError("is the layer's last item but neither stores "
                            "nor keeps its output tile");
  for (ItemOp item : items)
    if (item.getKeep() != last.getKeep())
      return item.emitOpError("keeps its tile where the layer's last item "
                              "does not (or the reverse): a layer's items "
                              "either all keep or none does");
  return success();
}

/// The ops of one of an item's regions, in order.
static llvm::SmallVector<Operation *> regionOps(Region &r) {
  llvm::SmallVector<Operation *> ops;
  for (Operation &op : r.getOps())
    ops.push_back(&op);
  return ops;
}

LogicalResult ItemOp::verify() {
  struct Side {
    Region &region;
    const char *name;
    bool (*fits)(isa::Opcode);
  } sides[] = {{getLoads(), "loads",
                [](isa::Opcode o) { return o == isa::Opcode::Load; }},
               {getComputes(), "computes",
                [](isa::Opcode o) {
                  isa::Queue q = isa::opcodeInfo(o).queue;
                  return q == isa::Queue::Compute ||
                         (q == isa::Queue::Selected && o != isa::Opcode::End);
                }},
               {getStores(), "stores",
                [](isa::Opcode o) { return o == isa::Opcode::Store; }}};
  for (const Side &side : sides)
    for (Operation *op : regionOps(side.region)) {
      auto inst = mlir::dyn_cast<InstructionOpInterface>(op);
      if (!inst)
        return op->emitOpError("is not an instruction");
      if (!side.fits(inst.getIsaOpcode()))
        return op->emitOpError("does not belong in an item's ") << side.name;
      if (op->getNumOperands() || op->getNumResults())
        return op->emitOpError("carries dependency tokens inside an "
                               "npu.item: npu-schedule-pipeline adds them");
    }
  size_t loads = regionOps(getLoads()).size();
  size_t computes = regionOps(getComputes()).size();
  if (computes == 0)
    return emitOpError("computes nothing: every item computes");
  if (getKeep() && !regionOps(getStores()).empty())
    return emitOpError("keeps its output tile on chip but stores it too");
  if (auto need = getLoadNeed()) {
    if (need->size() != loads)
      return emitOpError("load_need has ")
             << need->size() << " entries for " << loads << " loads";
    for (int64_t n : *need)
      if (n < 0 || static_cast<size_t>(n) >= computes)
        return emitOpError("load_need entry ")
               << n << " names no compute (the item has " << computes << ")";
  }
  if (auto tail = getTailLoad())
    if (*tail < 0 || static_cast<uint64_t>(*tail) >= loads)
      return emitOpError("tail_load ")
             << *tail << " names no load (the item has " << loads << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

llvm::Expected<llvm::SmallVector<Operation *>>
npu::buildInstructionStream(OpBuilder &b, Location loc,
                            llvm::ArrayRef<isa::Instruction> stream) {
  // A consumer may be fetched before its producer: ops are built with a
  // placeholder operand and the tokens bound once every push exists.
  Operation *placeholder = b.create<UnrealizedConversionCastOp>(
      loc, TypeRange{TokenType::get(b.getContext())}, ValueRange{});
  Value hole = placeholder->getResult(0);
  constexpr unsigned n = isa::kNumTokenFifos;
  std::vector<Value> pushes[n];
  std::vector<std::pair<Operation *, unsigned>> pops[n]; // op, operand index
  llvm::SmallVector<Operation *> ops;
  ops.reserve(stream.size());
  for (const isa::Instruction &inst : stream) {
    isa::Deps d = inst.deps();
    isa::Queue q = inst.queue();
    InstructionOpInterface op = buildInstruction(
        b, loc, inst, d.popPrev ? hole : Value(), d.popNext ? hole : Value());
    ops.push_back(op);
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
  llvm::Error error = llvm::Error::success();
  for (unsigned f = 0; f < n; ++f) {
    if (pops[f].size() > pushes[f].size()) {
      error = llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "FIFO " + isa::tokenFifoName(static_cast<isa::TokenFifo>(f)).str() +
              " is popped " + std::to_string(pops[f].size()) +
              " times but pushed " + std::to_string(pushes[f].size()) +
              " times");
      break;
    }
    for (size_t k = 0; k < pops[f].size(); ++k)
      pops[f][k].first->setOperand(pops[f][k].second, pushes[f][k]);
  }
  if (error) {
    for (Operation *op : llvm::reverse(ops))
      op->erase();
    placeholder->erase();
    return std::move(error);
  }
  placeholder->erase();
  return ops;
}

std::string npu::hwConfigText(const isa::HwConfig &config) {
  // A bundled preset is named, any other config is spelled out.
  std::string hw = isa::hwConfigToJsonText(config);
  if (auto preset = isa::resolveHwConfig(config.name)) {
    if (isa::hwConfigToJsonText(*preset) == hw)
      return config.name;
  } else {
    llvm::consumeError(preset.takeError());
  }
  return hw;
}

#define GET_OP_CLASSES
#include "systole/Dialect/NPU/NPUOps.cpp.inc"
