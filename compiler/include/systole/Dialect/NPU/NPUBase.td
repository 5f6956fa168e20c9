//===- NPUBase.td - npu dialect, token type, instruction base -*- tablegen -*-===//
//
// The npu dialect is the NPU program as IR: one op per instruction of the
// ISA (generated from Instructions.def into NPUInstructions.td), dependency
// tokens as SSA values of type !npu.token, and the program's NPU segments
// as regions. Its translation to and from the .npu binary is exact in both
// directions (lib/Target/NPUBinary).
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_DIALECT_NPU_NPUBASE_TD
#define SYSTOLE_DIALECT_NPU_NPUBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

def NPU_Dialect : Dialect {
  let name = "npu";
  let cppNamespace = "::systole::npu";
  let summary = "The Systole NPU's instructions, queues and tokens";
  let description = [{
    An `npu.program` holds the hardware configuration the program was
    compiled for and one `npu.segment` per NPU segment of the binary. A
    segment's body is its instruction stream in fetch order; each op is one
    instruction, its attributes are the instruction's fields (named and
    typed as in docs/isa.md), and its dependency flags are explicit: an
    instruction that pushes a token into a FIFO defines an `!npu.token`
    result (`push_prev`, `push_next`), the instruction that pops it uses
    that value (`pop_prev`, `pop_next`). The k-th pop of a FIFO takes the
    k-th push (the FIFOs are in order), which the segment verifier checks,
    so the values cannot disagree with the bits. Segments are graph
    regions: a consumer may precede its producer in fetch order.

    The graph-level NPU passes also write discardable `npu.*` attributes
    on graph ops (placement, tile plans, DRAM offsets); this dialect owns
    that prefix.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let usePropertiesForAttributes = 0;
}

class NPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<NPU_Dialect, mnemonic, traits>;

def NPU_Placement : I32EnumAttr<"Placement", "where a graph op runs", [
    I32EnumAttrCase<"Npu", 0, "npu">, I32EnumAttrCase<"Host", 1, "host">]> {
  let cppNamespace = "::systole::npu";
  let genSpecializedAttr = 0;
}
// On graph ops as `npu.placement` (npu-partition).
def NPU_PlacementAttr : EnumAttr<NPU_Dialect, NPU_Placement, "placement">;

def NPU_TilePlanAttr : AttrDef<NPU_Dialect, "TilePlan"> {
  let mnemonic = "tile";
  let summary = "A layer's tile plan, as npu-plan-tiles chose it";
  let description = [{
    The tiling choices of one NPU layer (on the graph op as `npu.tile`):
    output `rows` per item, output channels `n` per tile, a K split's
    reduction chunk `k`, `channels` per item of table/vector layers,
    `os` (output-stationary), `resident` weights, channel-tiles-outer
    `order`; only those its generator uses are present.
    `predicted_cycles` is the cost model's price of the plan.
  }];
  let parameters = (ins
    OptionalParameter<"std::optional<int64_t>">:$channels,
    OptionalParameter<"std::optional<int64_t>">:$k,
    OptionalParameter<"std::optional<int64_t>">:$n,
    OptionalParameter<"std::optional<int64_t>">:$order,
    OptionalParameter<"std::optional<int64_t>">:$os,
    OptionalParameter<"std::optional<int64_t>">:$predicted_cycles,
    OptionalParameter<"std::optional<int64_t>">:$resident,
    OptionalParameter<"std::optional<int64_t>">:$rows);
  let assemblyFormat = "`<` struct(params) `>`";
}

def NPU_Token : TypeDef<NPU_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "a dependency token between two instruction queues";
}

def NPU_InstructionOpInterface : OpInterface<"InstructionOpInterface"> {
  let cppNamespace = "::systole::npu";
  let description = [{
    An op that is one NPU instruction: its opcode, and (NPUOps.h) its
    encoding built from the op's attributes and token operands/results.
  }];
  let methods = [
    InterfaceMethod<"The instruction's opcode.", "::systole::isa::Opcode",
                    "getIsaOpcode">
  ];
}

// Every instruction: up to two popped tokens, up to two pushed ones, its
// fields as attributes. Parsing, printing and verification are one generic
// implementation driven by the ISA's field table (NPUOps.cpp).
class NPU_InstructionOp<string mnemonic, string opcode>
    : NPU_Op<mnemonic, [AttrSizedOperandSegments, AttrSizedResultSegments,
                        ParentOneOf<["SegmentOp", "ItemOp"]>,
                        DeclareOpInterfaceMethods<OpAsmOpInterface,
                                                  ["getAsmResultNames"]>,
                        DeclareOpInterfaceMethods<NPU_InstructionOpInterface>]> {
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static constexpr ::systole::isa::Opcode kOpcode =
        ::systole::isa::Opcode::}] # opcode # [{;
  }];
  let extraClassDefinition = [{
    ::mlir::ParseResult $cppClass::parse(::mlir::OpAsmParser &parser,
                                         ::mlir::OperationState &result) {
      return parseInstruction(parser, result, kOpcode);
    }
    void $cppClass::print(::mlir::OpAsmPrinter &p) {
      printInstruction(getOperation(), p);
    }
    ::mlir::LogicalResult $cppClass::verify() {
      return verifyInstruction(getOperation());
    }
    ::systole::isa::Opcode $cppClass::getIsaOpcode() { return kOpcode; }
    void $cppClass::getAsmResultNames(
        ::mlir::OpAsmSetValueNameFn setNameFn) {
      getTokenResultNames(getOperation(), setNameFn);
    }
  }];
}

#endif
