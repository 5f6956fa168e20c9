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
    `index` leaves free. `constants` is the DRAM range [begin, end) of the
    constant pool: npu-schedule-pipeline hoists only loads of constants into
    the layer before theirs.
  }];
  let arguments = (ins StrAttr:$hw,
                       OptionalAttr<DenseI64ArrayAttr>:$constants);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$hw attr-dict-with-keyword $body";
}

def NPU_SegmentOp : NPU_Op<"segment", [NoTerminator, SingleBlock,
    HasParent<"ProgramOp">,
    DeclareOpInterfaceMethods<RegionKindInterface>]> {
  let summary = "One NPU segment: its layers, or its instruction stream";
  let description = [{
    `index` is the segment's position among all the program's segments
    (NPU and host), `name` its name in the binary. As the code generators
    write it the segment holds `npu.layer` ops (items without order or
    tokens); npu-schedule-pipeline turns them into the instruction stream
    the binary holds: instructions with dependency tokens, `npu.layer_start`
    where each layer's range begins, ended by npu.end. The body is a graph
    region: tokens may be used before the instruction that pushes them
    appears in the stream (a consumer fetched before its producer).
  }];
  let arguments = (ins I64Attr:$index, StrAttr:$name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$index $name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def NPU_LayerOp : NPU_Op<"layer", [NoTerminator, SingleBlock,
                                    HasParent<"SegmentOp">]> {
  let summary = "One layer's items, before scheduling";
  let description = [{
    What a code generator writes for one layer: its `npu.item`s in order.
    npu-schedule-pipeline orders them into the segment's stream (double
    buffering, load stages, deferred tails), adds the barrier against the
    previous layer and the dependency tokens, and may hoist constant loads
    of the first item into the previous layer (lib/Dialect/NPU/Transforms/
    Pipeline.cpp). `name` names the layer in the binary's layer table.
  }];
  let arguments = (ins StrAttr:$name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def NPU_ItemOp : NPU_Op<"item", [NoTerminator, HasParent<"LayerOp">]> {
  let summary = "One pipeline item: the loads, computes and stores of a tile";
  let description = [{
    Instructions without dependency tokens, each region in its queue's
    order. `load_need` (one per load) is the index of the first compute that
    reads what the load brings: loads then form stages. `keep`: the item
    leaves its output tile in the scratchpad for the next layer (no stores).
    `tail_load`: the item's last compute is post-processor work whose one
    operand that load brings (a fused residual's VADD), which the scheduler
    may run among the next item's MATMULs.
  }];
  let arguments = (ins OptionalAttr<DenseI64ArrayAttr>:$load_need,
                       UnitAttr:$keep, OptionalAttr<I64Attr>:$tail_load);
  let regions = (region MaxSizedRegion<1>:$loads, MaxSizedRegion<1>:$computes,
                        MaxSizedRegion<1>:$stores);
  let assemblyFormat = [{
    (`keep` $keep^)? attr-dict `loads` $loads `computes` $computes
    `stores` $stores
  }];
  let hasVerifier = 1;
}

def NPU_LayerStartOp : NPU_Op<"layer_start", [HasParent<"SegmentOp">]> {
  let summary = "Where a layer's instruction range begins";
  let description = [{
    A layer's range runs to the next `npu.layer_start` or npu.end (the
    binary's layer table, for profiles and reports). `hoisted` loads of the
    layer's first item (`hoisted_bytes` DMA bytes) were moved into the
    previous layer's range by npu-schedule-pipeline.
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<I64Attr>:$hoisted,
                       OptionalAttr<I64Attr>:$hoisted_bytes);
  let assemblyFormat = "$name attr-dict";
}

#endif
