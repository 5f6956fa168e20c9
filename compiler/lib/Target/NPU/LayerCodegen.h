//===- LayerCodegen.h - Per-layer instruction generation --------*- C++ -*-===//
//
// Internal to the NPU target. Each NPU op kind has a generator that turns
// the op, its tile plan and its DRAM operands into pipeline items. The tile
// planner runs the same generators to price candidate plans, so the cost
// model and the emitted code cannot disagree about what a plan does.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_TARGET_NPU_LAYERCODEGEN_H
#define SYSTOLE_LIB_TARGET_NPU_LAYERCODEGEN_H

#include "ProgramBuilder.h"

#include "systole/Target/NPU/TilePlan.h"

#include "systole/Dialect/Graph/GraphOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace systole::npu {

/// A convolution's whole input tile kept in the scratchpad by the layer
/// before it (a cascade, npu-plan-cascades): the consumer's padded NHWC
/// tile, `rows` x `rowPitch` pixels of `channels` bytes from `base`, the
/// producer's pixel (y, x) at row padTop + y, column padLeft + x. The
/// zero-point border is the consumer's to write.
struct OnChipTile {
  uint64_t base = 0;
  int64_t bytes = 0;
  int64_t padTop = 0, padLeft = 0, rowPitch = 0, channels = 0;
};

/// Where an op's tensors live. Constants are placed in the builder's pool by
/// the generator (weights in the layout the array reads, bias, scales);
/// when `materializeConstants` is false (pricing) they get dummy addresses.
struct LayerIO {
  std::vector<uint64_t> inputs; ///< DRAM addresses of activation operands
  uint64_t output = 0;
  bool materializeConstants = true;
  /// Scratchpad slots from the top down (ProgramBuilder::spMirrored):
  /// consecutive layers then use opposite ends of the scratchpad, so the
  /// next layer's weights can load while this layer still runs.
  bool spMirrored = false;
  /// DRAM address of a fused residual add's other operand (fusedResidual).
  uint64_t residual = 0;
  /// Elements between pixels of the output in DRAM when the output is a
  /// channel slice of an in-place concat (concatSlice); 0: the output's own
  /// channel count. `output` is then the slice's first element.
  int64_t outPixelStride = 0;
  /// The output stays in the scratchpad as the next layer's input tile
  /// (REQUANT writes it there, nothing is stored); the layer's own slots
  /// keep clear of it.
  std::optional<OnChipTile> keepOutput;
  /// The kept output has other readers too: every tile is also stored to
  /// `output` in DRAM, from the kept image (which must then be dense: no
  /// side padding, so a tile's pixels are one stride apart).
  bool storeKept = false;
  /// The input is already in the scratchpad (the previous layer kept it):
  /// the input tile is not loaded, only its padding border is written.
  bool inputOnChip = false;
};

/// Bump allocator over the scratchpad or accumulator. Regions start on bank
/// boundaries while they fit, so two operands read in the same cycle (OS
/// MATMUL A and B, VADD A and B) sit in different banks.
class SramAllocator {
public:
  /// `reserved` bytes at the far end stay free (a kept tile of the next
  /// layer, LayerIO::keepOutput).
  SramAllocator(uint64_t capacity, uint64_t bankBytes, bool mirrored = false,
                uint64_t reserved = 0)
      : capacity(capacity), bankBytes(bankBytes), mirrored(mirrored),
        limit(capacity - std::min(capacity, reserved)) {}
  /// Returns the address, or nullopt when `bytes` does not fit.
  std::optional<uint64_t> allocate(uint64_t bytes, bool bankAligned = true);
  uint64_t used() const { return top; }

private:
  uint64_t capacity, bankBytes, top = 0;
  /// Addresses reflected to capacity - start - size: the same bank-disjoint
  /// layout, stacked from the top of the memory.
  bool mirrored;
  uint64_t limit;
};

struct QParams {
  float scale = 1.0f;
  int64_t zeroPoint = 0;   ///< as the NPU sees it (uint8: zp - 128)
  bool isUnsigned = false; ///< uint8 in DRAM: DMA flips the sign bit
};

/// The accumulator tile of a conv/matmul item: int32 partial sums, fp32
/// scales (ACC words) and the int8 output (SP bytes), `m` x `nt`.
struct AccTile {
  uint64_t acc = 0, scales = 0, bias = 0, out = 0;
  int64_t m = 0, nt = 0;
  uint64_t lut = 0; ///< SP address of the activation table (Epilogue::lut)
  uint64_t res = 0; ///< SP address of the residual tile (Epilogue::residual)
};
/// How an accumulator tile leaves the NPU: requantized to int8/uint8
/// (REQUANT, then a scratchpad store), or as raw int32 straight from the
/// accumulator (ConvInteger/MatMulInteger, whose result type is i32).
struct Epilogue {
  bool int32Out = false;
  QParams y;
  int64_t lo = -128, hi = 127;
  /// A graph.table on the NPU reads the result (npu-fold-tables): REQUANT
  /// maps through `table` (256 bytes in the NPU's int8 domain, indexed by
  /// the requantized value + 128), loaded into the tile's `lut` slot from
  /// `lutDram`; the stored tensor is the table's (`storeUnsigned`).
  bool lut = false;
  std::vector<char> table;
  uint64_t lutDram = 0;
  bool storeUnsigned = false;
  /// A residual graph.add on the NPU reads the result (npu-fuse-residual):
  /// after REQUANT, a VADD adds the tile of the add's other operand, loaded
  /// from `residualDram` (same layout as the output), in place; the stored
  /// tile is the add's result. `producerIsLhs`: the conv's result is the
  /// add's first operand (VADD's A; the order matters to the fma); res* are
  /// the add's quantization and clamp.
  bool residual = false;
  bool producerIsLhs = true;
  QParams resA, resB, resOut;
  int64_t resLo = -128, resHi = 127;
  uint64_t residualDram = 0;
};
Epilogue epilogueOf(mlir::Operation *op);
/// The NPU graph.add that `op`'s epilogue applies (npu-fuse-residual
/// marked it), if any.
graph::AddOp fusedResidual(mlir::Operation *op);
/// An add applied in its producer's epilogue, or a concat its producers
/// write in place: no code of its own.
bool isFusedIntoProducer(mlir::Operation *op);
/// Where `op` (a convolution) stores its result when that result, through
/// its fused table, is an operand of a concat written in place
/// (npu-concat-in-place): the concat, the first channel of the slice and
/// the concat's channel count.
struct ConcatSlice {
  graph::ConcatOp concat;
  int64_t offset = 0, channels = 0;
};
std::optional<ConcatSlice> concatSlice(mlir::Operation *op);
/// MLAS QLinearAdd's per-call fp32 constants (docs/isa.md, VADD):
/// ratio_a = fl(sa / sc), ratio_b = fl(sb / sc),
/// fixed = fl(zc - fl(fl(ratio_a * za) + fl(ratio_b * zb))).
struct AddConstants {
  float ratioA, ratioB, fixed;
};
AddConstants addConstants(const QParams &a, const QParams &b, const QParams &c);
/// MLAS QLinearMul's ratio (docs/isa.md, VMUL): fl(fl(sa * sb) / sc).
float mulRatio(const QParams &a, const QParams &b, const QParams &c);
/// The NPU table that reads `op`'s result and is applied by `op`'s
/// REQUANT, if any.
graph::TableOp fusedTable(mlir::Operation *op);
/// The rows of `t`'s table (1 or C) as output storage bytes, channel-major.
std::vector<int8_t> tableRows(graph::TableOp t);
/// VLUT of `rows` x `cols` bytes at `data` (pitch `cols`) into `out`
/// through the table at `lut` (one per column with `perColumn`).
Instruction vlut(uint64_t data, uint64_t out, uint64_t lut, int64_t rows,
                 int64_t cols, bool perColumn);
/// Sets an 8-bit field of a vector-unit instruction (zero point, clamp
/// bound) to `value` in the unit's domain: an unsigned byte (0..255) in its
/// uint8 mode, stored as raw bits, else a signed int8 (docs/isa.md, "The
/// uint8 domain").
void setDomainByte(isa::Instruction &inst, isa::Field field, int64_t value,
                   bool u8);

/// A table with one row per channel ([C, 256]).
bool isPerChannel(graph::TableOp t);
/// Places an epilogue's table in the constant pool (sets `e.lutDram`).
void materializeTable(ProgramBuilder &b, Epilogue &e);
/// Loads of an accumulator tile's per-channel int32 bias and fp32 scales
/// (none for int32 outputs); REQUANT adds the bias, so the first MATMUL of a
/// tile overwrites.
void appendEpilogueLoads(Item &item, const AccTile &tile, const Epilogue &e,
                         uint64_t biasDram, uint64_t scaleDram);
/// Places the epilogue's per-channel constants in the pool: the int32 bias
/// (zeros without one) and the fp32 requantization scales computed as ORT
/// does from the input, weight and output scales. Returns their DRAM
/// addresses {bias, scales}.
std::pair<uint64_t, uint64_t>
materializeEpilogueConstants(ProgramBuilder &b, mlir::Value bias,
                             mlir::Type weightType, float inputScale,
                             float outputScale, int64_t channels,
                             bool derived = false);
/// REQUANT (int8 outputs), the fused residual add (its tile's load and a
/// VADD) and the store of `tile.m` rows of `tile.nt`
/// elements to element `elemOffset` of the tensor at `outBase`, rows
/// `rowStride` elements apart in DRAM.
/// With `kept` (a kept output that is stored too, LayerIO::storeKept, or
/// whose epilogue has a residual add), the epilogue's last instruction
/// writes the tile to `kept` (its pixels `keptPixelStride` bytes apart)
/// instead of the output slot, and the store reads it from there; without
/// `store` nothing is stored (Item::keep).
void appendEpilogue(Item &item, const AccTile &tile, const Epilogue &e,
                    uint64_t outBase, int64_t elemOffset, int64_t rowStride,
                    std::optional<uint64_t> kept = std::nullopt,
                    int64_t keptPixelStride = 0, bool store = true);
/// The epilogue of a kept layer (LayerIO::keepOutput): REQUANT writes the
/// tile's `rows` x `ow` pixels (output rows from `oy0`, channels from `c0`)
/// into `dst` (one REQUANT per row when its rows are padded); no store.
void appendKeptEpilogue(Item &item, const AccTile &tile, const Epilogue &e,
                        const OnChipTile &dst, int64_t oy0, int64_t rows,
                        int64_t ow, int64_t c0);
/// Where `op`'s input (its whole padded image) sits when the layer before
/// keeps it on chip and `op` allocates with `plan` (mirrored: from the
/// top), or nullopt when `op` cannot read a kept input (not a convolution
/// on the array, a depthwise one, a max pool or a global average pool; groups,
/// batches, an int32 result, input rows it skips).
std::optional<OnChipTile> onChipInput(mlir::Operation *op, const TilePlan &plan,
                                      const isa::HwConfig &hw, bool mirrored);
/// The loads that write the padding border of a kept image of `rows` rows
/// of `pl + w + pr` pixels of `c` bytes at `base` (pixels from row `pt`,
/// column `pl`; the previous layer wrote them): one pixel of `padByte`s in
/// the constant pool, broadcast (DRAM strides 0).
std::vector<DmaBox> keptImageBorder(uint64_t base, int64_t rows, int64_t pt,
                                    int64_t h, int64_t w, int64_t pl,
                                    int64_t pr, int64_t c, int64_t padByte,
                                    const LayerIO &io, ProgramBuilder &b);
/// Whether `op` can keep its output on chip for a consumer: an array
/// convolution with an int8 epilogue (no concat slice). With a fused
/// residual add, or stored too, the kept image must be dense
/// (keptTileIsDense: the add's VADD writes a tile with one pixel stride).
bool canKeepOutput(mlir::Operation *op);
/// Where a kept tile's producer pixel (oy, 0), channel c0, sits.
uint64_t keptAddress(const OnChipTile &t, int64_t oy, int64_t c0);
/// Whether a kept tile's pixels are one stride apart (LayerIO::storeKept):
/// no side padding around the producer's `ow` columns.
bool keptTileIsDense(const OnChipTile &t, int64_t ow);
/// The value a kept layer's consumer reads: its fused table's or residual
/// add's result, or its own.
mlir::Value layerResult(mlir::Operation *op);

/// Generates the pipeline items of `op` with `plan`. Fails with a message
/// naming what does not fit when the plan exceeds the SRAMs.
llvm::Expected<std::vector<Item>> lowerLayer(mlir::Operation *op,
                                             const TilePlan &plan,
                                             const LayerIO &io,
                                             ProgramBuilder &builder);

/// Candidate plans for `op`, most aggressive (largest tiles) first. With
/// `kSplit`, the plans that split K across items (plan entry "k", the K
/// chunk): the planner tries them when no plan without a split fits.
std::vector<TilePlan> candidatePlans(mlir::Operation *op,
                                     const isa::HwConfig &hw,
                                     bool kSplit = false);

/// The op's name, operand shapes, attributes and fused parts: layers with
/// the same signature have the same timing under the same plan.
std::string layerSignature(mlir::Operation *op);

/// Number of activation operands the generator of `op` reads from DRAM.
unsigned numActivationOperands(mlir::Operation *op);
/// An `arith.constant` tensor, also behind a `quant.scast` (weights and
/// constant operands: they live in the constant pool, not in DRAM tensors).
bool isConstantTensor(mlir::Value v);

// Per-kind generators (one file each).
llvm::Expected<std::vector<Item>> lowerConv(graph::Conv2DOp op,
                                            const TilePlan &plan,
                                            const LayerIO &io,
                                            ProgramBuilder &builder);
llvm::Expected<std::vector<Item>> lowerMatMul(graph::MatMulOp op,
                                              const TilePlan &plan,
                                              const LayerIO &io,
                                              ProgramBuilder &builder);
llvm::Expected<std::vector<Item>> lowerAdd(graph::AddOp op,
                                           const TilePlan &plan,
                                           const LayerIO &io,
                                           ProgramBuilder &builder);
llvm::Expected<std::vector<Item>> lowerMul(graph::MulOp op,
                                           const TilePlan &plan,
                                           const LayerIO &io,
                                           ProgramBuilder &builder);
/// A quantized sub or div (graph-fold-qdq's fold of DequantizeLinear ->
/// Sub/Div -> QuantizeLinear): row tiles through VBINARY (VectorCodegen.cpp).
/// Operand `idx` of elementwise `op` is a constant whose last dim is the
/// output's: broadcast along any other dims, it is read by rows (a window
/// mask shared by the heads).
bool constantBroadcastByRows(mlir::Operation *op, unsigned idx);
/// An elementwise binary op whose second operand is an fp32 constant
/// (graph-fold-qdq's Q(op(DQ(a), c))): VBINARY with b_f32.
bool hasF32Operand(mlir::Operation *op);
llvm::Expected<std::vector<Item>> lowerFloatBinary(mlir::Operation *op,
                                                   const TilePlan &plan,
                                                   const LayerIO &io,
                                                   ProgramBuilder &builder);
llvm::Expected<std::vector<Item>> lowerPool(graph::PoolOp op,
                                            const TilePlan &plan,
                                            const LayerIO &io,
                                            ProgramBuilder &builder);
llvm::Expected<std::vector<Item>> lowerGlobalAvgPool(graph::GlobalAvgPoolOp op,
                                                     const TilePlan &plan,
                                                     const LayerIO &io,
                                                     ProgramBuilder &builder);

llvm::Expected<std::vector<Item>> lowerTable(graph::TableOp op,
                                             const TilePlan &plan,
                                             const LayerIO &io,
                                             ProgramBuilder &builder);
llvm::Expected<std::vector<Item>> lowerConcat(graph::ConcatOp op,
                                              const TilePlan &plan,
                                              const LayerIO &io,
                                              ProgramBuilder &builder);
llvm::Expected<std::vector<Item>> lowerUpsample(graph::UpsampleOp op,
                                                const TilePlan &plan,
                                                const LayerIO &io,
                                                ProgramBuilder &builder);
llvm::Expected<std::vector<Item>> lowerDepthToSpace(graph::DepthToSpaceOp op,
                                                    const TilePlan &plan,
                                                    const LayerIO &io,
                                                    ProgramBuilder &b);
llvm::Expected<std::vector<Item>> lowerSpaceToDepth(graph::SpaceToDepthOp op,
                                                    const TilePlan &plan,
                                                    const LayerIO &io,
                                                    ProgramBuilder &b);
/// A slice that cuts one dim of an 8-bit tensor, as rows of its last dim:
/// `blocks` blocks of `rows` output rows of `co` bytes; block b's rows are
/// input rows b * blockStride + rowOffset + k * rowStep (rows `c` bytes
/// long), each read from byte `c0` on. A cut of the last dim (a
/// transformer's Q/K/V split, ShuffleNet's channel split) is one block of
/// every row at offset c0; a cut of another dim (Swin's roll and patch
/// merging, a Gather of one index) takes whole rows.
struct SliceRows {
  int64_t blocks = 1, rows = 1, blockStride = 0, rowOffset = 0, rowStep = 1;
  int64_t c = 1, co = 1, c0 = 0;
};
/// nullopt when `op` cuts more than one dim, strides the last one, or
/// strides a dim with rows inside it under others.
std::optional<SliceRows> sliceRows(graph::SliceOp op);
/// The slice's rows by strided DMA through the identity VLUT, no array
/// work.
llvm::Expected<std::vector<Item>> lowerChannelSlice(graph::SliceOp op,
                                                    const TilePlan &plan,
                                                    const LayerIO &io,
                                                    ProgramBuilder &b);
/// A transpose that keeps the innermost dim as a DMA copy: after dropping
/// size-1 dims and merging dims adjacent in both orders, the output is
/// size[0] x size[1] x size[2] runs of `c` contiguous bytes, whose input
/// strides (bytes) are `stride` (TableCodegen.cpp).
struct TransposeBoxes {
  int64_t c = 1;
  int64_t size[3] = {1, 1, 1}, stride[3] = {0, 0, 0};
};
/// nullopt when `op` moves the innermost dim, has more than three outer
/// dims after merging, or exceeds the DMA/VLUT field widths.
std::optional<TransposeBoxes> transposeBoxes(graph::TransposeOp op);
std::vector<TilePlan> transposeCandidates(graph::TransposeOp op,
                                          const isa::HwConfig &hw);
llvm::Expected<std::vector<Item>> lowerTranspose(graph::TransposeOp op,
                                                 const TilePlan &plan,
                                                 const LayerIO &io,
                                                 ProgramBuilder &b);
llvm::Expected<std::vector<Item>> lowerPad(graph::PadOp op,
                                           const TilePlan &plan,
                                           const LayerIO &io,
                                           ProgramBuilder &b);
/// A quantized softmax (a QLinearSoftmax graph.host over trailing axes):
/// tiles of whole rows through VSOFTMAX (RowCodegen.cpp).
llvm::Expected<std::vector<Item>> lowerSoftmax(graph::HostOp op,
                                               const TilePlan &plan,
                                               const LayerIO &io,
                                               ProgramBuilder &b);
std::vector<TilePlan> softmaxCandidates(graph::HostOp op,
                                        const isa::HwConfig &hw);
/// Why the NPU cannot run the graph.host `op` (empty: it can; only a
/// QLinearSoftmax over trailing axes).
std::string softmaxRejection(graph::HostOp op);
/// Whether `op` is a graph.host the NPU runs as VSOFTMAX.
bool isNpuSoftmax(mlir::Operation *op);
/// A quantized layer norm (graph-fold-qdq's fold of DequantizeLinear ->
/// LayerNormalization -> QuantizeLinear): tiles of whole rows through
/// VLAYERNORM (RowCodegen.cpp).
llvm::Expected<std::vector<Item>> lowerLayerNorm(graph::LayerNormOp op,
                                                 const TilePlan &plan,
                                                 const LayerIO &io,
                                                 ProgramBuilder &b);
std::vector<TilePlan> layerNormCandidates(graph::LayerNormOp op,
                                          const isa::HwConfig &hw);
/// Why the NPU cannot run the quantized layer norm `op` (empty: it can).
std::string layerNormRejection(graph::LayerNormOp op);
/// A quantized mean or sum over trailing axes (graph-fold-qdq's fold of
/// DequantizeLinear -> ReduceMean/ReduceSum -> QuantizeLinear): tiles of
/// whole rows through VREDUCE (RowCodegen.cpp).
llvm::Expected<std::vector<Item>> lowerReduce(graph::ReduceOp op,
                                              const TilePlan &plan,
                                              const LayerIO &io,
                                              ProgramBuilder &b);
std::vector<TilePlan> reduceCandidates(graph::ReduceOp op,
                                       const isa::HwConfig &hw);
/// Why the NPU cannot run the reduce `op` (empty: it can).
std::string reduceRejection(graph::ReduceOp op);
std::vector<TilePlan> tableCandidates(graph::TableOp op,
                                      const isa::HwConfig &hw);
/// A concat as rows: `rows` (the dims before the axis multiplied), each
/// the inputs' runs of `widths` bytes side by side into `width` (for the
/// last axis: pixels of channels).
struct ConcatRows {
  int64_t rows = 1, width = 1;
  std::vector<int64_t> widths;
  bool lastAxis = true;
};
ConcatRows concatRows(graph::ConcatOp op);
std::vector<TilePlan> concatCandidates(graph::ConcatOp op);

/// Double-buffered scratchpad slots: a pair for each of `bytes`, or an
/// error naming the op when they do not fit.
llvm::Expected<std::vector<std::array<uint64_t, 2>>>
allocateSlotPairs(mlir::Operation *op, const isa::HwConfig &hw,
                  llvm::ArrayRef<int64_t> bytes, bool mirrored);

std::vector<TilePlan> convCandidates(graph::Conv2DOp op,
                                     const isa::HwConfig &hw, bool kSplit);
std::vector<TilePlan> matmulCandidates(graph::MatMulOp op,
                                       const isa::HwConfig &hw, bool kSplit);
/// K chunk sizes for a K split: halvings of `k` rounded up to a multiple of
/// the array rows `r`, largest first, down to `r`.
std::vector<int64_t> kChunkCandidates(int64_t k, int64_t r);
std::vector<TilePlan> rowCandidates(int64_t outRows);
/// rowCandidates of `rows` that fit the scratchpad at `bytesPerRow` (all
/// slots of a row together), down to a sixteenth of the largest that does.
std::vector<TilePlan> fittingRowCandidates(int64_t rows, int64_t bytesPerRow,
                                           const isa::HwConfig &hw);

/// How the operands of an elementwise op of shapes `lhs`, `rhs` meet: equal
/// shapes, or one side a per-channel vector (every dim 1 but the last,
/// which equals the other side's), a scalar (one element) or a per-row
/// value (the other side's shape with a last dim of 1: a row's mean).
enum class BinaryBroadcast {
  None,
  Equal,
  LhsVector,
  RhsVector,
  LhsScalar,
  RhsScalar,
  LhsRow,
  RhsRow
};
BinaryBroadcast binaryBroadcast(mlir::ShapedType lhs, mlir::ShapedType rhs);

// Quantization arithmetic shared by the generators ------------------------

/// Per-tensor scale and zero point of a quantized tensor type.
QParams perTensorParams(mlir::Type tensorType);
/// Scale of channel `c` (per-axis) or the scale (per-tensor).
float channelScale(mlir::Type tensorType, int64_t c);
/// The zero point every channel of a weight shares (in the int8 domain).
int64_t uniformZeroPoint(mlir::Type tensorType);
/// ORT's requantization multiplier: fl(fl(x_scale * w_scale) / y_scale).
float requantScale(float xScale, float wScale, float yScale);
/// Clamp bounds of a quantized op in the NPU's int8 domain: act_min/act_max
/// (shifted by -128 for a uint8 result) or the storage range.
std::pair<int64_t, int64_t> clampBounds(mlir::Operation *op);
/// A [K, N] int8 matrix reordered as [ceil(N/nt)][K][nt-or-less] so each
/// column tile a DMA fetches is one contiguous DRAM block (full bursts).
std::vector<char> tileColumns(llvm::ArrayRef<char> matrix, int64_t k, int64_t n,
                              int64_t nt);
/// DRAM offset of column tile `j` inside tileColumns' layout.
inline int64_t columnTileOffset(int64_t k, int64_t nt, int64_t j) {
  return j * k * nt;
}
/// Constant operand bytes in the NPU's int8 domain (uint8 weights flipped).
std::vector<char> constantInt8(mlir::Value v);
/// Bytes of a constant operand (through quant.scast), row-major; splat
/// constants (e.g. an all-zero bias) are expanded to every element.
std::vector<char> constantBytes(mlir::Value v);

llvm::Error loweringError(mlir::Operation *op, const llvm::Twine &msg);

} // namespace systole::npu

#endif // SYSTOLE_LIB_TARGET_NPU_LAYERCODEGEN_H
