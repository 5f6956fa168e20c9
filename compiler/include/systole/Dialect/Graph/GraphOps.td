//===- GraphOps.td - Graph dialect operations ---------------*- tablegen -*-===//
//
// One op per ONNX operator family. Attributes are normalized at import
// (explicit pads, no auto_pad, Gemm's transposes folded) so passes never
// re-derive ONNX defaults.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_DIALECT_GRAPH_GRAPHOPS_TD
#define SYSTOLE_DIALECT_GRAPH_GRAPHOPS_TD

include "systole/Dialect/Graph/GraphDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/OpBase.td"

class Graph_PureOp<string mnemonic, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat(traits, [Pure])>;

//===----------------------------------------------------------------------===//
// Quantization boundaries
//===----------------------------------------------------------------------===//

def Graph_QuantizeOp : Graph_PureOp<"quantize", [SameOperandsAndResultShape]> {
  let summary = "float -> quantized (ONNX QuantizeLinear)";
  let description = [{
    `q = saturate(round_half_to_even(x / scale) + zero_point)`; the scale(s)
    and zero point(s) are those of the result's `!quant.uniform` type.
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_DequantizeOp : Graph_PureOp<"dequantize", [SameOperandsAndResultShape]> {
  let summary = "quantized -> float (ONNX DequantizeLinear)";
  let description = [{ `x = (q - zero_point) * scale`, in float32. }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_RequantizeOp : Graph_PureOp<"requantize", [SameOperandsAndResultShape]> {
  let summary = "quantized -> quantized with other parameters";
  let description = [{
    Appears where a DequantizeLinear feeds a QuantizeLinear with different
    parameters. Computed as ONNX Runtime does for a Q(DQ(x)) pair.
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Graph_TableOp : Graph_PureOp<"table", [SameOperandsAndResultShape]> {
  let summary = "8-bit quantized -> 8-bit quantized through a 256-entry table";
  let description = [{
    `output[i] = table[input[i] - min]`, `min` the input storage type's
    minimum (-128 for int8, 0 for uint8); `table` holds the output storage
    bytes. It replaces `Q(f(DQ(x)))` where `f` is elementwise in one value
    (Sigmoid, HardSwish, Tanh, GELU, SiLU's x * sigmoid(x), ...): the
    compiler computes the table by running the host code of that chain on
    the 256 input codes, so it equals what the host fallback computes
    (npu-fold-tables). On the NPU it is the REQUANT table of the producing
    convolution or matmul, or a VLUT of its own.

    A `[C, 256]` table is per channel: element `i` in channel `c` (the
    last dimension) reads row `c`. It replaces a function of one value
    whose parameters differ per channel (a BatchNormalization and ReLU
    before a convolution).
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyIntElementsAttr:$table);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Graph_Conv2DOp : Graph_PureOp<"conv2d"> {
  let summary = "2-D convolution (ONNX Conv / QLinearConv / ConvInteger)";
  let description = [{
    Input is NCHW or NHWC (`layout`); the filter is OIHW (as imported) or
    HWIO (with NHWC); `bias` is 1-D [O]. `pads` = [top, left, bottom, right].
    When the result is quantized, the op computes the int32 accumulation
    `sum((x - zx) * (w - zw)) + bias`, requantizes it with
    `x_scale * w_scale[o] / y_scale` and clamps to `[act_min, act_max]`
    (quantized values; a fused ReLU/ReLU6/Clip). An int32 result means no
    requantization (ConvInteger).
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$filter,
                   Optional<AnyRankedTensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                   DenseI64ArrayAttr:$pads, I64Attr:$group,
                   Graph_LayoutAttr:$layout,
                   OptionalAttr<I64Attr>:$act_min,
                   OptionalAttr<I64Attr>:$act_max);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:`
    `(` type($input) `,` type($filter) (`,` type($bias)^)? `)` `->` type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool isDepthwise();
  }];
}

def Graph_MatMulOp : Graph_PureOp<"matmul"> {
  let summary = "matrix product (ONNX MatMul/Gemm/QLinearMatMul/MatMulInteger)";
  let description = [{
    `lhs` is [..., M, K], `rhs` is [K, N] (a constant weight, typical of
    Gemm/Linear) or [..., K, N] with the same batch dims; optional `bias`
    is [N]. Quantization and `act_min`/`act_max` are as for conv2d.
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                   Optional<AnyRankedTensor>:$bias,
                   OptionalAttr<I64Attr>:$act_min,
                   OptionalAttr<I64Attr>:$act_max);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs (`,` $bias^)? attr-dict `:`
    `(` type($lhs) `,` type($rhs) (`,` type($bias)^)? `)` `->` type($output)
  }];
  let hasVerifier = 1;
}

class Graph_BinaryOp<string mnemonic> : Graph_PureOp<mnemonic> {
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                   OptionalAttr<I64Attr>:$act_min,
                   OptionalAttr<I64Attr>:$act_max);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($output)
  }];
  let hasVerifier = 1;
}

def Graph_AddOp : Graph_BinaryOp<"add"> {
  let summary = "elementwise add with ONNX broadcasting (Add / QLinearAdd)";
}
def Graph_MulOp : Graph_BinaryOp<"mul"> {
  let summary = "elementwise multiply with ONNX broadcasting (Mul / QLinearMul)";
}

def Graph_SubOp : Graph_BinaryOp<"sub"> {
  let summary = "elementwise subtract with ONNX broadcasting";
  let description = [{
    Float, or on 8-bit quantized tensors (graph-fold-qdq) the island
    DequantizeLinear -> Sub -> QuantizeLinear as ONNX Runtime runs it: the
    fp32 difference of the dequantized operands, quantized.
  }];
}
def Graph_DivOp : Graph_BinaryOp<"div"> {
  let summary = "elementwise divide with ONNX broadcasting";
  let description = [{
    Float, or on 8-bit quantized tensors (graph-fold-qdq) the island
    DequantizeLinear -> Div -> QuantizeLinear as ONNX Runtime runs it: the
    fp32 quotient of the dequantized operands, quantized.
  }];
}

def Graph_UnaryOp : Graph_PureOp<"unary", [AllTypesMatch<["input", "output"]>]> {
  let summary = "float elementwise function (Exp, Sigmoid, Tanh, Erf, ...)";
  let description = [{
    `fn` names the function: exp, sigmoid, tanh, erf, sqrt, neg, abs,
    reciprocal, hardswish (x * clamp(x / 6 + 0.5, 0, 1)) or gelu
    (0.5 * x * (1 + erf(x / sqrt(2)))). These run on the host (the NPU has
    no float unit).
  }];
  let arguments = (ins AnyRankedTensor:$input, StrAttr:$fn);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$fn $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Graph_SoftmaxOp : Graph_PureOp<"softmax", [AllTypesMatch<["input", "output"]>]> {
  let summary = "softmax along `axis` (ONNX Softmax, opset 13)";
  let description = [{ `exp(x - max) / sum(exp(x - max))` along one axis. }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Graph_LayerNormOp : Graph_PureOp<"layer_norm"> {
  let summary = "layer normalization over dims [axis, rank) (ONNX 17)";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias` with the mean and the
    (biased) variance taken over the trailing dims from `axis`; `scale` and
    `bias` have the shape of those trailing dims.
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$scale,
                   Optional<AnyRankedTensor>:$bias, I64Attr:$axis,
                   F64Attr:$epsilon);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:`
    `(` type($input) `,` type($scale) (`,` type($bias)^)? `)` `->` type($output)
  }];
  let hasVerifier = 1;
}

def Graph_ReduceOp : Graph_PureOp<"reduce"> {
  let summary = "reduction over `axes` (ReduceMean/ReduceSum/ReduceMax)";
  let description = [{
    Float, or for a mean or sum of an 8-bit quantized tensor
    (graph-fold-qdq) the island DequantizeLinear -> ReduceMean/ReduceSum ->
    QuantizeLinear as ONNX Runtime runs it.
  }];
  let arguments = (ins AnyRankedTensor:$input, StrAttr:$kind,
                   DenseI64ArrayAttr:$axes, BoolAttr:$keepdims);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$kind $input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_ClipOp : Graph_PureOp<"clip", [AllTypesMatch<["input", "output"]>]> {
  let summary = "clamp to [min, max] in real values (Relu is min=0, no max)";
  let arguments = (ins AnyRankedTensor:$input, OptionalAttr<F64Attr>:$min,
                   OptionalAttr<F64Attr>:$max);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Graph_PoolOp : Graph_PureOp<"pool"> {
  let summary = "max or average pooling over 2-D windows";
  let description = [{
    `pads` = [top, left, bottom, right]; ONNX `ceil_mode` is folded into the
    bottom/right pads at import. Padded positions never win a max; for
    average, `count_include_pad` says whether they count in the divisor.
  }];
  let arguments = (ins AnyRankedTensor:$input, Graph_PoolKindAttr:$kind,
                   DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, BoolAttr:$count_include_pad,
                   Graph_LayoutAttr:$layout);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_GlobalAvgPoolOp : Graph_PureOp<"global_avg_pool"> {
  let summary = "mean over the spatial dims (GlobalAveragePool), keeps dims";
  let arguments = (ins AnyRankedTensor:$input, Graph_LayoutAttr:$layout);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Graph_UpsampleOp : Graph_PureOp<"upsample"> {
  let summary = "nearest-neighbour upsampling by integer factors";
  let description = [{
    `output[n, c, y, x] = input[n, c, y / fy, x / fx]` (integer division;
    the spatial dims of `layout`), `factors` = [fy, fx]. The importer makes
    it of an ONNX Resize/Upsample in nearest mode whose taps are exactly
    that (e.g. asymmetric coordinates with floor rounding and integer
    scales, as PyTorch exports nn.Upsample(scale_factor=2)); any other
    Resize stays a graph.host op.
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$factors,
                   Graph_LayoutAttr:$layout);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_DepthToSpaceOp : Graph_PureOp<"depth_to_space"> {
  let summary = "ONNX DepthToSpace: blocks of channels to b x b pixels";
  let description = [{
    `output[n, c, y, x] = input[n, src, y / b, x / b]` (the channel and
    spatial dims of `layout`), b = `blocksize`, C' = output channels: with
    i = y mod b, j = x mod b, src = (i * b + j) * C' + c (DCR, `crd` false)
    or c * b^2 + i * b + j (CRD, PyTorch's pixel_shuffle). A data movement:
    the NPU copies DCR blocks with strided stores; a CRD one is a channel
    gather followed by DCR (graph-to-nhwc).
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$blocksize,
                   BoolAttr:$crd, Graph_LayoutAttr:$layout);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_SpaceToDepthOp : Graph_PureOp<"space_to_depth"> {
  let summary = "ONNX SpaceToDepth: b x b pixels to blocks of channels";
  let description = [{
    The inverse of a DCR DepthToSpace: `output[n, (i * b + j) * C + c, y, x]
    = input[n, c, y * b + i, x * b + j]` (the channel and spatial dims of
    `layout`), b = `blocksize`, C = input channels. A data movement: the
    NPU copies each (i, j) plane with strided stores.
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$blocksize,
                   Graph_LayoutAttr:$layout);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_ConcatOp : Graph_PureOp<"concat"> {
  let summary = "concatenation along `axis`";
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, $output)";
  let hasVerifier = 1;
}

def Graph_ReshapeOp : Graph_PureOp<"reshape"> {
  let summary = "row-major reshape (Reshape/Flatten/Squeeze/Unsqueeze)";
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_TransposeOp : Graph_PureOp<"transpose"> {
  let summary = "permutation of dimensions: output dim i = input dim perm[i]";
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_SliceOp : Graph_PureOp<"slice"> {
  let summary = "strided slice (ONNX Slice with constant, normalized bounds)";
  let description = [{
    `output[i] = input[offsets + i * strides]` per dim; offsets are in range
    and strides positive (the importer normalizes ONNX's negative and clamped
    bounds).
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$offsets,
                   DenseI64ArrayAttr:$strides);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_PadOp : Graph_PureOp<"pad"> {
  let summary = "constant padding (ONNX Pad, mode=constant)";
  let description = [{
    `pads` = [begin_0, ..., begin_n-1, end_0, ..., end_n-1] as in ONNX;
    `value` is the real value for float tensors, the stored integer for
    quantized ones.
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$pads,
                   F64Attr:$value);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  // All-zero pads (PyTorch exports one before DenseNet's transition pool)
  // fold to the input.
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Host computation in upstream dialects
//===----------------------------------------------------------------------===//

def Graph_HostOp : Graph_PureOp<"host", [IsolatedFromAbove]> {
  let summary = "an ONNX op the host computes, as upstream MLIR ops";
  let description = [{
    One ONNX node (`onnx_op` is its op type) that only the host runs, written
    in upstream dialects the host pipeline already lowers: TOSA where TOSA's
    semantics are ONNX's, linalg (named ops or generics with ONNX
    broadcasting), tensor, arith and math otherwise. The region's arguments
    are the operands; `graph.yield` returns the result. Wrapping keeps the
    graph a list of graph ops, so partitioning, DRAM allocation and
    emission see one value per node; the outliner inlines the region into
    the host function (docs/host.md).

    The importer may leave the region empty and record what the body needs
    in `params` (the node's validated attributes): the body is then built by
    `convert-onnx-to-linalg` (lib/Conversion/OnnxToLinalg/<family>.cpp);
    `params` stay, for the NPU lowerings of such ops (QLinearSoftmax).
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, StrAttr:$onnx_op,
                       OptionalAttr<DictionaryAttr>:$params);
  let results = (outs AnyRankedTensor:$output);
  let regions = (region MaxSizedRegion<1>:$body);
  let extraClassDeclaration = [{
    /// Whether the region holds its body (convert-onnx-to-linalg built it).
    bool hasBody() { return !getBody().empty(); }
  }];
  let assemblyFormat = [{
    $onnx_op `(` $inputs `)` attr-dict-with-keyword `:`
    functional-type($inputs, $output) $body
  }];
  let hasVerifier = 1;
}

def Graph_YieldOp : Graph_Op<"yield", [Pure, Terminator,
    HasParent<"HostOp">]> {
  let summary = "the result of a graph.host region";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // SYSTOLE_DIALECT_GRAPH_GRAPHOPS_TD
