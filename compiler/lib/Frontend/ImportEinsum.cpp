//===- ImportEinsum.cpp - ONNX Einsum on the host -------------------------===//
//
// Einsum as one linalg.generic: every distinct subscript letter (and every
// dim an ellipsis stands for) is a loop, the output's letters are the
// parallel loops and the others reduction loops, and each operand's
// indexing map lists its letters' loops -- a letter repeated in one operand
// (a diagonal, "ii->i") is the same loop twice in its map. The body
// multiplies the operands' elements and accumulates in their type. Ellipsis
// dims broadcast against each other as numpy's einsum does (a size-1 dim
// reads index 0); subscript letters must agree in size.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <map>

using namespace mlir;

namespace systole::frontend {

namespace {

/// One operand's (or the output's) subscripts: letters, with the ellipsis
/// as the placeholder '.' at its position.
using Term = std::string;

/// Splits "ab...c" into letters with '.' for the ellipsis.
llvm::Expected<Term> parseTerm(ImportContext &ic, llvm::StringRef s) {
  Term t;
  bool ellipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    if (ch == '.') {
      if (!s.substr(i).starts_with("...") || ellipsis)
        return ic.fail("Einsum equation has a malformed ellipsis");
      ellipsis = true;
      t.push_back('.');
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(ch))) {
      t.push_back(ch);
    } else {
      return ic.fail(llvm::Twine("Einsum equation has an invalid character '") +
                     llvm::Twine(ch) + "'");
    }
  }
  return t;
}

llvm::Error importEinsum(ImportContext &ic) {
  std::string eq;
  for (char ch : ic.attrString("equation", ""))
    if (!std::isspace(static_cast<unsigned char>(ch)))
      eq.push_back(ch);
  if (eq.empty())
    return ic.fail("Einsum needs an equation");
  llvm::StringRef lhs = eq, rhs;
  bool explicitOut = false;
  if (size_t arrow = eq.find("->"); arrow != std::string::npos) {
    lhs = llvm::StringRef(eq).substr(0, arrow);
    rhs = llvm::StringRef(eq).substr(arrow + 2);
    explicitOut = true;
  }
  SmallVector<llvm::StringRef> parts;
  lhs.split(parts, ',');
  int n = ic.node->input_size();
  if (int(parts.size()) != n)
    return ic.fail("Einsum equation names " + llvm::Twine(parts.size()) +
                   " operands, the node has " + llvm::Twine(n));

  SmallVector<Value> ins;
  std::vector<Term> terms;
  Type elem;
  // Ellipsis dims of the broadcast result, and each letter's size.
  SmallVector<int64_t> ellShape;
  std::map<char, int64_t> sizes;
  std::map<char, int> count;
  for (int i = 0; i < n; ++i) {
    auto v = ic.input(i);
    if (!v)
      return v.takeError();
    if (i == 0)
      elem = elementOf(*v);
    else if (elementOf(*v) != elem)
      return ic.fail("Einsum operands have different element types");
    auto t = parseTerm(ic, parts[i]);
    if (!t)
      return t.takeError();
    auto shape = shapeOf(*v);
    int64_t letters = llvm::count_if(*t, [](char c) { return c != '.'; });
    bool hasEll = t->find('.') != std::string::npos;
    int64_t ellRank = int64_t(shape.size()) - letters;
    if (ellRank < 0 || (!hasEll && ellRank != 0))
      return ic.fail("Einsum operand " + llvm::Twine(i) + " has rank " +
                     llvm::Twine(shape.size()) + " but subscripts '" +
                     parts[i] + "'");
    int64_t d = 0;
    for (char c : *t) {
      if (c == '.') {
        SmallVector<int64_t> e(shape.begin() + d, shape.begin() + d + ellRank);
        auto b = graph::broadcastShapes(ellShape, e);
        if (failed(b))
          return ic.fail("Einsum ellipsis dims do not broadcast");
        ellShape.assign(b->begin(), b->end());
        d += ellRank;
        continue;
      }
      auto [it, fresh] = sizes.emplace(c, shape[d]);
      if (!fresh && it->second != shape[d])
        return ic.fail(llvm::Twine("Einsum subscript '") + llvm::Twine(c) +
                       "' has sizes " + llvm::Twine(it->second) + " and " +
                       llvm::Twine(shape[d]));
      ++count[c];
      ++d;
    }
    ins.push_back(*v);
    terms.push_back(*t);
  }

  // Implicit output (numpy): the ellipsis, then the letters used once, in
  // alphabetical order.
  Term out;
  if (explicitOut) {
    auto t = parseTerm(ic, rhs);
    if (!t)
      return t.takeError();
    out = *t;
    for (char c : out) {
      if (c != '.' && !sizes.count(c))
        return ic.fail(llvm::Twine("Einsum output subscript '") +
                       llvm::Twine(c) + "' is not an operand's");
      if (llvm::count(out, c) > 1)
        return ic.fail(llvm::Twine("Einsum output repeats subscript '") +
                       llvm::Twine(c) + "'");
    }
  } else {
    if (!ellShape.empty() || llvm::any_of(terms, [](const Term &t) {
          return t.find('.') != std::string::npos;
        }))
      out.push_back('.');
    for (auto [c, k] : count)
      if (k == 1)
        out.push_back(c);
  }

  // Loops: the ellipsis dims, then the letters (output letters first so the
  // result map is the leading dims in output order).
  int64_t e = ellShape.size();
  std::map<char, int64_t> loopOf;
  SmallVector<int64_t> loopSize(ellShape.begin(), ellShape.end());
  SmallVector<utils::IteratorType> iters(e, utils::IteratorType::parallel);
  bool outHasEll = out.find('.') != std::string::npos;
  if (!outHasEll)
    for (auto &it : iters)
      it = utils::IteratorType::reduction;
  for (char c : out)
    if (c != '.') {
      loopOf[c] = loopSize.size();
      loopSize.push_back(sizes[c]);
      iters.push_back(utils::IteratorType::parallel);
    }
  for (auto [c, size] : sizes)
    if (!loopOf.count(c)) {
      loopOf[c] = loopSize.size();
      loopSize.push_back(size);
      iters.push_back(utils::IteratorType::reduction);
    }
  int64_t loops = loopSize.size();
  MLIRContext *ctx = ic.ctx();
  auto mapOf = [&](const Term &t, ArrayRef<int64_t> shape) {
    SmallVector<AffineExpr> exprs;
    int64_t d = 0;
    for (char c : t) {
      if (c != '.') {
        exprs.push_back(getAffineDimExpr(loopOf[c], ctx));
        ++d;
        continue;
      }
      int64_t r = int64_t(shape.size()) - int64_t(t.size()) + 1;
      for (int64_t j = 0; j < r; ++j, ++d) {
        int64_t loop = e - r + j;
        exprs.push_back(shape[d] == 1 && loopSize[loop] != 1
                            ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(loop, ctx));
      }
    }
    return AffineMap::get(loops, 0, exprs, ctx);
  };
  SmallVector<AffineMap> maps;
  for (int i = 0; i < n; ++i)
    maps.push_back(mapOf(terms[i], shapeOf(ins[i])));
  SmallVector<int64_t> outShape;
  SmallVector<AffineExpr> outExprs;
  for (char c : out) {
    if (c == '.') {
      for (int64_t j = 0; j < e; ++j) {
        outShape.push_back(ellShape[j]);
        outExprs.push_back(getAffineDimExpr(j, ctx));
      }
      continue;
    }
    outShape.push_back(sizes[c]);
    outExprs.push_back(getAffineDimExpr(loopOf[c], ctx));
  }
  maps.push_back(AffineMap::get(loops, 0, outExprs, ctx));
  // The contraction as a linalg.generic description: the operands' and the
  // result's maps over the loops, and which loops are reductions.
  SmallVector<Attribute> mapAttrs;
  for (AffineMap m : maps)
    mapAttrs.push_back(AffineMapAttr::get(m));
  SmallVector<int64_t> reductionLoops;
  for (auto [i, it] : llvm::enumerate(iters))
    if (it == utils::IteratorType::reduction)
      reductionLoops.push_back(i);
  auto &b = ic.builder;
  Value y =
      ic.hostOp(ins, tensorType(outShape, elem),
                {b.getNamedAttr("indexing_maps", b.getArrayAttr(mapAttrs)),
                 b.getNamedAttr("loops", b.getI64IntegerAttr(loops)),
                 b.getNamedAttr("reduction_loops",
                                b.getDenseI64ArrayAttr(reductionLoops))});
  return ic.defineOutput(0, y);
}

} // namespace

void registerEinsumImporters(llvm::StringMap<OpImporter> &table) {
  table["Einsum"] = importEinsum;
}

} // namespace systole::frontend
