//===- NPUStructure.td - npu.program and npu.segment ---------*- tablegen -*-===//
#ifndef SYSTOLE_DIALECT_NPU_NPUSTRUCTURE_TD
#define SYSTOLE_DIALECT_NPU_NPUSTRUCTURE_TD

include "systole/Dialect/NPU/NPUBase.td"

def NPU_ProgramOp : NPU_Op<"program", [IsolatedFromAbove, NoTerminator,
                                        SingleBlock]> {
  let summary = "An NPU program: its hardware config and its NPU segments";
  let description = [{
    `hw` is the hardware configuration as docs/hwconfig.md's JSON (what the
    binary's header holds; a preset name or file in hand-written IR); the segment verifier checks every instruction
    against it (isa::validateInstruction) and runs the queues' abstract
    execution (isa::verifyTokenDiscipline). Segments are in program order;
    the binary's host segments sit between them at the positions their
    `index` leaves free.
  }];
  let arguments = (ins StrAttr:$hw);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$hw attr-dict-with-keyword $body";
}

def NPU_SegmentOp : NPU_Op<"segment", [NoTerminator, SingleBlock,
    HasParent<"ProgramOp">,
    DeclareOpInterfaceMethods<RegionKindInterface>]> {
  let summary = "One NPU segment: an instruction stream ended by npu.end";
  let description = [{
    `index` is the segment's position among all the program's segments
    (NPU and host), `name` its name in the binary. The body is a graph
    region: tokens may be used before the instruction that pushes them
    appears in the stream (a consumer fetched before its producer).
  }];
  let arguments = (ins I64Attr:$index, StrAttr:$name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$index $name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

#endif
